import Foundation
import ParleyProtocol
import ParleyTesting
import Testing

@testable import ParleyServer

/// The HTTP API is described once: the server serves its OpenAPI document, docs carry the
/// same bytes, and its `/v1/api/` paths are the ops the API takes, no more, no fewer.
/// (`scripts/schemathesis.sh` checks a live server's answers against it.)
@Suite struct OpenAPITests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    @Test func theServerServesTheDocumentTheDocsCarry() async throws {
        let server = try await TestServer.start()
        let served = try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/openapi.yaml")
        await server.stop()
        #expect(served.status == 200 && served.headers["content-type"] == "application/yaml")
        let docs = try String(contentsOf: Self.docs, encoding: .utf8)
        #expect(served.text == docs, "the server serves another document than docs/openapi.yaml: run scripts/openapi.py")
    }

    @Test func itsAPIPathsAreTheOpsTheAPITakes() throws {
        let paths = ParleyServer.openAPIDocument.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  /v1/api/"), line.hasSuffix(":") else { return nil }
            return String(line.dropFirst("  /v1/api/".count).dropLast())
        }
        #expect(paths.count == Set(paths).count, "each op once")
        #expect(Set(paths) == Set(ParleyServer.apiOps.map(\.rawValue)))
        // Each names itself as its operation.
        for op in paths { #expect(ParleyServer.openAPIDocument.contains("operationId: \(op)\n"), "\(op)") }
    }
}
