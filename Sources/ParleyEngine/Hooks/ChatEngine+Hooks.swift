import Crypto
import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// The headers of a hook post the engine reads.
public struct HookHeaders: Sendable {
    public var contentType: String?
    /// `X-GitHub-Event`: the body is a GitHub delivery of that event.
    public var githubEvent: String?
    /// `X-Hub-Signature-256`: `sha256=` and the hex HMAC of the body.
    public var signature: String?
    /// `X-GitHub-Delivery` or `Idempotency-Key`: the same key again lands once.
    public var deliveryKey: String?

    public init(contentType: String? = nil, githubEvent: String? = nil, signature: String? = nil, deliveryKey: String? = nil) {
        self.contentType = contentType
        self.githubEvent = githubEvent
        self.signature = signature
        self.deliveryKey = deliveryKey
    }
}

extension ChatEngine {
    /// Posts what came to a hook's URL in its group, as the hook's message. An unknown,
    /// revoked or mistyped token, and a hook whose maker has left the group, are all
    /// `unknown_hook`, so a URL tells nothing about the group.
    /// A post from a banned `address` is refused before the token is looked at.
    public func postFromHook(token: String, body: [UInt8], headers: HookHeaders, address: String) async throws -> Message {
        try await requireAddressAdmitted(address)
        let unknown = ParleyError(.unknownHook, "no such hook")
        guard (1...128).contains(token.utf8.count), token.utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
            let (hook, signingSecret) = try await store.hook(tokenHash: SecretToken.hash(token))
        else { throw unknown }
        if let signingSecret {
            guard let signature = headers.signature, Self.verify(signature, body: body, secret: signingSecret) else {
                throw ParleyError(.badSignature, "X-Hub-Signature-256 is missing or does not match the hook's signing secret")
            }
        }
        guard hookPace.take(for: hook.id, at: .now) else {
            throw ParleyError(.rateLimited, "this hook posts at most \(hookPace.perSecond) messages a second")
        }
        let post = try HookPayload.post(body: body, contentType: headers.contentType, githubEvent: headers.githubEvent)
        guard let maker = try await store.user(id: hook.createdBy.id) else { throw unknown }
        try await requireHookMakerAdmitted(maker)
        let session = acting(as: maker, client: "hook \(hook.id)")
        // Into a thread: the one `thread_ts` names, or the one of the item it is about.
        var thread: Int64?
        if post.threadTS != nil {
            guard let seq = post.threadSeq else {
                throw ParleyError(.invalidArgument, "thread_ts names a message by the ts a hook's answer gave (its number)")
            }
            thread = seq
        } else if let item = post.item {
            thread = try await store.threadRoot(chat: hook.chatID, item: item.key)
        }
        let message: Message
        do {
            message = try await session.send(
                to: .chat(hook.chatID), text: post.text, clientID: headers.deliveryKey.map { Self.clientID(hook: hook.id, key: $0) },
                via: .hook(name: hook.name, username: Provenance.hookUsername(post.username)), replyTo: nil, clientTags: nil,
                thread: thread)
        } catch let error as ParleyError where [.notMember, .unknownChat, .banned].contains(error.code) {
            throw unknown
        }
        // The first delivery about an item is its thread's root.
        if thread == nil, let item = post.item {
            try? await store.openThread(chat: hook.chatID, root: message.seq, title: item.title, item: item.key, at: now)
        }
        try? await store.hookUsed(hook.id, at: now)
        return message
    }

    /// A hook posts as the account that made it: not while that account is suspended or
    /// banned (the refusal names no one: the caller holds a URL, not an account).
    func requireHookMakerAdmitted(_ maker: User) async throws {
        do { try await requireAdmitted(maker, address: nil) } catch let error as ParleyError {
            throw ParleyError(error.code, "the account that made this hook is suspended or banned by the server's operators")
        }
    }

    /// A client id from a delivery key, the same for the same key: a redelivery lands once.
    static func clientID(hook: Int64, key: String) -> String {
        let digest = SHA256.hash(data: Data(key.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return "hook-\(hook)-\(digest)"
    }

    /// `sha256=HEX` against the HMAC-SHA256 of the body, compared in constant time.
    static func verify(_ header: String, body: [UInt8], secret: String) -> Bool {
        guard header.hasPrefix("sha256="), header.utf8.count == 71 else { return false }
        let hex = Array(header.utf8.dropFirst(7))
        var given: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return false }
            given.append(byte)
        }
        let key = SymmetricKey(data: Data(secret.utf8))
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: body, using: key)
    }
}

extension ChatEngine {
    /// Posts a hook may make in a burst: four seconds' worth.
    static func hookBurst(_ rate: Int) -> Int { rate > Int.max / 4 ? Int.max : rate * 4 }

    /// A new rate for incoming hooks' posts, from now (a reload of the server's settings).
    public func setHookRate(_ rate: Int) {
        hookPace.setRate(perSecond: rate, burst: Self.hookBurst(rate))
    }
}
