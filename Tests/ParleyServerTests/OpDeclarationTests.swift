import Foundation
import ParleyProtocol
import Testing

/// Every op is declared once (`OpDeclarations`), and the server and the docs follow it.
@Suite(.timeLimit(.minutes(10))) struct OpDeclarationTests {
    @Test func everyOpIsDeclaredUnderItsOwnName() {
        for op in Op.allCases {
            #expect(op.declaration.op == op, "\(op.rawValue)")
        }
    }

    @Test func everyOpHasARecordedExchangeInTheProtocolDocs() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: repository.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        for op in Op.allCases {
            #expect(docs.contains("### `\(op.rawValue)` — "), "docs/protocol.md has no recorded exchange of \(op.rawValue)")
        }
    }

    /// A server answers every declared op through its declaration: not `unknown_op`, but
    /// what that op says to a socket that has not signed in and sent no arguments.
    @Test func aServerDispatchesEveryDeclaredOp() async throws {
        let server = try await TestServer.start()
        let socket = try await TestSocket(port: server.port)
        for (index, op) in Op.allCases.enumerated() {
            let reply = try #require(try await socket.request(#"{"id":\#(index + 1),"op":"\#(op.rawValue)","args":{}}"#))
            #expect(reply["id"] as? Int == index + 1, "\(op.rawValue)")
            let code = (reply["error"] as? [String: Any])?["code"] as? String
            if op == .ping {
                #expect(reply["ok"] as? Bool == true)
            } else {
                #expect(code == "invalid_argument" || code == "not_signed_in", "\(op.rawValue): \(reply)")
            }
        }
        #expect(try server.storedMessages() == 0)
        await socket.close()
        await server.stop()
    }
}
