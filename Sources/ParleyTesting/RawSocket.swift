import Foundation
import Testing

/// A client that completes the WebSocket handshake and then writes frames byte by byte:
/// one that goes silent without closing (no pong, no close frame, like a phone that
/// lost its network), or one that sends a request in fragments.
/// Used from one thread at a time; the descriptor never changes.
public final class SilentSocket: @unchecked Sendable {
    private let fd: Int32

    /// `receiveBuffer` shrinks the kernel's receive buffer before connecting, so a
    /// client that stops reading fills up after a few KiB instead of megabytes.
    /// `source` connects from another loopback address; `headers` (`Name: value`) go
    /// with the upgrade request.
    public init(port: Int, receiveBuffer: Int32? = nil, from source: String? = nil, headers: [String] = []) throws {
        fd = try connectToLocalhost(port: port, receiveBuffer: receiveBuffer, from: source)
        let extra = headers.map { $0 + "\r\n" }.joined()
        let handshake = """
            GET /v1/ws HTTP/1.1\r
            Host: 127.0.0.1:\(port)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \(extra)\r

            """
        try write(Array(handshake.utf8))
        // Read the 101 response up to its blank line.
        var response: [UInt8] = []
        var byte: UInt8 = 0
        while !response.ends(with: Array("\r\n\r\n".utf8)) {
            guard read(fd, &byte, 1) == 1 else { throw POSIXError(.ECONNRESET) }
            response.append(byte)
        }
        guard String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw POSIXError(.EPROTO) }
    }

    /// Sends one masked text frame, as a client must.
    public func sendText(_ text: String) throws {
        try write(Self.frame(opcode: 0x1, fin: true, payload: Array(text.utf8)))
    }

    /// Sends `text` as one message in `fragments` frames: a text frame without FIN, then
    /// continuation frames, the last with FIN.
    public func sendText(_ text: String, fragments: Int) throws {
        let payload = Array(text.utf8)
        let size = (payload.count + fragments - 1) / fragments
        for (index, start) in stride(from: 0, to: payload.count, by: size).enumerated() {
            let end = min(start + size, payload.count)
            try write(Self.frame(opcode: index == 0 ? 0x1 : 0x0, fin: end == payload.count, payload: Array(payload[start..<end])))
        }
    }

    /// Sends any frame, including ones RFC 6455 forbids a client: `rsv` is the three
    /// reserved bits (0–7), `masked: false` leaves the payload bare.
    public func sendFrame(opcode: UInt8, fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true, payload: [UInt8]) throws {
        try write(Self.frame(opcode: opcode, fin: fin, rsv: rsv, masked: masked, payload: payload))
    }

    private static func frame(opcode: UInt8, fin: Bool, rsv: UInt8 = 0, masked: Bool = true, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 7) << 4 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else {
            frame.append(maskBit | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    private func write(_ bytes: [UInt8]) throws {
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw POSIXError(.EPIPE)
        }
    }

    /// Reads frames until a close frame and returns its status code (nil if the
    /// connection ends without one).
    public func readCloseCode() -> UInt16? {
        while let (opcode, payload) = readFrame() {
            if opcode == 0x8 { return payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005 }
        }
        return nil
    }

    /// Reads frames until a text frame and returns it (nil if the connection ends or
    /// closes first).
    public func readText() -> String? {
        while let (opcode, payload) = readFrame() {
            if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
            if opcode == 0x8 { return nil }
        }
        return nil
    }

    private func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        var head = [UInt8](repeating: 0, count: 2)
        guard readExactly(&head) else { return nil }
        var length = Int(head[1] & 0x7f)
        if length == 126 {
            var extended = [UInt8](repeating: 0, count: 2)
            guard readExactly(&extended) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            var extended = [UInt8](repeating: 0, count: 8)
            guard readExactly(&extended) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        var payload = [UInt8](repeating: 0, count: length)
        guard readExactly(&payload) else { return nil }
        return (head[0] & 0x0f, payload)
    }

    private func readExactly(_ buffer: inout [UInt8]) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if count <= 0 { return false }
            done += count
        }
        return true
    }

    /// Ends what the client sends as a client that exits does: a FIN, no close frame.
    /// Its receiving side stays open, so what the server still writes cannot reset the
    /// connection (a reset closes it on any server): the FIN alone must end it.
    public func hangUp() { shutdown(fd, Int32(SHUT_WR)) }

    deinit { Foundation.close(fd) }
}

extension Array where Element == UInt8 {
    public func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// `GET path` over plain HTTP/1.1; returns the body.
public func httpGet(port: Int, path: String) throws -> String {
    let fd = try connectToLocalhost(port: port)
    defer { close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        response += buffer[..<count]
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { return "" }
    return String(text[split.upperBound...])
}

/// An HTTP/1.1 exchange over a plain socket, for requests a well-behaved client would
/// not make (no token, a body cut short) and for headers such as `Range`.
public struct RawHTTP {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends the request and reads the response to the end of the connection, on a
    /// thread of its own: blocking a thread of the cooperative pool could starve an
    /// in-process server of the threads it needs to answer.
    public static func request(
        port: Int, method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], from source: String? = nil
    ) async throws -> Response {
        try await onOwnThread {
            try blockingRequest(port: port, method: method, path: path, headers: headers, body: body, from: source)
        }
    }

    private static func blockingRequest(
        port: Int, method: String, path: String, headers: [String: String], body: [UInt8], from source: String?
    ) throws -> Response {
        let fd = try connectToLocalhost(port: port, from: source)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !body.isEmpty || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            response += buffer[..<count]
        }
        guard let split = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return Response(status: 0, headers: [:], body: []) }
        let lines = String(decoding: response[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var content = Array(response[split.upperBound...])
        if fields["transfer-encoding"] == "chunked" { content = dechunk(content) }
        if status >= 400 { expectNoLeak(String(decoding: content, as: UTF8.self)) }
        return Response(status: status, headers: fields, body: content)
    }

    /// A PUT that announced more bytes than it sent, held open until `hangUp`: a client
    /// that dies mid-upload.
    public final class PartialUpload {
        private var fd: Int32

        public init(port: Int, path: String, token: String, announced: Int, body: [UInt8]) throws {
            fd = try connectToLocalhost(port: port)
            let head =
                "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\nContent-Length: \(announced)\r\n\r\n"
            let bytes = Array(head.utf8) + body
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        public func hangUp() {
            if fd >= 0 { close(fd) }
            fd = -1
        }

        deinit { hangUp() }
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while let end = bytes[index...].firstRange(of: Array("\r\n".utf8)) {
            let size = Int(String(decoding: bytes[index..<end.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = end.upperBound
            guard start + size <= bytes.count else { break }
            output += bytes[start..<start + size]
            index = start + size + 2
            guard index < bytes.count else { break }
        }
        return output
    }
}

/// Sends `bytes` on a new connection and reads until the server closes it; returns what
/// it answered and whether it closed within `timeout` (a guard against a hang).
public func rawExchange(port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(30)) throws -> (answer: String, closed: Bool) {
    let fd = try connectToLocalhost(port: port)
    defer { close(fd) }
    var sent = 0
    while sent < bytes.count {
        let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
        if count <= 0 { break }  // the server may refuse before reading it all
        sent += count
    }
    return readUntilClosed(fd, timeout: timeout)
}

/// Reads from `fd` until the peer closes it or `timeout` passes.
public func readUntilClosed(_ fd: Int32, timeout: Duration) -> (answer: String, closed: Bool) {
    let deadline = ContinuousClock.now + timeout
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while ContinuousClock.now < deadline {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 200) > 0 else { continue }
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { return (String(decoding: answer, as: UTF8.self), true) }
        answer += buffer[..<count]
    }
    return (String(decoding: answer, as: UTF8.self), false)
}

/// A TCP connection to 127.0.0.1:`port`; the caller closes the descriptor. A read or
/// write that waits 5 minutes fails (a guard against a hang: a server that never
/// answers fails its test instead of holding the run until CI gives up on it).
/// `source`, another loopback address (`127.0.0.2`), makes the connection come from it.
public func connectToLocalhost(port: Int, receiveBuffer: Int32? = nil, from source: String? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if let source {
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
    }
    if var size = receiveBuffer {
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var patience = timeval(tv_sec: 300, tv_usec: 0)
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
        _ = setsockopt(fd, SOL_SOCKET, option, &patience, socklen_t(MemoryLayout<timeval>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw POSIXError(.ECONNREFUSED)
    }
    return fd
}

/// A TCP connection that sends nothing unless told: it holds a place on the server (a
/// crowd of them is what one address can do), and reads what the server says before
/// it closes.
public final class HeldConnection: @unchecked Sendable {
    private let fd: Int32

    public init(port: Int, from source: String? = nil) throws {
        fd = try connectToLocalhost(port: port, from: source)
    }

    deinit { close(fd) }

    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw POSIXError(.EPIPE)
        }
    }

    /// Everything the server writes until it closes the connection (or the 300 s
    /// guard passes).
    public func readToEnd() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
