import AsyncHTTPClient
import Crypto
public import Foundation
import NIOCore
import NIOHTTP1
public import ParleyEngine
import Synchronization

/// Makes outgoing hooks' HTTP calls: at most 32 under way on this server, 4 per hook
/// (past them a call is dropped and the drop shown to the group's admins), each attempt
/// bounded whole (connect, headers and body) by 5 s, up to 3 attempts (1 s, then 3 s
/// apart). A call goes only where `OutboundRules` allow, to the address they checked.
/// Redirects are not followed, so an allowed host cannot send a call on to one that is
/// not. A failure reads the same whether nothing listens or something answered badly,
/// so the list of hooks is no port scanner.
public final class OutgoingHookSender: OutgoingHookCaller, Sendable {
    private let rules: Mutex<OutboundRules>
    private let inFlight = Mutex((total: 0, perHook: [Int64: Int]()))
    static let maxInFlight = 32
    static let maxPerHook = 4
    static let deadline: Duration = .seconds(5)
    static let maxAnswerBytes = 64 * 1024

    public init(rules: OutboundRules) {
        self.rules = Mutex(rules)
    }

    /// The rules the next calls go by (a reload of the server's settings).
    public func setRules(_ rules: OutboundRules) {
        self.rules.withLock { $0 = rules }
    }

    /// Why `url` may not be called under the rules now, from its text alone.
    public func refusal(of url: URL) -> String? {
        let rules = rules.withLock { $0 }
        guard !rules.hosts.isEmpty || rules.loopback else { return "the server's operator allows no outgoing hooks" }
        return rules.refusal(of: url)
    }

    public func call(_ call: OutgoingHookCall) {
        let refusal = inFlight.withLock { state -> String? in
            guard state.total < Self.maxInFlight else {
                return "this server had \(Self.maxInFlight) hook calls under way, its limit for all groups; this one was dropped"
            }
            guard state.perHook[call.hookID, default: 0] < Self.maxPerHook else {
                return "this hook had \(Self.maxPerHook) calls under way; this one was dropped"
            }
            state.total += 1
            state.perHook[call.hookID, default: 0] += 1
            return nil
        }
        if let refusal {
            Task { await call.failed(refusal) }
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
        let address: String
        do {
            address = try await rules.withLock { $0 }.resolve(call.url)
        } catch {
            await call.failed("it was not called: \((error as? OutboundRefusal)?.reason ?? "its host could not be resolved")")
            return
        }
        // The connection goes to the address checked, never to a second lookup's; TLS
        // still asks for and checks the name.
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        if let host = call.url.host {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            // Assigned one by one: the spellings are often the same key.
            for spelling in [host, bare, bare.lowercased()] { configuration.dnsOverride[spelling] = address }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { Task { try? await client.shutdown() } }
        let signature = HMAC<SHA256>.authenticationCode(for: call.body, using: SymmetricKey(data: Data(call.secret.utf8)))
        var request = HTTPClientRequest(url: call.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "parley-hook")
        request.headers.add(name: "X-Parley-Event", value: "message")
        request.headers.add(name: "X-Parley-Delivery", value: UUID().uuidString.lowercased())
        request.headers.add(name: "X-Parley-Signature-256", value: "sha256=" + signature.map { String(format: "%02x", $0) }.joined())
        for attempt in 1...3 {
            if attempt > 1 { try? await Task.sleep(for: .seconds(attempt == 2 ? 1 : 3)) }
            request.body = .bytes(ByteBuffer(bytes: call.body))
            switch await Self.attempt(request, on: client) {
            case .answered(let body):
                let answer = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
                await call.answered(answer?["text"] as? String)
                return
            case .refused: break
            case .failed: continue
            }
            break
        }
        await call.failed("the endpoint did not take the call (no 2xx answer within \(Self.deadline.components.seconds) s)")
    }

    enum Attempt {
        case answered(Data)
        /// A 4xx other than 429: trying again would not help.
        case refused
        /// Unreachable, too slow, 5xx or 429: worth another try.
        case failed
    }

    /// One attempt, all of it (connect, headers, body) within `deadline`: an endpoint
    /// that drips its answer a byte at a time is cut off there.
    static func attempt(_ request: HTTPClientRequest, on client: HTTPClient) async -> Attempt {
        await withTaskGroup(of: Attempt?.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(request, timeout: .seconds(Int64(deadline.components.seconds)))
                    let body = try await response.body.collect(upTo: maxAnswerBytes)
                    let status = Int(response.status.code)
                    if (200..<300).contains(status) { return .answered(Data(body.readableBytesView)) }
                    return status < 500 && status != 429 ? .refused : .failed
                } catch {
                    return .failed
                }
            }
            group.addTask {
                guard (try? await Task.sleep(for: deadline)) != nil else { return nil }
                return .failed
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed
        }
    }
}
