import Foundation
import ParleyCore
import ParleyEngine
import ParleyProtocol

/// The HTTP API takes a chat or a person by name where the shell does: `"chat": "#ops"`,
/// `"chat": "@bob"` (the direct chat with bob; for a send, bob), `"user": "@bob"`. Names
/// become ids before the op runs, so every op sees what the WebSocket sends.
extension ParleyServer {
    static func namesResolved(in body: [UInt8], op: Op, as session: EngineSession) async throws -> [UInt8] {
        guard var args = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw ParleyError(.invalidArgument, "the body is the op's arguments as a JSON object")
        }
        var changed = false
        if let name = args["user"] as? String {
            args["user"] = try await person(name, session).id.rawValue
            changed = true
        }
        if let name = args["chat"] as? String {
            changed = true
            if name.hasPrefix("#") {
                args["chat"] = try await session.group(handle: name).id.rawValue
            } else if name.hasPrefix("@") {
                let peer = try await person(name, session)
                if op == .send {
                    args["chat"] = nil
                    args["user"] = peer.id.rawValue
                } else if let chat = try await session.directChat(with: peer.id) {
                    args["chat"] = chat.id.rawValue
                } else {
                    throw ParleyError(.unknownChat, "you have no direct chat with @\(peer.handle)")
                }
            } else {
                throw ParleyError(.invalidArgument, "chat is a number, a #group or an @handle")
            }
        }
        guard changed else { return body }
        return Array(try JSONSerialization.data(withJSONObject: args))
    }

    private static func person(_ name: String, _ session: EngineSession) async throws -> User {
        guard !name.isEmpty else { throw ParleyError(.invalidArgument, "user is a number or an @handle") }
        return try await session.user(handle: name)
    }
}
