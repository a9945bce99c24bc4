import Foundation
import ParleyClient
import ParleyCore
import ParleyTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10))) struct ClientCloseTests {
    /// A client closed while a reconnect is under way hangs that connection up when it
    /// comes through, and stops. It used to take the connection as if still open: the
    /// closed client resumed its session there, and once that connection went, its
    /// cancelled reconnect loop retried without pause, a core's worth of CPU for as
    /// long as the process lived.
    @Test func aClientClosedWhileItReconnectsHangsUpTheConnectionThatComesThrough() async throws {
        let server = try await TestServer.start()
        let proxy = try HoldingProxy(to: server.port)
        let service = RemoteChatService(url: "ws://127.0.0.1:\(proxy.port)", folder: nil, connectTimeout: .seconds(120))
        _ = try await service.register(
            Registration(email: "alice@example.com", password: "password-alice", displayName: "Alice", handle: "alice"))
        // The next connection's answer from the server is held; the first one is cut,
        // so the signed-in client reconnects through the proxy.
        proxy.holdNext()
        proxy.cutFirst()
        #expect(await onOwnThread { proxy.waitForHeldAnswer() })
        await service.close()
        proxy.release()
        let afterUpgrade = await onOwnThread { proxy.clientBytesAfterUpgrade() }
        // A WebSocket close frame (0x88) or nothing at all; a text frame (0x81) would be
        // the resume request of a client that took the connection.
        #expect(afterUpgrade.first != 0x81, "the closed client sent \(afterUpgrade.prefix(2).map { String($0, radix: 16) })")
        proxy.stop()
        await server.stop()
    }
}

/// A TCP proxy in front of a server, on a free port, for a client's connections one
/// after another. It can cut the first connection, and hold what the server answers on
/// the next one until `release()`; it records what the client sends on that one.
private final class HoldingProxy: Sendable {
    private struct State {
        var hold = false
        var heldConnection: Int?
        var heldAnswer = false
        var released = false
        var clientBytes: [UInt8] = []
        var clientDone = false
        var descriptors: [Int32] = []
    }

    let port: Int
    private let listener: Int32
    private let target: Int
    private let state = Mutex(State())
    private let changed = NSCondition()

    init(to target: Int) throws {
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The next connection (after the current one) has its server's answer held.
    func holdNext() { update { $0.hold = true } }

    /// Closes the first connection's two sockets.
    func cutFirst() {
        let first = state.withLock { Array($0.descriptors.prefix(2)) }
        for fd in first { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Blocks until the server has answered on the held connection (false after 120 s,
    /// a guard against a hang).
    func waitForHeldAnswer() -> Bool { wait { $0.heldAnswer } }

    func release() { update { $0.released = true } }

    /// What the client sent on the held connection after its upgrade request, once it
    /// has closed it (or after 120 s, a guard against a hang).
    func clientBytesAfterUpgrade() -> [UInt8] {
        _ = wait { $0.clientDone }
        let bytes = state.withLock { $0.clientBytes }
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        return Array(bytes[end.upperBound...])
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in state.withLock({ $0.descriptors }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func update(_ change: (inout State) -> Void) {
        changed.lock()
        state.withLock { change(&$0) }
        changed.broadcast()
        changed.unlock()
    }

    private func wait(_ condition: (State) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(120)
        changed.lock()
        defer { changed.unlock() }
        while !state.withLock({ condition($0) }) {
            guard changed.wait(until: deadline) else { return state.withLock { condition($0) } }
        }
        return true
    }

    private func acceptLoop() {
        var number = 0
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? connectToLocalhost(port: target) else {
                close(client)
                continue
            }
            number += 1
            let id = number
            let held: Bool = state.withLock { state in
                state.descriptors += [client, server]
                guard state.hold, state.heldConnection == nil else { return false }
                state.heldConnection = id
                return true
            }
            Thread.detachNewThread { [self] in pump(from: client, to: server, recording: held) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, holding: held) }
        }
    }

    /// Copies bytes until either side closes, then closes both.
    private func pump(from source: Int32, to sink: Int32, recording: Bool = false, holding: Bool = false) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count <= 0 { break }
            if recording { update { $0.clientBytes += buffer[..<count] } }
            if holding {
                update { $0.heldAnswer = true }
                guard wait({ $0.released }) else { break }
            }
            guard buffer.withUnsafeBytes({ send(sink, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }) == count else { break }
        }
        shutdown(sink, Int32(SHUT_RDWR))
        shutdown(source, Int32(SHUT_RDWR))
        if recording { update { $0.clientDone = true } }
    }
}
