public import Foundation
public import ParleyCore
import ParleyProtocol

/// The server operators' ops and the audit log, over the link.
extension RemoteChatService {
    public func suspend(handle: String, reason: String) async throws -> Suspension {
        try await link.call(OpDeclarations.suspend, Args.Suspend(handle: handle, reason: reason))
    }

    public func reinstate(handle: String) async throws -> [UserRef] {
        try await link.call(OpDeclarations.reinstate, Args.Handle(handle: handle))
    }

    public func suspensions() async throws -> [Suspension] {
        try await link.call(OpDeclarations.suspensions, Empty())
    }

    public func banServer(_ target: String, reason: String?, duration: Duration?) async throws -> ServerBan {
        try await link.call(OpDeclarations.banServer, Args.BanServer(target: target, reason: reason, duration: duration))
    }

    public func unbanServer(_ target: String) async throws -> ServerBan {
        try await link.call(OpDeclarations.unbanServer, Args.BanTarget(target: target))
    }

    public func serverBans() async throws -> [ServerBan] {
        try await link.call(OpDeclarations.serverBans, Empty())
    }

    public func redact(handle: String, from: Date?, to: Date?, reason: String?) async throws -> Redaction {
        try await link.call(OpDeclarations.redact, Args.Redact(handle: handle, from: from, to: to, reason: reason))
    }

    public func exportAccount(handle: String?, after: Int64?) async throws -> AccountExport {
        try await link.call(OpDeclarations.exportAccount, Args.ExportAccount(handle: handle, after: after))
    }

    public func deleteAccount(password: String?) async throws {
        _ = try await link.call(OpDeclarations.deleteAccount, Args.DeleteAccount(password: password))
        await link.signedOut()
    }

    public func disconnect(handle: String, reason: String?) async throws {
        _ = try await link.call(OpDeclarations.disconnect, Args.HandleReason(handle: handle, reason: reason))
    }

    public func wallops(_ text: String) async throws {
        _ = try await link.call(OpDeclarations.wallops, Args.Text(text: text))
    }

    public func eraseAccount(handle: String, reason: String?) async throws {
        _ = try await link.call(OpDeclarations.eraseAccount, Args.HandleReason(handle: handle, reason: reason))
    }

    public func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await link.call(OpDeclarations.audit, Args.Audit(chat: chat, actor: actor, before: before, limit: limit))
    }
}
