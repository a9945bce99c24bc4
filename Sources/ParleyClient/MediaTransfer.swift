import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyProtocol

/// Media uploads and downloads to a Parley server over HTTP/1.1, or HTTPS beside a
/// `wss://` socket, through AsyncHTTPClient. Both directions stream: a 200 MiB video
/// never sits in memory, and a download is written to a temporary file that only takes
/// the destination's name once complete. Connecting, and any wait for the server to
/// read or answer, time out; what the server says besides a file is read up to a bound.
struct MediaTransfer: Sendable {
    /// `http://host:port` or `https://host:port`.
    let origin: String
    let trust: ServerTrust

    /// Time to connect (TLS included), and the longest the server may stay silent or
    /// leave the upload unread.
    static let connectTimeout: TimeAmount = .seconds(10)
    static let idleTimeout: TimeAmount = .seconds(60)
    /// A transfer that keeps moving may take this long in all.
    static let wholeTransfer: TimeAmount = .hours(6)
    /// The most read of a reply that is not a file (a `MediaInfo`, an error).
    static let maxReplyBytes = 1 << 20

    /// `ws://host:port/v1/ws` → `http://host:port`, `wss://…` → `https://…`.
    init(socketURL: String, trust: ServerTrust) throws {
        guard let components = URLComponents(string: socketURL), let host = components.host,
            let scheme = components.scheme, scheme == "ws" || scheme == "wss"
        else {
            throw ParleyError(.invalidArgument, "cannot read the server address \(socketURL)")
        }
        let secure = scheme == "wss"
        let port = components.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        origin = "\(secure ? "https" : "http")://\(bracketed)\(port)"
        self.trust = trust
    }

    /// Sends the file as the body of a PUT and returns the server's `MediaInfo`.
    func upload(_ file: LocalFile, path: String, token: String, progress: TransferProgress?) async throws -> MediaInfo {
        var request = HTTPClientRequest(url: origin + path)
        request.method = .PUT
        request.headers = headers(token: token)
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.body = .stream(FileChunks(file: file, progress: progress), length: .known(file.size))
        return try await exchange(request) { response in
            let body = try await Self.reply(response)
            guard response.status.code == 201 else { throw MediaHTTP.error(status: Int(response.status.code), body: body) }
            do { return try Wire.decoder().decode(MediaInfo.self, from: body) } catch {
                throw ParleyError(.internalError, "unreadable upload reply: \(error)")
            }
        }
    }

    /// Streams `path` into a temporary file next to `destination`, then puts it there.
    func download(path: String, token: String, to destination: URL, replace: Bool, progress: TransferProgress?) async throws {
        var request = HTTPClientRequest(url: origin + path)
        request.headers = headers(token: token)
        try await exchange(request) { response in
            let status = Int(response.status.code)
            guard status == 200 else { throw MediaHTTP.error(status: status, body: try await Self.reply(response)) }
            guard let expected = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }), expected >= 0 else {
                throw ParleyError(.unavailable, "the server sent the file without its length")
            }
            let file = try AtomicFile(temporaryIn: destination.deletingLastPathComponent())
            for try await buffer in response.body {
                guard file.size + Int64(buffer.readableBytes) <= expected else {
                    throw ParleyError(.unavailable, "the server sent more than the \(expected) bytes it announced")
                }
                try buffer.withUnsafeReadableBytes { try file.write($0) }
                progress?(file.size, expected)
            }
            guard file.size == expected else {
                throw ParleyError(.unavailable, "the download stopped after \(file.size) of \(expected) bytes")
            }
            guard try file.commit(to: destination, replace: replace) else {
                throw ParleyError(.fileExists, "\(destination.path) already exists (--force replaces it)")
            }
        }
    }

    private func headers(token: String) -> HTTPHeaders {
        ["Authorization": "Bearer \(token)", "User-Agent": "parley"]
    }

    /// Runs `request` on a client of its own and hands the response to `handle`; the
    /// client is shut down either way.
    private func exchange<T: Sendable>(_ request: HTTPClientRequest, _ handle: (HTTPClientResponse) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: origin.hasPrefix("https:") ? try trust.configuration() : nil,
            timeout: .init(connect: Self.connectTimeout, read: Self.idleTimeout))
        configuration.timeout.write = Self.idleTimeout
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<T, any Error>
        do {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: Self.wholeTransfer)
            } catch let error as ParleyError {
                throw error
            } catch {
                throw ParleyError(.unavailable, "cannot reach \(origin) for media: \(ServerTrust.reason(error))")
            }
            result = .success(try await handle(response))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }

    /// A reply that is not a file, read up to `maxReplyBytes`.
    private static func reply(_ response: HTTPClientResponse) async throws -> Data {
        do {
            return Data(try await response.body.collect(upTo: maxReplyBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw ParleyError(.unavailable, "the server's reply was larger than \(maxReplyBytes) bytes")
        }
    }
}

/// A file's bytes in 256 KiB chunks, read as the upload asks for them.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: LocalFile
    let progress: TransferProgress?

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: LocalFile.Reader?
        let failure: ParleyError?
        let total: Int64
        let progress: TransferProgress?
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            if let failure { throw failure }
            guard let reader else { return nil }
            var buffer = ByteBuffer()
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 256 << 10) { try reader.read(into: $0) }
            guard count > 0 else { return nil }
            sent += Int64(count)
            progress?(sent, total)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        do {
            return AsyncIterator(reader: try LocalFile.Reader(file.url), failure: nil, total: file.size, progress: progress)
        } catch {
            return AsyncIterator(reader: nil, failure: ParleyError(error), total: file.size, progress: progress)
        }
    }
}
