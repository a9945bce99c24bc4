import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import ParleyCore
import ParleyEngine
import ParleyProtocol
import Prometheus

/// `PUT /v1/media` and `GET /v1/media/ID` (see `MediaHTTP`). The body of an upload is
/// streamed into the engine's `MediaUpload`, never held whole in memory.
extension ParleyServer {
    func addMediaRoutes(to router: Router<ParleyRequestContext>) {
        router.put(RouterPath(MediaHTTP.uploadPath)) { [self] request, context in
            await answer { try await upload(request, context: context) }
        }
        router.get("/v1/media/:id") { [self] request, context in
            await answer { try await download(request, context: context) }
        }
        // HEAD: the same answer's status and headers (its size, type, tag), no body.
        router.head("/v1/media/:id") { [self] request, context in
            var response = await answer { try await download(request, context: context) }
            response.body = ResponseBody(contentLength: response.headers[.contentLength].flatMap { Int($0) }) { _ in }
            return response
        }
    }

    private func upload(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let user = try await tokenUser(request, context: context)
        let query = request.uri.queryParameters
        var kind: MediaKind?
        if let word = query.get("kind") {
            guard let parsed = MediaKind(rawValue: word) else { throw ParleyError(.invalidArgument, "kind is image, video or file") }
            kind = parsed
        }
        var recipient: Recipient?
        if let chat = query.get("chat") {
            guard let id = Int64(chat) else { throw ParleyError(.invalidArgument, "chat is a number") }
            recipient = .chat(ChatID(id))
        } else if let peer = query.get("user") {
            guard let id = Int64(peer) else { throw ParleyError(.invalidArgument, "user is a number") }
            recipient = .user(UserID(id))
        }
        let size = request.headers[.contentLength].flatMap { Int64($0) }
        let upload = try await engine.beginUpload(by: user, expecting: kind, for: recipient, size: size)
        for try await buffer in request.body {
            try buffer.withUnsafeReadableBytes { try upload.append($0) }
        }
        let media = try await upload.finish()
        metrics.uploads.increment()
        return Response(
            status: .created, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try Wire.encoder().encode(media))))
    }

    private func download(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let query = request.uri.queryParameters
        // A signed link (for IRC users' browsers) instead of a session token.
        let user =
            request.headers[.authorization] == nil && query.get("s") != nil
            ? try paced(
                await engine.user(
                    mediaLink: id, user: query.get("u"), expires: query.get("e"), signature: query.get("s"),
                    address: clientAddress(request, context)))
            : try await tokenUser(request, context: context)
        let (media, file) = try await engine.openMedia(id, for: user)
        var headers: HTTPFields = [
            .contentType: media.type == "text/plain" ? "text/plain; charset=utf-8" : media.type, .acceptRanges: "bytes",
            .eTag: "\"\(media.id)\"", .cacheControl: "private, max-age=31536000, immutable",
        ]
        // A file is saved, never shown: an HTML or SVG file sent as text stays text.
        if media.kind == .file { headers[.contentDisposition] = "attachment; filename=\"\(media.id.prefix(12)).\(media.fileExtension)\"" }
        let fileIO = FileIO()
        switch request.headers[.range].flatMap({ MediaHTTP.byteRange($0, size: media.size) }) {
        case .satisfiable(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(media.size)"
            headers[.contentLength] = String(range.count)
            let body = try await fileIO.loadFile(
                path: file.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(media.size)"])
        case nil:
            headers[.contentLength] = String(media.size)
            metrics.downloads.increment()
            return Response(status: .ok, headers: headers, body: try await fileIO.loadFile(path: file.path, context: context))
        }
    }

    /// The token of `Authorization: Bearer TOKEN`.
    static func bearer(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ParleyError(.notSignedIn, "send the session token as Authorization: Bearer TOKEN")
        }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// Turns a refusal into its status and JSON body.
    func answer(_ body: () async throws -> Response) async -> Response {
        let refusal: ParleyError
        do {
            return try await body()
        } catch let error as ParleyError {
            refusal = error.code == .internalError ? Dispatcher.internalError(logged: error.message, logger: logger) : error
        } catch let error as HTTPParserError {
            // The body broke off or was malformed (a bad chunk): the client's fault.
            refusal = ParleyError(.invalidArgument, "the request body is malformed: \(error)")
        } catch {
            refusal = Dispatcher.internalError(logged: "media request failed: \(error)", logger: logger)
        }
        return Self.refusal(refusal)
    }

    private static func refusal(_ error: ParleyError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if error.code == .rateLimited { headers[.retryAfter] = "1" }
        return Response(
            status: HTTPResponse.Status(code: MediaHTTP.status(for: error.code)), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: MediaHTTP.errorBody(error))))
    }
}
