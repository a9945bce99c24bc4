public import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// What the server's operators (`--admin`) do to accounts: suspend and reinstate them,
/// ban accounts, handle patterns and address ranges server-wide, take down what an
/// account posted; and the audit log they, and groups' owners and admins, read.
extension EngineSession {
    /// Suspends an account: its sessions end at once on every node, with the reason,
    /// and neither it nor its bots may sign in until reinstated.
    public func suspend(handle: String, reason: String) async throws -> Suspension {
        let admin = try requireOperator("suspend accounts")
        guard let reason = try Limits.reason(reason) else { throw ParleyError(.invalidArgument, "say why: /suspend @handle REASON") }
        let target = try await account(named: handle)
        guard !engine.isOperator(target) else {
            throw ParleyError(.forbidden, "@\(target.handle) is one of the server's operators (--admin), who cannot be suspended")
        }
        let now = engine.now
        let suspension = Suspension(user: target.ref, reason: reason, by: admin.handle, at: now)
        let bots = target.isBot ? [] : try await store.bots(ownedBy: target.id)
        let withIt = bots.map { bot in
            Suspension(
                user: bot.ref, reason: "its owner @\(target.handle) is suspended: \(reason)", by: admin.handle, at: now,
                withOwner: target.id)
        }
        try await store.suspend([suspension] + withIt)
        for removed in [suspension] + withIt { try await engine.remove(removed.user.id, removed.refusal) }
        try await engine.audit(
            .suspend, by: admin, target: "@\(target.handle)", detail: bots.isEmpty ? nil : "with \(bots.count) bots", reason: reason)
        return suspension
    }

    /// Lifts a suspension, and that of the bots suspended with the account.
    public func reinstate(handle: String) async throws -> [UserRef] {
        let admin = try requireOperator("reinstate accounts")
        let target = try await account(named: handle)
        let freed = try await store.reinstate(target.id)
        guard !freed.isEmpty else { throw ParleyError(.invalidArgument, "@\(target.handle) is not suspended") }
        var users: [UserRef] = []
        for id in freed { if let user = try await store.user(id: id) { users.append(user.ref) } }
        try await engine.audit(
            .reinstate, by: admin, target: "@\(target.handle)", detail: freed.count > 1 ? "with \(freed.count - 1) bots" : nil)
        return users
    }

    public func suspensions() async throws -> [Suspension] {
        _ = try requireOperator("list suspensions")
        return try await store.suspensions()
    }

    /// Bans an account, a handle pattern or an address range server-wide, for a while
    /// or for good. An account ban ends its sessions at once; a pattern or range ends the
    /// connections it names at once on this node and within `BanBook.freshFor` on the
    /// others, and refuses every door from then on.
    public func banServer(_ target: String, reason: String?, duration: Duration?) async throws -> ServerBan {
        let admin = try requireOperator("ban from the server")
        let (kind, pattern) = try ServerBan.target(target)
        let reason = try Limits.reason(reason)
        var expiresAt: Date?
        if let duration {
            guard duration > .zero, duration <= .seconds(Limits.maxBanSeconds) else {
                throw ParleyError(.invalidArgument, "a ban lasts from a second to a year, or for good")
            }
            expiresAt = engine.now.addingTimeInterval(duration.seconds)
        }
        var banned: User?
        if kind == .account {
            let found = try await account(named: pattern)
            guard !engine.isOperator(found) else { throw ParleyError(.forbidden, "@\(found.handle) is one of the server's operators") }
            banned = found
        }
        if kind == .address, let range = AddressRange(pattern), range.contains(address) {
            throw ParleyError(.invalidArgument, "\(pattern) holds your own address (\(address)); ban a narrower range")
        }
        guard try await store.serverBans().count < ServerBan.maxBans else {
            throw ParleyError(.forbidden, "this server keeps \(ServerBan.maxBans) bans at most; lift some first")
        }
        let ban = try await store.addServerBan(
            ServerBan(id: 0, kind: kind, pattern: pattern, reason: reason, by: admin.handle, createdAt: engine.now, expiresAt: expiresAt))
        engine.banBook.changed()
        if let banned { try await engine.remove(banned.id, ban.refusal) }
        await engine.sweepBanned()
        try await engine.audit(
            .serverBan, by: admin, target: kind == .account ? "@\(pattern)" : pattern,
            detail: expiresAt.map { "until \(ISO8601DateFormatter().string(from: $0))" } ?? kind.rawValue, reason: reason)
        return ban
    }

    /// Lifts a ban named by its id or by what it bans.
    public func unbanServer(_ target: String) async throws -> ServerBan {
        let admin = try requireOperator("lift server bans")
        let text = target.trimmingSpaces()
        var id = Int64(text)
        if id == nil {
            let (kind, pattern) = try ServerBan.target(text)
            id = try await store.serverBans().first { $0.kind == kind && $0.pattern == pattern }?.id
        }
        guard let id, let removed = try await store.removeServerBan(id) else {
            throw ParleyError(.unknownBan, "no server ban \(text) (/server-bans lists them)")
        }
        engine.banBook.changed()
        try await engine.audit(.serverUnban, by: admin, target: removed.kind == .account ? "@\(removed.pattern)" : removed.pattern)
        return removed
    }

    public func serverBans() async throws -> [ServerBan] {
        _ = try requireOperator("list server bans")
        let now = engine.now
        return try await store.serverBans().filter { $0.isLive(at: now) }
    }

    /// Deletes every message an account sent between two times (all it sent, without
    /// them), in every chat, media withdrawn; every member sees each go.
    public func redact(handle: String, from: Date?, to: Date?, reason: String?) async throws -> Redaction {
        let admin = try requireOperator("redact accounts")
        let reason = try Limits.reason(reason)
        let target = try await account(named: handle)
        if let from, let to, from > to { throw ParleyError(.invalidArgument, "the window ends before it starts") }
        var (after, messages, media) = (Int64(0), 0, 0)
        while true {
            let batch = try await store.sentMessages(by: target.id, from: from, to: to, after: after, limit: 200)
            guard let last = batch.last else { break }
            after = last.id
            for found in batch {
                guard let tombstone = try await store.deleteMessage(chat: found.chat, seq: found.seq, at: engine.now),
                    let entry = try await engine.directory.entry(found.chat)
                else { continue }
                messages += 1
                if found.hasMedia { media += 1 }
                let event = MessageEvent(chat: entry.chat, message: tombstone, by: admin.ref, reason: reason)
                await engine.bus.publish(.messageDeleted(event), to: entry.members, except: nil)
            }
        }
        let window = [
            from.map { "from \(ISO8601DateFormatter().string(from: $0))" }, to.map { "to \(ISO8601DateFormatter().string(from: $0))" },
        ]
        .compactMap { $0 }.joined(separator: " ")
        try await engine.audit(
            .redact, by: admin, target: "@\(target.handle)",
            detail: "\(messages) messages, \(media) with media\(window.isEmpty ? "" : ", \(window)")", reason: reason)
        return Redaction(user: target.ref, messages: messages, media: media)
    }

    /// The audit log, newest first: all of it for an operator; a group's own for its
    /// owner and admins.
    public func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        _ = try requireUser()
        let limit = min(max(limit, 1), AuditEntry.maxPage)
        if (try? requireOperator("read the whole audit log")) == nil {
            guard let chat else {
                throw ParleyError(.forbidden, "only the server's operators read the whole audit log; name a group you run")
            }
            _ = try await requireManager(chat)
        }
        let actor = actor.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
        return try await store.audit(chat: chat, actor: actor, before: before, limit: limit)
    }

    /// What a rules change changed, in words for the audit log (empty: nothing).
    static func rulesChanged(from before: Chat, to after: Chat) -> String {
        var words: [String] = []
        func flag(_ name: String, _ old: Bool, _ new: Bool) { if old != new { words.append("\(name) \(new ? "on" : "off")") } }
        flag("moderated", before.moderated, after.moderated)
        flag("public", before.isPublic, after.isPublic)
        flag("unlisted", before.unlisted, after.unlisted)
        flag("anyone sets the topic", before.anyoneSetsTopic, after.anyoneSetsTopic)
        flag("anyone mentions all", before.anyoneMentionsAll, after.anyoneMentionsAll)
        if before.keyed != after.keyed { words.append(after.keyed ? "key set" : "key removed") }
        if before.memberLimit != after.memberLimit { words.append("member limit \(after.memberLimit.map(String.init) ?? "none")") }
        if before.retentionDays != after.retentionDays {
            words.append(after.retentionDays.map { "messages kept \($0) days" } ?? "messages kept as long as the server keeps them")
        }
        return words.joined(separator: ", ")
    }

    /// The operator this session acts as: the signed-in user if they are one, else
    /// the one whose credentials it proved (IRC's OPER).
    func requireOperator(_ what: String) throws -> User {
        let user = try requireUser()
        if engine.isOperator(user) { return user }
        guard let proven = state.withLock({ $0.provenOperator }) else {
            throw ParleyError(.forbidden, "only the server's operators \(what)")
        }
        return proven
    }

    /// Gives up the rights proved with `authenticateServerAdmin` (IRC's MODE -o).
    public func dropOperator() {
        state.withLock { $0.provenOperator = nil }
    }

    /// Ends every session of an account, on every node, saying why (IRC's KILL): unlike
    /// a suspension, it may sign in again at once.
    public func disconnect(handle: String, reason: String?) async throws {
        let admin = try requireOperator("disconnect accounts")
        let reason = try Limits.reason(reason)
        let target = try await account(named: handle)
        let why = "disconnected by the server's operator @\(admin.handle)" + (reason.map { ": \($0)" } ?? "")
        try await engine.remove(target.id, ParleyError(.invalidToken, why))
        try await engine.audit(.disconnect, by: admin, target: "@\(target.handle)", reason: reason)
    }

    /// A notice to everyone connected, on every node (IRC's WALLOPS; IRC clients see it
    /// with +w).
    public func wallops(_ text: String) async throws {
        let admin = try requireOperator("send notices to everyone")
        let sender = try requireUser()
        let text = try Limits.messageText(text)
        await engine.bus.publish(.wallops(Wallops(from: sender.ref, text: text)), to: await engine.everyoneOnline(), except: nil)
        let detail = (sender.id == admin.id ? "" : "as @\(sender.handle): ") + String(text.prefix(200))
        try await engine.audit(.wallops, by: admin, target: "everyone", detail: detail)
    }

    func account(named handle: String) async throws -> User {
        let name = handle.trimmingSpaces()
        let bare = name.hasPrefix("@") ? String(name.dropFirst()) : name
        guard !bare.isEmpty, bare.utf8.count <= 64, let found = try await store.user(handle: bare) else {
            throw ParleyError(.unknownUser, "no account @\(bare.prefix(64))")
        }
        return found
    }
}
