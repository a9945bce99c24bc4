import Hummingbird
import NIOCore
import ParleyCore
import ParleyEngine

/// `POST /v1/hooks/TOKEN`: an incoming webhook. The body (at most `maxHookBytes`) is
/// Slack's, Alertmanager's or GitHub's JSON, or plain text; the answer is `200 ok`, as
/// Slack answers, or a refusal with its code and status.
extension ParleyServer {
    func addHookRoutes(to router: Router<ParleyRequestContext>) {
        router.post("/v1/hooks/:token") { [self] request, context in
            await answer { try await hookPost(request, context: context) }
        }
    }

    private func hookPost(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        let body = try await Self.body(of: request, limit: configuration.maxHookBytes, what: "a hook's body")
        let field = { (name: String) in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        let headers = HookHeaders(
            contentType: request.headers[.contentType], githubEvent: field("X-GitHub-Event"), signature: field("X-Hub-Signature-256"),
            deliveryKey: field("X-GitHub-Delivery") ?? field("Idempotency-Key"))
        let message = try await engine.postFromHook(token: token, body: body, headers: headers, address: clientAddress(request, context))
        // The message's `ts` (its number), which a later post's `thread_ts` names: in
        // `X-Parley-Ts` always, and in Slack's JSON answer to a client that asks for JSON.
        let ts = String(message.seq)
        guard request.headers[.accept]?.contains("application/json") == true else {
            return Response(
                status: .ok, headers: [.contentType: "text/plain", Self.tsHeader: ts], body: .init(byteBuffer: ByteBuffer(string: "ok")))
        }
        let thread = message.thread.map { ",\"thread_ts\":\"\($0)\"" } ?? ""
        return Response(
            status: .ok, headers: [.contentType: "application/json", Self.tsHeader: ts],
            body: .init(byteBuffer: ByteBuffer(string: "{\"ok\":true,\"ts\":\"\(ts)\"\(thread)}")))
    }

    static var tsHeader: HTTPFields.Element.Name { HTTPFields.Element.Name("X-Parley-Ts")! }
}
