import Foundation
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
            chat: chat, name: name, tokenHash: SecretToken.hash(token), signingSecret: signingSecret, by: user.id, at: engine.now, url: nil,
            trigger: nil)
        return CreatedHook(hook: hook, token: token)
    }

    static let maxHooksPerGroup = 50

    /// An outgoing hook: messages in the group that start with the command `trigger`
    /// (`!deploy`), or mention `@NAME` (`mention`), are posted to `url`, signed with a
    /// secret shown this once; a JSON answer's `text` is posted back as the hook's reply.
    public func createOutgoingHook(in chat: ChatID, name: String, url: String, trigger: String) async throws -> CreatedHook {
        let user = try await requireManager(chat).user
        let name = try Hook.checkedName(name)
        let trigger = try Hook.checkedTrigger(trigger)
        guard engine.configuration.outgoingHooks != nil else {
            throw ParleyError(.forbidden, "this server calls no outgoing hooks (its operator allows them with --hook-allow)")
        }
        guard url.utf8.count <= 2048, let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
            parsed.host?.isEmpty == false, !url.unicodeScalars.contains(where: Limits.isControl)
        else { throw ParleyError(.invalidArgument, "an outgoing hook's URL is http:// or https:// with a host, at most 2,048 bytes") }
        if let refusal = engine.configuration.outgoingHookRefusal(parsed) {
            throw ParleyError(.forbidden, "this server does not call that URL: \(refusal)")
        }
        guard try await store.hooks(of: chat).count < Self.maxHooksPerGroup else {
            throw ParleyError(.forbidden, "a group has at most \(Self.maxHooksPerGroup) hooks; revoke one first")
        }
        let secret = SecretToken.session()
        let hook = try await store.createHook(
            chat: chat, name: name, tokenHash: SecretToken.hash(SecretToken.session()), signingSecret: secret, by: user.id,
            at: engine.now, url: url, trigger: trigger)
        engine.outgoingHookCache.invalidate(chat)
        return CreatedHook(hook: hook, token: "", signingSecret: secret)
    }

    public func hooks(in chat: ChatID) async throws -> [Hook] {
        _ = try await requireManager(chat)
        return try await store.hooks(of: chat)
    }

    public func revokeHook(_ id: Int64, in chat: ChatID) async throws {
        _ = try await requireManager(chat)
        guard try await store.deleteHook(id, in: chat) else { throw ParleyError(.unknownHook, "no hook \(id) in this group") }
        engine.outgoingHookCache.invalidate(chat)
    }
}
