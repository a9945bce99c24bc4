import Foundation
import Hummingbird
import NIOCore
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleyProtocol
import Prometheus

/// `POST /v1/api/OP`: what a script does most, over plain HTTP with a session or bot
/// token as `Authorization: Bearer`. The body is the op's `args` object, as on the
/// WebSocket; the answer is the same reply frame, with the HTTP status of its error code.
extension ParleyServer {
    /// The ops the HTTP API takes: reading and writing messages, not signing in or
    /// managing anything.
    static let apiOps: Set<Op> = [
        .me, .user, .chats, .chat, .directChat, .groups, .group, .members, .history, .search, .mentions, .send, .markRead,
        .editMessage, .deleteMessage, .react, .unreact, .threads, .openThread,
    ]

    func addAPIRoutes(to router: Router<ParleyRequestContext>) {
        router.post("/v1/api/:op") { [self] request, context in
            await answer { try await apiCall(request, context: context) }
        }
    }

    private func apiCall(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let name = context.parameters.get("op") ?? ""
        guard let op = Op(rawValue: name), Self.apiOps.contains(op) else {
            throw ParleyError(
                .unknownOp,
                "the HTTP API has no op '\(name.prefix(40))'; it takes \(Self.apiOps.map(\.rawValue).sorted().joined(separator: ", "))")
        }
        let user = try await tokenUser(request, context: context)
        var body = try await Self.body(of: request, limit: configuration.maxFrameSize, what: "a request body")
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { body = Array("{}".utf8) }
        let session = engine.acting(as: user, client: "http api")
        body = try await Self.namesResolved(in: body, op: op, as: session)
        let frame = Data("{\"id\":1,\"op\":\"\(op.rawValue)\",\"args\":".utf8) + body + Data("}".utf8)
        let dispatcher = Dispatcher(session: session, epoch: engine.eventEpoch, logger: logger)
        let (reply, error, _) = await dispatcher.perform(op, id: 1, frame: frame)
        if op == .send && error == nil { metrics.sent.increment() }
        return Response(
            status: HTTPResponse.Status(code: error.map { MediaHTTP.status(for: $0) } ?? 200), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: reply)))
    }

    /// The user of a request's bearer token (session or bot) from its address, past the
    /// gate, and within the account's rate over all its sockets and requests: over it,
    /// refused at once (a refused request takes no token, so a client that backs off gets
    /// through). The HTTP API and media ask here.
    func tokenUser(_ request: Request, context: ParleyRequestContext) async throws -> User {
        try paced(try await engine.user(token: try Self.bearer(request), address: clientAddress(request, context)))
    }

    /// `user`, if the account is within its rate; `rate_limited` if not.
    func paced(_ user: User) throws -> User {
        guard accountPace.take(for: user.id, at: .now) else {
            throw ParleyError(.rateLimited, "too many requests from this account; slow down")
        }
        return user
    }

    /// A request's body, read up to `limit` bytes (one announced longer is refused before
    /// a byte is read): the HTTP API's and the hooks'.
    static func body(of request: Request, limit: Int, what: String) async throws -> [UInt8] {
        let tooLarge = ParleyError(.bodyTooLarge, "\(what) is at most \(limit / 1024) KiB")
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > limit { throw tooLarge }
        var body: [UInt8] = []
        for try await buffer in request.body {
            guard buffer.readableBytes <= limit - body.count else { throw tooLarge }
            body += buffer.readableBytesView
        }
        return body
    }
}
