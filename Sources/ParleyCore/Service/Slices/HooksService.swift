/// A group's webhooks, incoming and outgoing (its owner and admins).
public protocol HooksService: AnyObject, Sendable {
    /// Makes a hook: a secret URL (`CreatedHook.path`, shown this once) that posts in the
    /// group as the hook. With `signingSecret`, posts must carry GitHub's signature.
    func createHook(in chat: ChatID, name: String, signingSecret: String?) async throws -> CreatedHook

    /// Makes an outgoing hook: group messages that start with `trigger` (`!deploy`), or
    /// say `@NAME` (`mention`), are posted to `url`; its answer's `text` comes back as the
    /// hook's reply. The calls' signing secret is `CreatedHook.signingSecret`, shown once.
    func createOutgoingHook(in chat: ChatID, name: String, url: String, trigger: String) async throws -> CreatedHook
    func hooks(in chat: ChatID) async throws -> [Hook]

    /// Revokes a hook: its URL answers as an unknown one from then on.
    func revokeHook(_ id: Int64, in chat: ChatID) async throws
}
