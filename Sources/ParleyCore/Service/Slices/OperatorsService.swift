public import Foundation

/// The server's operators (`--admin`): suspensions, server bans, redaction, disconnection, wallops, the audit log.
public protocol OperatorsService: AnyObject, Sendable {
    /// Suspends an account and its bots: their sessions end, sign-in is refused.
    func suspend(handle: String, reason: String) async throws -> Suspension

    /// Lifts a suspension (and its bots'); who was reinstated.
    func reinstate(handle: String) async throws -> [UserRef]
    func suspensions() async throws -> [Suspension]

    /// Bans `@handle`, a handle pattern or an address range server-wide, for `duration` or for good.
    func banServer(_ target: String, reason: String?, duration: Duration?) async throws -> ServerBan

    /// Lifts a server ban named by its id or its target.
    func unbanServer(_ target: String) async throws -> ServerBan
    func serverBans() async throws -> [ServerBan]

    /// Deletes what an account sent between two times (nil: no bound), media too.
    func redact(handle: String, from: Date?, to: Date?, reason: String?) async throws -> Redaction

    /// Ends every session of an account, on every node, saying why (IRC's KILL); it may
    /// sign in again.
    func disconnect(handle: String, reason: String?) async throws

    /// A notice from the operators to everyone connected (IRC's WALLOPS).
    func wallops(_ text: String) async throws

    /// The audit log, newest first (operators: all of it; a group's owner and admins: the group's).
    func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry]
}
