import Foundation
public import ParleyCore
import ParleyStore
import Synchronization

/// Export: everything the server holds about an account, for its owner (or an operator).
extension EngineSession {
    /// The account's data: profile, sessions, memberships, reactions and uploads with the
    /// first page of its messages (`after` nil), or only the page of messages after
    /// message id `after`. `handle`: another account's, for an operator.
    public func exportAccount(handle: String?, after: Int64?) async throws -> AccountExport {
        let me = try requireAccount()
        var user = me
        if let handle {
            let admin = try requireOperator("export other people's accounts")
            user = try await account(named: handle)
            if after == nil { try await engine.audit(.exportAccount, by: admin, target: "@\(user.handle)") }
        }
        let now = engine.now
        let page = try await store.messagesSent(by: user.id, after: max(after ?? 0, 0), limit: AccountExport.pageSize)
        let next = page.count == AccountExport.pageSize ? page.last?.id.rawValue : nil
        // What its hooks posted went out as the account, but it did not write them.
        let messages = page.filter { $0.via?.kind != "hook" }
        let hookPosts = page.filter { $0.via?.kind == "hook" }
        guard after == nil else {
            return AccountExport(
                user: user, phone: nil, exportedAt: now, sessions: [], memberships: [], reactions: [], uploads: [], messages: messages,
                hookPosts: hookPosts, next: next)
        }
        let current = user.id == me.id ? state.withLock { $0.tokenHash } : nil
        let sessions = try await store.sessions(of: user.id, now: now).map { session in
            SessionInfo(
                id: Self.publicID(of: session.tokenHash), client: session.client, address: session.address, startedAt: session.createdAt,
                lastActiveAt: Self.minute(session.lastActiveAt), current: session.tokenHash == current)
        }
        var memberships: [AccountExport.Membership] = []
        for summary in try await store.chatList(for: user.id) {
            guard let membership = try await store.membership(of: user.id, in: summary.chat.id) else { continue }
            memberships.append(
                AccountExport.Membership(
                    chat: summary.chat, role: membership.role, joinedAt: membership.joinedAt, readSeq: membership.readSeq,
                    notify: summary.notify))
        }
        var uploads: [MediaInfo] = []
        for id in try await store.uploads(by: user.id, limit: AccountExport.maxListed) {
            if let media = try await store.media(id: id) { uploads.append(media) }
        }
        var bots: [AccountExport.Bot] = []
        for bot in try await store.bots(ownedBy: user.id) {
            bots.append(
                AccountExport.Bot(
                    user: bot, tokens: try await store.botTokens(of: bot.id), commands: try await store.botCommands(of: bot.id)))
        }
        return AccountExport(
            user: user, phone: try await store.phone(of: user.id), exportedAt: now, sessions: sessions, memberships: memberships,
            reactions: try await store.reactions(by: user.id, limit: AccountExport.maxListed), uploads: uploads, messages: messages,
            hookPosts: hookPosts, records: try await store.accountRecords(of: user.id, limit: AccountExport.maxListed),
            ignores: try await store.ignored(by: user.id), bots: bots, suspension: try await store.suspension(of: user.id), next: next)
    }
}
