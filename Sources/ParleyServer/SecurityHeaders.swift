import Hummingbird
import NIOCore
import ParleyCore
import ParleyProtocol

/// Every HTTP answer, a refusal as much as a file, tells a browser to take its type as
/// given and to run nothing in it: what a page could do with an answer it embeds is
/// nothing.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    static var noSniff: HTTPFields.Element.Name { HTTPFields.Element.Name("X-Content-Type-Options")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            // No route: said in JSON, as every other refusal is, with where to look.
            let refusal = ParleyError(
                .unknownPath,
                "nothing answers \(request.method) \(request.uri.path.prefix(200)): see docs/protocol.md (POST /v1/api/OP, /v1/ws, /v1/media, /v1/hooks/TOKEN)"
            )
            response = Response(
                status: .notFound, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: MediaHTTP.errorBody(refusal))))
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        if response.headers[Self.noSniff] == nil { response.headers[Self.noSniff] = "nosniff" }
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = "default-src 'none'; sandbox" }
        return response
    }
}
