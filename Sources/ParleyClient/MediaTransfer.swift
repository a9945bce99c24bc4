import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyCore
import ParleyProtocol

/// Media uploads and downloads over plain HTTP/1.1 to a Parley server, streamed in
/// both directions: a 200 MiB video never sits in memory, and a download is written to
/// a temporary file that only takes the destination's name once complete.
struct MediaTransfer: Sendable {
    let host: String
    let port: Int

    /// `ws://host:port/v1/ws` → host and port.
    init(socketURL: String) throws {
        guard let components = URLComponents(string: socketURL), let host = components.host else {
            throw ParleyError(.invalidArgument, "cannot read the server address \(socketURL)")
        }
        guard components.scheme != "wss" else {
            throw ParleyError(.unavailable, "media over wss:// is not supported yet; use a ws:// server address")
        }
        self.host = host
        self.port = components.port ?? 80
    }

    private typealias Channel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// Sends the file as the body of a PUT and returns the server's `MediaInfo`.
    func upload(_ file: LocalFile, path: String, token: String, progress: TransferProgress?) async throws -> MediaInfo {
        let reader = try LocalFile.Reader(file.url)
        let channel = try await connect()
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .PUT, uri: path)
            head.headers = headers(token: token)
            head.headers.add(name: "Content-Length", value: String(file.size))
            head.headers.add(name: "Content-Type", value: "application/octet-stream")
            var sent: Int64 = 0
            do {
                try await outbound.write(.head(head))
                while true {
                    var buffer = channel.channel.allocator.buffer(capacity: 256 << 10)
                    let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 256 << 10) { try reader.read(into: $0) }
                    if count == 0 { break }
                    try await outbound.write(.body(.byteBuffer(buffer)))
                    sent += Int64(count)
                    progress?(sent, file.size)
                }
                try await outbound.write(.end(nil))
            } catch let error as ParleyError {
                throw error
            } catch {
                // The server may have refused the upload part way (too large, wrong
                // type) and closed: its answer, if it came, says why.
            }
            let (status, body) = try await Self.response(inbound)
            guard status == 201 else { throw MediaHTTP.error(status: status, body: body) }
            do { return try Wire.decoder().decode(MediaInfo.self, from: body) } catch {
                throw ParleyError(.internalError, "unreadable upload reply: \(error)")
            }
        }
    }

    /// Streams `path` into a temporary file next to `destination`, then puts it there.
    func download(path: String, token: String, to destination: URL, replace: Bool, progress: TransferProgress?) async throws {
        let channel = try await connect()
        try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
            head.headers = headers(token: token)
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var file: AtomicFile?
            var status = 0
            var expected: Int64 = 0
            var errorBody = Data()
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = Int(response.status.code)
                    expected = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0
                    if status == 200 { file = try AtomicFile(temporaryIn: destination.deletingLastPathComponent()) }
                case .body(let buffer):
                    if let file {
                        try buffer.withUnsafeReadableBytes { try file.write($0) }
                        progress?(file.size, expected)
                    } else {
                        errorBody.append(contentsOf: buffer.readableBytesView)
                    }
                case .end:
                    break
                }
            }
            guard status == 200, let file else { throw MediaHTTP.error(status: status, body: errorBody) }
            guard file.size == expected else {
                throw ParleyError(.unavailable, "the download stopped after \(file.size) of \(expected) bytes")
            }
            guard try file.commit(to: destination, replace: replace) else {
                throw ParleyError(.fileExists, "\(destination.path) already exists (--force replaces it)")
            }
        }
    }

    private func headers(token: String) -> HTTPHeaders {
        ["Host": "\(host):\(port)", "Authorization": "Bearer \(token)", "Connection": "close", "User-Agent": "parley"]
    }

    private func connect() async throws -> Channel {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Channel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw ParleyError(.unavailable, "cannot reach \(host):\(port) for media: \(error)")
        }
    }

    /// The status and body of the reply.
    private static func response(_ inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>) async throws -> (Int, Data) {
        var status = 0
        var body = Data()
        do {
            for try await part in inbound {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(let buffer): body.append(contentsOf: buffer.readableBytesView)
                case .end: return (status, body)
                }
            }
        } catch {
            if status == 0 { throw ParleyError(.unavailable, "the server closed the connection during the upload") }
        }
        guard status != 0 else { throw ParleyError(.unavailable, "the server closed the connection during the upload") }
        return (status, body)
    }
}
