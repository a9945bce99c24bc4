public import ParleyCore
import ParleyStore

/// Making and revoking a group's incoming webhooks: the owner and admins.
extension EngineSession {
    public func createHook(in chat: ChatID, name: String, signingSecret: String?) async throws -> CreatedHook {
        let user = try await requireManager(chat).user
        let name = try Hook.checkedName(name)
        if let signingSecret {
            guard (1...Hook.maxSigningSecretLength).contains(signingSecret.utf8.count),
                !signingSecret.unicodeScalars.contains(where: Limits.isControl)
            else {
                throw ParleyError(.invalidArgument, "a signing secret is 1–\(Hook.maxSigningSecretLength) printable bytes")
            }
        }
        guard try await store.hooks(of: chat).count < Self.maxHooksPerGroup else {
            throw ParleyError(.forbidden, "a group has at most \(Self.maxHooksPerGroup) hooks; revoke one first")
        }
        let token = SecretToken.session()
        let hook = try await store.createHook(
            chat: chat, name: name, tokenHash: SecretToken.hash(token), signingSecret: signingSecret, by: user.id, at: engine.now)
        return CreatedHook(hook: hook, token: token)
    }

    static let maxHooksPerGroup = 50

    public func hooks(in chat: ChatID) async throws -> [Hook] {
        _ = try await requireManager(chat)
        return try await store.hooks(of: chat)
    }

    public func revokeHook(_ id: Int64, in chat: ChatID) async throws {
        _ = try await requireManager(chat)
        guard try await store.deleteHook(id, in: chat) else { throw ParleyError(.unknownHook, "no hook \(id) in this group") }
    }
}
