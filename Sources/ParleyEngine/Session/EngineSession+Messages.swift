public import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `MessagesService`: one send path for a message and a batch, history, search, read
/// markers, mentions and typing.
extension EngineSession {
    public func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?) async throws
        -> Message
    {
        try await sendMessage(to: recipient, text: text, clientID: clientID, via: via, replyTo: replyTo, clientTags: nil)
    }

    /// Sends a text; `clientTags` (IRCv3 client-only tags) go with it to those online
    /// and are not stored. `via` names the plugin it goes through, nothing else.
    public func sendMessage(
        to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?, clientTags: [String: String]?
    ) async throws -> Message {
        let provenance = try Provenance.pluginName(via).map(Provenance.plugin)
        return try await send(to: recipient, text: text, clientID: clientID, via: provenance, replyTo: replyTo, clientTags: clientTags)
    }

    /// Sends a text as an IRC `NOTICE`: the gateway's door, which no other client has.
    public func sendNotice(to recipient: Recipient, text: String, replyTo: Int64?, clientTags: [String: String]?) async throws
        -> Message
    {
        try await send(to: recipient, text: text, clientID: nil, via: .notice, replyTo: replyTo, clientTags: clientTags)
    }

    public func send(
        _ text: String, lines: [MessageLine]?, to recipient: Recipient, thread: Int64?, notice: Bool, clientTags: [String: String]?
    ) async throws -> Message {
        try await send(
            to: recipient, text: text, clientID: nil, via: notice ? .notice : nil, replyTo: nil, clientTags: clientTags, thread: thread,
            lines: lines)
    }

    /// Sends a text with what it came through, as the door it came in by says.
    func send(
        to recipient: Recipient, text: String, clientID: String?, via: Provenance?, replyTo: Int64?, clientTags: [String: String]?,
        thread: Int64? = nil, alsoToChat: Bool = false, lines: [MessageLine]? = nil
    ) async throws -> Message {
        let user = try requireUser()
        let text = try Limits.messageText(text)
        let clientID = try Limits.clientID(clientID)
        let clientTags = try Limits.clientTags(clientTags)
        var message = NewMessage(
            chatID: ChatID(0), sender: user.ref, kind: .text, text: text, clientID: clientID, via: via, sentAt: engine.now)
        message.replyTo = replyTo
        message.thread = thread
        message.alsoToChat = alsoToChat
        // The sender's cut, when it makes the text (at most a multiline batch's lines).
        if let lines, lines.count <= 64, (try? Limits.messageText(MessageLine.joined(lines))) == text { message.lines = lines }
        return try await deliver(to: recipient, as: user, message, clientTags: clientTags)
    }

    /// Checks each text and its chat in order, then stores all that passed in one
    /// commit and tells each chat's members, in order. The first refusal ends the batch.
    /// Each text is checked, stored and told of as `deliver` does one.
    public func sendMessages(_ batch: [OutgoingText]) async -> SentBatch {
        guard !batch.isEmpty else { return SentBatch(sent: [], failure: nil) }
        var prepared: [PreparedSend] = []
        var failure: ParleyError?
        let user: User
        do {
            user = try requireUser()
        } catch {
            return SentBatch(sent: [], failure: ParleyError(error))
        }
        do {
            var chats: [Recipient: ChatDirectory.Entry] = [:]
            for item in batch {
                var message = NewMessage(
                    chatID: ChatID(0), sender: user.ref, kind: .text, text: try Limits.messageText(item.text),
                    clientID: try Limits.clientID(item.clientID), via: try Provenance.pluginName(item.via).map(Provenance.plugin),
                    sentAt: engine.now)
                message.thread = item.thread
                message.alsoToChat = item.alsoToChat
                let ready = try await prepare(message, replyTo: item.replyTo, to: item.recipient, as: user, known: chats[item.recipient])
                chats[item.recipient] = ready.entry
                prepared.append(ready)
            }
        } catch {
            failure = ParleyError(error)
        }
        let outcome: (stored: [(message: Message, created: Bool)], failure: ParleyError?)
        do {
            outcome = try await store.append(prepared.map(\.message))
        } catch {
            return SentBatch(sent: [], failure: ParleyError(error))
        }
        var sent: [Message] = []
        for (index, (message, created)) in outcome.stored.enumerated() {
            sent.append(await published(message, created: created, prepared[index]))
        }
        var told: Set<ChatID> = []
        for ready in prepared.prefix(sent.count) where told.insert(ready.entry.chat.id).inserted {
            await afterSending(in: ready.entry, as: user)
        }
        return SentBatch(sent: sent, failure: outcome.failure ?? failure)
    }

    /// A text checked for its chat, ready to store: the chat's entry as the checks read
    /// it, and the message it replies to.
    struct PreparedSend: Sendable {
        var message: NewMessage
        var quote: ReplyQuote?
        var entry: ChatDirectory.Entry
        /// Who follows the message's thread by itself once it is sent (its root's author,
        /// those it mentions), unless they chose otherwise.
        var followers: [UserID] = []
        /// The title of the thread it goes to, for those who are told of it.
        var threadTitle: String?
    }

    /// Stores a checked message in the recipient's chat (opening a direct chat on first
    /// use) and tells the chat's members.
    func deliver(to recipient: Recipient, as user: User, _ message: NewMessage, clientTags: [String: String]? = nil) async throws
        -> Message
    {
        let trace = StageTrace.current
        trace?.mark(.engine)
        var ready = try await prepare(message, replyTo: message.replyTo, to: recipient, as: user, known: nil)
        ready.message.clientTags = clientTags
        trace?.mark(.store)
        let (stored, created) = try await store.append(ready.message)
        trace?.mark(.committed)
        let sent = await published(stored, created: created, ready)
        await afterSending(in: ready.entry, as: user)
        return sent
    }

    /// The one way a text is checked for its chat, on every path: where it goes (a
    /// member's group, not moderated against them, or a direct chat opened on first use),
    /// whom it mentions, what it replies to. `known`: the chat's entry, when a batch
    /// has read it for an earlier text to the same recipient.
    private func prepare(
        _ message: NewMessage, replyTo: Int64?, to recipient: Recipient, as user: User, known: ChatDirectory.Entry?
    ) async throws -> PreparedSend {
        let entry: ChatDirectory.Entry
        if let known { entry = known } else { entry = try await chatEntry(for: recipient, as: user) }
        var message = message
        message.chatID = entry.chat.id
        message.replyTo = replyTo
        message.origin = origin.tokenHash
        let rootAuthor = try await placeInThread(&message)
        let quote = try await annotate(&message, as: user, in: entry)
        var ready = PreparedSend(message: message, quote: quote, entry: entry)
        if let rootAuthor, let root = message.thread {
            ready.followers = ([rootAuthor] + message.mentions.map(\.id)).filter { $0 != user.id }
            ready.threadTitle = try await store.thread(chat: message.chatID, root: root, user: user.id)?.title
        }
        return ready
    }

    /// After a commit, on every path: the message as its sender sees it, and, when this
    /// send made it (not a retry of one stored before), its members told and its
    /// outgoing hooks called.
    private func published(_ stored: Message, created: Bool, _ ready: PreparedSend) async -> Message {
        var message = stored
        message.clientTags = ready.message.clientTags
        guard created else { return message }
        message.replyTo = ready.quote
        message.threadTitle = ready.threadTitle
        message.lines = ready.message.lines
        if let root = message.thread, !ready.followers.isEmpty {
            try? await store.setFollowing(.following, chat: message.chatID, root: root, users: ready.followers, onlyIfUnset: true)
        }
        await announce(message)
        StageTrace.current?.mark(.published)
        engine.triggerOutgoingHooks(message)
        return message
    }

    /// Finds the members the text mentions and the message it replies to. Mentioning
    /// everyone in a group takes its owner or an admin, unless the group lets anyone.
    private func annotate(_ message: inout NewMessage, as user: User, in entry: ChatDirectory.Entry) async throws -> ReplyQuote? {
        let (handles, everyone) = Mentions.parse(message.text)
        var named = handles
        if entry.chat.kind == .group, everyone {
            guard entry.roles[user.id]?.canManage == true || entry.chat.anyoneMentionsAll else {
                throw ParleyError(
                    .forbidden, "only the owner and admins of \(Self.name(of: entry.chat)) may mention @all or @here")
            }
            message.mentionsEveryone = true
        } else if everyone {
            named += Mentions.everyone
        }
        for handle in named.prefix(Limits.maxMentions) where handle.caseInsensitiveCompare(user.handle) != .orderedSame {
            let found =
                entry.chat.kind == .direct
                ? entry.chat.participants.first { $0.handle.caseInsensitiveCompare(handle) == .orderedSame }
                : try await store.user(handle: handle).flatMap { entry.roles[$0.id] == nil ? nil : $0.ref }
            if let found, !message.mentions.contains(found) { message.mentions.append(found) }
        }
        guard let seq = message.replyTo else { return nil }
        guard seq >= 1, let original = try await store.message(chat: message.chatID, seq: seq) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat to reply to")
        }
        return ReplyQuote(seq: seq, sender: original.sender, text: original.text, deleted: original.isDeleted)
    }

    /// After a send: the sender is back if they were away, and learns once per away
    /// period that the other side of a direct chat is away.
    private func afterSending(in entry: ChatDirectory.Entry, as user: User) async {
        if engine.activity.away(of: user.id) != nil {
            engine.activity.setAway(nil, of: user.id)
            if (try? await store.setAway(nil, of: user.id)) == true {
                await engine.publishPresence(of: user.ref, online: true, viewing: nil)
            }
        }
        guard entry.chat.kind == .direct, let peer = entry.chat.peer(of: user.id), peer.id != user.id,
            let away = try? await store.away(of: [peer.id])[peer.id], engine.activity.shouldTell(user.id, that: peer.id)
        else { return }
        await engine.bus.publish(.away(AwayNotice(user: peer, message: away)), to: [user.id], except: nil)
    }

    /// The chat a message to `recipient` goes to, after checking the user may send there.
    private func chatEntry(for recipient: Recipient, as user: User) async throws -> ChatDirectory.Entry {
        switch recipient {
        // The store checks membership again as it stores the message.
        case .chat(let id):
            let (entry, role, _) = try await requireMember(id, confirmed: false)
            guard !entry.chat.moderated || role.canPostWhenModerated else {
                throw ParleyError(.moderated, "\(Self.name(of: entry.chat)) is moderated: only its owner, admins and voiced members post")
            }
            return entry
        case .user(let peer):
            let chat = try await openDirectChat(with: peer, as: user)
            guard let entry = try await engine.directory.entry(chat) else {
                throw ParleyError(.unknownChat, "the direct chat with user \(peer) is gone")
            }
            return entry
        }
    }

    /// Tells the chat's members about a message just stored; if the chat is gone
    /// meanwhile, tells the bus that the message's event will not come.
    private func announce(_ message: Message) async {
        guard let entry = try? await engine.directory.entry(message.chatID) else {
            engine.bus.abandon(message.id)
            return
        }
        // Whoever ignores the sender is not told (nor is the message in what they read back).
        let ignorers = await engine.ignoreBook.ignorers(of: message.sender.id, store: store)
        let members = ignorers.isEmpty ? entry.members : entry.members.filter { !ignorers.contains($0) }
        await engine.bus.publish(.message(MessageEvent(chat: entry.chat, message: message)), to: members, except: origin)
    }

    /// The direct chat with `peer`, created (and announced to both) on first use; a peer
    /// who ignores the user is not told of it (nor lists it until there is a line to show).
    private func openDirectChat(with peer: UserID, as user: User) async throws -> ChatID {
        if let known = engine.directory.directChat(user.id, peer) { return known }
        try await engine.requirePeer(peer, of: user)
        let (chat, created) = try await store.openDirectChat(between: user.id, and: peer, at: engine.now)
        engine.directory.rememberDirectChat(chat.id, user.id, peer)
        if created {
            engine.directory.invalidate(chat.id)
            let ignorers = await engine.ignoreBook.ignorers(of: user.id, store: store)
            let told = [user.id, peer].filter { !ignorers.contains($0) }
            await engine.bus.publish(.chatCreated(ChatCreated(chat: chat, by: user.ref)), to: told, except: origin)
        }
        return chat.id
    }

    public func history(chat: ChatID, limit: Int, before: Int64?) async throws -> [Message] {
        try await history(chat: chat, flow: .all, limit: limit, before: before)
    }

    /// Up to `limit` messages with `after < seq < before`, newest of them, oldest first
    /// (what IRC's CHATHISTORY pages by); never before the user cleared the chat.
    public func history(chat: ChatID, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        try await history(chat: chat, flow: .all, after: after, before: before, limit: limit)
    }

    public func history(chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        let user = try await requireMember(chat).user
        let limit = try Limits.pageSize(limit)
        let cleared = try await store.membership(of: user.id, in: chat)?.clearedSeq ?? 0
        return await withoutIgnored(
            try await store.history(chat: chat, flow: flow, after: max(after, cleared), before: before, limit: limit), for: user.id)
    }

    static let maxSearchLength = 200

    public func search(_ search: MessageSearch) async throws -> [SearchHit] {
        let user = try requireUser()
        if let chat = search.chat { _ = try await requireMember(chat) }
        let limit = try Limits.pageSize(search.limit)
        guard (0...MessageSearch.maxContext).contains(search.context) else {
            throw ParleyError(.invalidArgument, "context is 0 to \(MessageSearch.maxContext) messages either side")
        }
        if let before = search.before, let after = search.after, after >= before {
            throw ParleyError(.invalidArgument, "after must be earlier than before")
        }
        let terms = try Self.searchTerms(search.words)
        guard !terms.isEmpty || search.isFiltered else {
            throw ParleyError(.invalidArgument, "search needs at least one word, or a chat, sender or date to narrow it")
        }
        guard search.thread == nil || search.chat != nil else { throw ParleyError(.invalidArgument, "a thread is searched in its chat") }
        let query = SearchQuery(
            terms: terms, chat: search.chat, sender: search.from, before: search.before, after: search.after, thread: search.thread)
        let found = await withoutIgnored(try await store.search(query, user: user.id, limit: limit), for: user.id)
        guard search.context > 0 else { return found.map { SearchHit(message: $0) } }
        // Context never reaches into the part of a chat the user cleared; seq numbers a
        // chat's messages without gaps, so the neighbours are the seqs either side.
        // In a thread, the context is the thread's (its numbers have gaps: the ones before
        // are its newest before the hit; the ones after, those within as many numbers).
        let flow = search.thread.map(HistoryFlow.thread) ?? .all
        var cleared: [ChatID: Int64] = [:]
        var hits: [SearchHit] = []
        for message in found {
            let chat = message.chatID
            if cleared[chat] == nil { cleared[chat] = try await store.membership(of: user.id, in: chat)?.clearedSeq ?? 0 }
            let from = search.thread != nil ? cleared[chat] ?? 0 : max(cleared[chat] ?? 0, message.seq - Int64(search.context) - 1)
            let before = try await store.history(chat: chat, flow: flow, after: from, before: message.seq, limit: search.context)
            let until = message.seq < Int64.max - 8 ? message.seq + Int64(search.context) + 1 : Int64.max
            let after = try await store.history(chat: chat, flow: flow, after: message.seq, before: until, limit: search.context)
            hits.append(
                SearchHit(
                    message: message, before: await withoutIgnored(before, for: user.id), after: await withoutIgnored(after, for: user.id)))
        }
        return hits
    }

    /// The words as terms: split at spaces and punctuation; a word ending in `*` is a
    /// prefix (`depl*` finds "deployment"), and so is the last word, which people type as
    /// they think of it.
    static func searchTerms(_ words: String) throws(ParleyError) -> [SearchQuery.Term] {
        guard words.count <= Self.maxSearchLength, !words.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "search words are at most \(Self.maxSearchLength) characters without control characters")
        }
        var terms: [(word: Substring, prefix: Bool)] = []
        for token in words.split(whereSeparator: \.isWhitespace) {
            let parts = token.split(whereSeparator: { $0.isPunctuation && $0 != "'" || $0.isSymbol })
            terms += parts.enumerated().map { ($0.element, token.hasSuffix("*") && $0.offset == parts.count - 1) }
        }
        if !terms.isEmpty { terms[terms.count - 1].prefix = true }
        return terms.map { SearchQuery.Term(word: String($0.word), prefix: $0.prefix) }
    }

    public func markRead(chat: ChatID, upTo seq: Int64) async throws -> ReadMarker {
        let user = try await requireMember(chat).user
        guard seq >= 0 else { throw ParleyError(.invalidArgument, "a sequence number is 1 or more") }
        let (marker, moved) = try await store.markRead(chat: chat, user: user.id, seq: seq, at: engine.now)
        if moved { try await publish(.readMarkerMoved(marker), toMembersOf: chat) }
        return marker
    }

    /// Moves the user's read position to a time (IRC's MARKREAD): the read marker goes
    /// to the last message sent by then, so unread counts agree across clients. Never
    /// backwards; a time in the future counts as now.
    public func markRead(chat: ChatID, upToTime time: Date) async throws -> ReadMarker {
        let user = try await requireMember(chat).user
        let (marker, moved) = try await store.markRead(chat: chat, user: user.id, upTo: min(time, engine.now), at: engine.now)
        // The user's other sessions hear of it too (their clients keep the same marker).
        if moved { try await publish(.readMarkerMoved(marker), toMembersOf: chat) }
        return marker
    }

    /// The user's own read marker in a chat.
    public func readMarker(chat: ChatID) async throws -> ReadMarker {
        let user = try await requireMember(chat).user
        guard let marker = try await store.readMarker(chat: chat, user: user.id) else {
            throw ParleyError(.notMember, "you are not a member of this chat")
        }
        return marker
    }

    public func seenBy(chat: ChatID, seq: Int64) async throws -> [ReadMarker] {
        _ = try await requireMember(chat)
        guard let message = try await store.message(chat: chat, seq: seq) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat")
        }
        return try await store.readers(chat: chat, atLeast: seq).filter { $0.user.id != message.sender.id }
    }

    public func mentions(limit: Int) async throws -> [Message] {
        let user = try requireUser()
        return await withoutIgnored(try await store.mentions(of: user.id, limit: try Limits.pageSize(limit)), for: user.id)
    }

    public func typing(in chat: ChatID) async throws {
        let (entry, _, user) = try await requireMember(chat, confirmed: false)
        guard
            engine.activity.mayAnnounceTyping(
                user.id, in: chat, at: engine.now, interval: engine.configuration.typingInterval.seconds)
        else { return }
        // Nor is someone who ignores the typist told.
        let ignorers = await engine.ignoreBook.ignorers(of: user.id, store: store)
        let others = entry.roles.keys.filter { $0 != user.id && !ignorers.contains($0) }
        guard !others.isEmpty else { return }
        await engine.bus.publish(.typing(Typing(chatID: chat, user: user.ref)), to: others, except: origin)
    }
}
