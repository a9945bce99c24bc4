import Foundation
import Testing

/// A plain IRC client over TCP for tests: sends lines, and waits for the line it
/// expects (a guard of 120 s against a hang), keeping every line it read.
public final class IRCTestClient: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Every line read so far, in order.
    public private(set) var lines: [String] = []
    private var consumed = 0

    /// `source`: another loopback address to connect from (`127.0.0.2`);
    /// `receiveBuffer`: a small one makes a client that stops reading fill up soon.
    public init(port: Int, from source: String? = nil, receiveBuffer: Int32? = nil) throws {
        fd = try connectToLocalhost(port: port, receiveBuffer: receiveBuffer, from: source)
    }

    deinit { close(fd) }

    public func send(_ line: String) throws {
        let bytes = Array((line + "\r\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            sent += count
        }
    }

    /// The first line not yet waited past that matches, and every line before it is
    /// passed; nil when the connection closed or 120 s went by without one.
    @discardableResult
    public func wait(timeout: Duration = .seconds(120), for matches: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            while consumed < lines.count {
                let line = lines[consumed]
                consumed += 1
                if matches(line) { return line }
            }
            guard ContinuousClock.now < deadline, readMore(until: deadline) else { return nil }
        }
    }

    /// Waits for a line containing `text`.
    @discardableResult
    public func wait(containing text: String, timeout: Duration = .seconds(120)) -> String? {
        wait(timeout: timeout) { $0.contains(text) }
    }

    /// `wait`, from a task: on a thread of its own, leaving the shared ones to others.
    @discardableResult
    public func wait(timeout: Duration = .seconds(120), for matches: @escaping @Sendable (String) -> Bool) async -> String? {
        await onOwnThread { self.wait(timeout: timeout, for: matches) }
    }

    /// `wait(containing:)`, from a task.
    @discardableResult
    public func wait(containing text: String, timeout: Duration = .seconds(120)) async -> String? {
        await onOwnThread { self.wait(timeout: timeout) { $0.contains(text) } }
    }

    /// Registers as a guest (`--irc-guests`) under `nick`, asking for `capabilities`
    /// first; true once the welcome (001) came.
    public func joinAsGuest(_ nick: String, realname: String, capabilities: [String]) throws -> Bool {
        try send("CAP REQ :" + capabilities.joined(separator: " "))
        try send("NICK \(nick)")
        try send("USER \(nick) 0 * :\(realname)")
        try send("CAP END")
        return wait(containing: " 001 \(nick) ") != nil
    }

    /// Signs in with SASL PLAIN as `handle` and waits for the welcome (001).
    public func signIn(_ handle: String, password: String, capabilities: [String] = []) throws -> Bool {
        try send("CAP LS 302")
        try send("NICK \(handle)")
        try send("USER \(handle) 0 * :\(handle)")
        try send("CAP REQ :" + (["sasl"] + capabilities).joined(separator: " "))
        guard wait(containing: " ACK ") != nil else { return false }
        try send("AUTHENTICATE PLAIN")
        guard wait(for: { $0.hasPrefix("AUTHENTICATE") }) != nil else { return false }
        try send("AUTHENTICATE " + Data("\0\(handle)\0\(password)".utf8).base64EncodedString())
        guard wait(for: { $0.contains(" 903 ") || $0.contains(" 904 ") })?.contains(" 903 ") == true else { return false }
        try send("CAP END")
        return wait(containing: " 001 ") != nil
    }

    /// `joinAsGuest`, from a task.
    public func joinAsGuest(_ nick: String, realname: String, capabilities: [String]) async throws -> Bool {
        try await onOwnThread { try self.joinAsGuest(nick, realname: realname, capabilities: capabilities) }
    }

    /// `signIn`, from a task.
    public func signIn(_ handle: String, password: String, capabilities: [String] = []) async throws -> Bool {
        try await onOwnThread { try self.signIn(handle, password: password, capabilities: capabilities) }
    }

    /// Reads what has arrived into lines; false once the server closed the connection.
    private func readMore(until deadline: ContinuousClock.Instant) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            buffer += chunk[..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                let text = String(decoding: line, as: UTF8.self)
                if text.contains(" FAIL ") || text.contains(" NOTICE ") || text.contains("ERROR") { expectNoLeak(text) }
                lines.append(text)
                buffer.removeSubrange(...newline)
            }
            return true
        }
        return true
    }
}
