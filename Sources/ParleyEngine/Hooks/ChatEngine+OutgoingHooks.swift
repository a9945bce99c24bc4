public import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// One call of an outgoing hook: the caller (the server's HTTP client) posts `body` to
/// `url` signed with `secret`, then says how it went.
public struct OutgoingHookCall: Sendable {
    public var hookID: Int64
    public var url: URL
    public var secret: String
    public var body: Data
    /// The endpoint answered 2xx; with `text` when its JSON answer had some to post back.
    public var answered: @Sendable (_ text: String?) async -> Void
    /// Every attempt failed; the reason is shown to the group's admins.
    public var failed: @Sendable (_ reason: String) async -> Void
}

/// Makes the HTTP calls of outgoing hooks, within bounds of its own: the engine never
/// waits for one.
public protocol OutgoingHookCaller: Sendable {
    func call(_ call: OutgoingHookCall)
}

/// Each group's outgoing hooks, read from the store at most every 10 s (hooks made or
/// revoked on another node take that long to be seen here).
final class OutgoingHookCache: Sendable {
    private let entries = Mutex([ChatID: (hooks: [(hook: Hook, signingSecret: String)], read: ContinuousClock.Instant)]())

    func hooks(of chat: ChatID, store: any ChatStore) async throws -> [(hook: Hook, signingSecret: String)] {
        let now = ContinuousClock.now
        if let entry = entries.withLock({ $0[chat] }), now - entry.read < .seconds(10) { return entry.hooks }
        let hooks = try await store.outgoingHooks(of: chat)
        entries.withLock { entries in
            if entries.count >= 50_000 { entries.removeAll() }
            entries[chat] = (hooks, now)
        }
        return hooks
    }

    /// The chat has no outgoing hooks, as read less than 10 s ago: a message there needs
    /// no task to find out.
    func hasNone(_ chat: ChatID) -> Bool {
        guard let entry = entries.withLock({ $0[chat] }) else { return false }
        return entry.hooks.isEmpty && ContinuousClock.now - entry.read < .seconds(10)
    }

    func invalidate(_ chat: ChatID) { _ = entries.withLock { $0.removeValue(forKey: chat) } }
}

extension ChatEngine {
    /// Hands a group message that triggers outgoing hooks to the caller. Cheap for the
    /// rest: without a `!` command or an `@`, nothing is looked up, nor in a chat known
    /// to have no hooks (a direct chat, most groups); a hook's own posts trigger nothing,
    /// so two hooks cannot loop.
    func triggerOutgoingHooks(_ message: Message) {
        guard let caller = configuration.outgoingHooks, message.kind == .text, Self.mayTriggerHooks(message.via),
            message.text.hasPrefix("!") || message.text.contains("@"), !outgoingHookCache.hasNone(message.chatID)
        else { return }
        Task { [self] in
            guard let hooks = try? await outgoingHookCache.hooks(of: message.chatID, store: store), !hooks.isEmpty,
                let entry = try? await directory.entry(message.chatID), entry.chat.kind == .group
            else { return }
            for (hook, secret) in hooks {
                guard let trigger = hook.trigger, let address = hook.url, let url = URL(string: address),
                    Hook.triggers(trigger, name: hook.name, text: message.text), configuration.outgoingHookRefusal(url) == nil
                else { continue }
                let event = OutgoingHookEvent(
                    hook: .init(id: hook.id, name: hook.name), trigger: trigger, chat: entry.chat, message: message)
                guard let body = try? Self.hookEncoder.encode(event) else { continue }
                caller.call(
                    OutgoingHookCall(
                        hookID: hook.id, url: url, secret: secret, body: body,
                        answered: { [self] text in
                            try? await store.hookUsed(hook.id, at: now)
                            guard let text else { return }
                            do { try await postHookReply(hook, to: message, text: text) } catch {
                                // A refusal says why; anything else is the server's, not the group's to read.
                                let refusal = ParleyError(error)
                                let why = refusal.code == .internalError ? "the server failed to post it" : refusal.message
                                try? await store.hookFailed(hook.id, error: "its answer was not posted (\(refusal.code)): \(why)", at: now)
                            }
                        },
                        failed: { [self] reason in try? await store.hookFailed(hook.id, error: reason, at: now) }))
            }
        }
    }

    /// A person's message and their plugin's may call hooks; a hook's may not (two hooks
    /// would loop), nor a notice (IRC's rule: nothing answers a notice automatically).
    static func mayTriggerHooks(_ via: Provenance?) -> Bool {
        switch via {
        case nil, .plugin: true
        case .hook, .notice: false
        }
    }

    /// Posts an outgoing hook's answer as the hook's reply to the message that called it.
    private func postHookReply(_ hook: Hook, to message: Message, text: String) async throws {
        guard let maker = try await store.user(id: hook.createdBy.id) else { return }
        try await requireHookMakerAdmitted(maker)
        let session = acting(as: maker, client: "hook \(hook.id)")
        _ = try await session.send(
            to: .chat(message.chatID), text: try HookPayload.cut(text), clientID: "hook-\(hook.id)-re-\(message.id.rawValue)",
            via: .hook(name: hook.name, username: nil), replyTo: message.seq, clientTags: nil)
    }

    private static let hookEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// What an outgoing hook is sent: the hook, what triggered it, the group and the message.
struct OutgoingHookEvent: Encodable {
    struct HookName: Encodable {
        var id: Int64
        var name: String
    }
    var hook: HookName
    var trigger: String
    var chat: Chat
    var message: Message
}
