import AsyncHTTPClient
import Crypto
public import Foundation
import NIOCore
import NIOHTTP1
public import ParleyEngine
import Synchronization

/// Makes outgoing hooks' HTTP calls: at most 32 under way, 4 per hook (past them a call
/// is dropped and the drop shown to the group's admins), each with a 5 s timeout and up
/// to 3 attempts (1 s, then 3 s apart) while the endpoint cannot be reached, times out,
/// or answers 5xx or 429. Redirects are not followed, so an allowed host cannot send a
/// call on to one that is not.
public final class OutgoingHookSender: OutgoingHookCaller, Sendable {
    /// One client for the process, never shut down (it lives as long as the process).
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
    private var client: HTTPClient { Self.client }
    private let inFlight = Mutex((total: 0, perHook: [Int64: Int]()))
    static let maxInFlight = 32
    static let maxPerHook = 4
    static let timeout: TimeAmount = .seconds(5)

    public init() {}

    public func call(_ call: OutgoingHookCall) {
        let taken = inFlight.withLock { state in
            guard state.total < Self.maxInFlight, state.perHook[call.hookID, default: 0] < Self.maxPerHook else { return false }
            state.total += 1
            state.perHook[call.hookID, default: 0] += 1
            return true
        }
        guard taken else {
            Task { await call.failed("too many calls to this hook were under way; one was dropped") }
            return
        }
        Task {
            await deliver(call)
            inFlight.withLock { state in
                state.total -= 1
                state.perHook[call.hookID, default: 1] -= 1
                if state.perHook[call.hookID] == 0 { state.perHook[call.hookID] = nil }
            }
        }
    }

    private func deliver(_ call: OutgoingHookCall) async {
        let signature = HMAC<SHA256>.authenticationCode(for: call.body, using: SymmetricKey(data: Data(call.secret.utf8)))
        var request = HTTPClientRequest(url: call.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "parley-hook")
        request.headers.add(name: "X-Parley-Event", value: "message")
        request.headers.add(name: "X-Parley-Delivery", value: UUID().uuidString.lowercased())
        request.headers.add(name: "X-Parley-Signature-256", value: "sha256=" + signature.map { String(format: "%02x", $0) }.joined())
        var reason = "no attempt"
        for attempt in 1...3 {
            if attempt > 1 { try? await Task.sleep(for: .seconds(attempt == 2 ? 1 : 3)) }
            request.body = .bytes(ByteBuffer(bytes: call.body))
            do {
                let response = try await client.execute(request, timeout: Self.timeout)
                let body = try await response.body.collect(upTo: 64 * 1024)
                let status = Int(response.status.code)
                if (200..<300).contains(status) {
                    let answer = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                    await call.answered(answer?["text"] as? String)
                    return
                }
                reason = "it answered HTTP \(status)"
                if status < 500 && status != 429 { break }
            } catch {
                reason = "it could not be reached (\(Self.describe(error)))"
            }
        }
        await call.failed(reason)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return "no answer within 5 s" }
            return String(describing: error)
        }
        return String(describing: error).prefix(120).description
    }

    /// Whether a hook may call `url`: loopback only when the operator allows it; hosts
    /// by name (`chat.example`), a domain's (`*.example.com`), or any public one (`*`).
    /// An address in a private or link-local range is allowed only by naming it.
    public static func allows(_ url: URL, hosts: [String], loopback: Bool) -> Bool {
        guard let host = url.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else {
            return false
        }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "::1" || host == "0.0.0.0" {
            return loopback
        }
        let octets = host.split(separator: ".").compactMap { Int($0) }
        let privateAddress =
            (octets.count == 4
                && (octets[0] == 10 || (octets[0] == 172 && (16...31).contains(octets[1])) || (octets[0] == 192 && octets[1] == 168)
                    || (octets[0] == 169 && octets[1] == 254) || octets[0] == 0))
            || host.hasPrefix("fc") || host.hasPrefix("fd") || host.hasPrefix("fe80:")
        for entry in hosts.map({ $0.lowercased() }) {
            if entry == host { return true }
            if privateAddress { continue }
            if entry == "*" || (entry.hasPrefix("*.") && host.hasSuffix(entry.dropFirst(1))) { return true }
        }
        return false
    }
}
