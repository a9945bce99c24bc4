import Foundation
public import ParleyCore
import ParleyStore

extension EngineSession {
    public func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?) async throws -> Message {
        let user = try requireUser()
        let text = try Limits.messageText(text)
        let clientID = try Limits.clientID(clientID)
        let via = try Limits.via(via)
        return try await deliver(
            to: recipient, as: user,
            NewMessage(chatID: ChatID(0), sender: user.ref, kind: .text, text: text, clientID: clientID, via: via, sentAt: engine.now))
    }

    /// Checks each text and its chat in order, then stores all that passed in one
    /// commit and tells each chat's members, in order. The first refusal ends the batch.
    public func sendMessages(_ batch: [OutgoingText]) async -> SentBatch {
        guard !batch.isEmpty else { return SentBatch(sent: [], failure: nil) }
        var prepared: [NewMessage] = []
        var failure: ParleyError?
        do {
            let user = try requireUser()
            var chats: [Recipient: ChatID] = [:]
            for item in batch {
                let text = try Limits.messageText(item.text)
                let clientID = try Limits.clientID(item.clientID)
                let via = try Limits.via(item.via)
                let chat: ChatID
                if let known = chats[item.recipient] {
                    chat = known
                } else {
                    chat = try await chatID(for: item.recipient, as: user)
                    chats[item.recipient] = chat
                }
                prepared.append(
                    NewMessage(chatID: chat, sender: user.ref, kind: .text, text: text, clientID: clientID, via: via, sentAt: engine.now))
            }
        } catch {
            failure = ParleyError(error)
        }
        let outcome: (stored: [(message: Message, created: Bool)], failure: ParleyError?)
        do {
            outcome = try await store.append(prepared)
        } catch {
            return SentBatch(sent: [], failure: ParleyError(error))
        }
        let sent = outcome.stored.map(\.message)
        do {
            for (stored, created) in outcome.stored where created || engine.bus.deduplicatesMessages { try await announce(stored) }
        } catch {
            return SentBatch(sent: sent, failure: ParleyError(error))
        }
        return SentBatch(sent: sent, failure: outcome.failure ?? failure)
    }

    /// Stores a checked message in the recipient's chat (opening a direct chat on first
    /// use) and tells the chat's members.
    func deliver(to recipient: Recipient, as user: User, _ message: NewMessage) async throws -> Message {
        var message = message
        message.chatID = try await chatID(for: recipient, as: user)
        let (stored, created) = try await store.append(message)
        if created || engine.bus.deduplicatesMessages { try await announce(stored) }
        return stored
    }

    /// The chat a message to `recipient` goes to, after checking the user may send there.
    private func chatID(for recipient: Recipient, as user: User) async throws -> ChatID {
        switch recipient {
        // The store checks membership as it stores the message.
        case .chat(let id): try await requireMember(id, confirmed: false).entry.chat.id
        case .user(let peer): try await openDirectChat(with: peer, as: user)
        }
    }

    /// Tells the chat's members about a message just stored.
    private func announce(_ message: Message) async throws {
        guard let entry = try await engine.directory.entry(message.chatID) else { return }
        try await publish(.message(MessageEvent(chat: entry.chat, message: message)), toMembersOf: message.chatID)
    }

    /// The direct chat with `peer`, created (and announced to both) on first use.
    private func openDirectChat(with peer: UserID, as user: User) async throws -> ChatID {
        if let known = engine.directory.directChat(user.id, peer) { return known }
        try await engine.requirePeer(peer, of: user)
        let (chat, created) = try await store.openDirectChat(between: user.id, and: peer, at: engine.now)
        engine.directory.rememberDirectChat(chat.id, user.id, peer)
        if created {
            engine.directory.invalidate(chat.id)
            try await publish(.chatCreated(ChatCreated(chat: chat, by: user.ref)), toMembersOf: chat.id)
        }
        return chat.id
    }

    public func history(chat: ChatID, limit: Int, before: Int64?) async throws -> [Message] {
        let user = try await requireMember(chat).user
        let limit = try Limits.pageSize(limit)
        let cleared = try await store.membership(of: user.id, in: chat)?.clearedSeq ?? 0
        return try await store.history(chat: chat, after: cleared, before: before, limit: limit)
    }

    static let maxSearchLength = 200

    public func search(_ words: String, in chat: ChatID?, limit: Int) async throws -> [Message] {
        let user = try requireUser()
        if let chat { _ = try await requireMember(chat) }
        let limit = try Limits.pageSize(limit)
        guard words.count <= Self.maxSearchLength, !words.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "search words are at most \(Self.maxSearchLength) characters without control characters")
        }
        // A word ending in `*` is a prefix (`depl*` finds "deployment"), and so is the
        // last word, which people type as they think of it.
        var terms: [(word: Substring, prefix: Bool)] = []
        for token in words.split(whereSeparator: \.isWhitespace) {
            let parts = token.split(whereSeparator: { $0.isPunctuation && $0 != "'" || $0.isSymbol })
            terms += parts.enumerated().map { ($0.element, token.hasSuffix("*") && $0.offset == parts.count - 1) }
        }
        guard !terms.isEmpty else { throw ParleyError(.invalidArgument, "search needs at least one word") }
        terms[terms.count - 1].prefix = true
        let query = SearchQuery(terms: terms.map { SearchQuery.Term(word: String($0.word), prefix: $0.prefix) })
        return try await store.search(query, user: user.id, chat: chat, limit: limit)
    }

    public func markRead(chat: ChatID, upTo seq: Int64) async throws -> ReadMarker {
        let user = try await requireMember(chat).user
        guard seq >= 0 else { throw ParleyError(.invalidArgument, "a sequence number is 1 or more") }
        let (marker, moved) = try await store.markRead(chat: chat, user: user.id, seq: seq, at: engine.now)
        if moved { try await publish(.readMarkerMoved(marker), toMembersOf: chat) }
        return marker
    }

    public func seenBy(chat: ChatID, seq: Int64) async throws -> [ReadMarker] {
        _ = try await requireMember(chat)
        guard let message = try await store.message(chat: chat, seq: seq) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat")
        }
        return try await store.readers(chat: chat, atLeast: seq).filter { $0.user.id != message.sender.id }
    }

    public func chats() async throws -> [ChatSummary] {
        let user = try requireUser()
        return try await store.chatList(for: user.id)
    }

    public func chat(_ id: ChatID) async throws -> Chat {
        try await requireMember(id).entry.chat
    }

    public func directChat(with peer: UserID) async throws -> Chat? {
        let user = try requireUser()
        return try await store.directChat(between: user.id, and: peer)
    }

    public func deleteChat(_ chat: ChatID) async throws {
        let user = try await requireMember(chat).user
        try await store.hideChat(chat, for: user.id, at: engine.now)
        await engine.bus.publish(.chatDeleted(ChatDeleted(chatID: chat)), to: [user.id], except: origin)
    }
}
