import Foundation
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct PhoneServerTests {
    @Test func phoneSignInWorksThroughTheServer() async throws {
        let codes = CapturedCodes()
        let server = try await TestServer.start(engine: { $0.codeSender = codes })
        let client = RemoteChatService(url: server.url, folder: nil, connectTimeout: .seconds(120))
        let request = try await client.requestCode(phone: "+15557654321")
        #expect(request.phone == "+15557654321")
        await expectError(.rateLimited) { try await client.requestCode(phone: "+15557654321") }
        await expectError(.invalidPhone) { try await client.requestCode(phone: "555-7654") }
        await expectError(.invalidCode) { try await client.signIn(phone: "+15557654321", code: "abc") }
        let signedIn = try await client.signIn(phone: "+15557654321", code: try #require(codes.last(for: "+15557654321")))
        #expect(signedIn.needsProfile)
        await expectError(.profileRequired) { try await client.chats() }
        _ = try await client.updateProfile(displayName: "Remote Phone")
        #expect(try await client.chats().isEmpty)
        await client.close()
        await server.stop()
    }
}
