import Foundation
import ParleyCore
import ParleyEngine
import ParleyProtocol

/// Turns one request frame into a call on the socket's engine session and the reply
/// frame. Thin on purpose: the rules live in the engine.
struct Dispatcher: Sendable {
    let session: EngineSession
    let epoch: String
    private let encoder = Wire.encoder()
    private let decoder = Wire.decoder()

    init(session: EngineSession, epoch: String) {
        self.session = session
        self.epoch = epoch
    }

    /// The op a frame names, or the error reply to send instead. `id` is nil when the
    /// frame is not a request at all.
    func head(of frame: Data) -> Result<(id: Int64, op: Op), Rejection> {
        guard let head = try? decoder.decode(RequestHead.self, from: frame) else {
            let id = (try? JSONSerialization.jsonObject(with: frame) as? [String: Any])?["id"] as? Int64
            return .failure(Rejection(id: id, error: ParleyError(.badFrame, "a request is a JSON object with a numeric id and an op")))
        }
        guard let op = Op(rawValue: head.op) else {
            return .failure(Rejection(id: head.id, error: ParleyError(.unknownOp, "unknown op \"\(head.op)\"")))
        }
        return .success((head.id, op))
    }

    func failure(_ id: Int64?, _ error: ParleyError) -> Data {
        (try? encoder.encode(Reply<Empty>.failure(id, error))) ?? Data(#"{"ok":false}"#.utf8)
    }

    /// Performs `op` and returns the reply frame, whether it succeeded, and the user
    /// when it signed the socket in.
    func perform(_ op: Op, id: Int64, frame: Data) async -> (reply: Data, ok: Bool, signedIn: User?) {
        var signedIn: User?
        let reply: Data
        do {
            switch op {
            case .register:
                reply = try await call(id, frame) { (args: Args.Register) in
                    let result = SessionResult(signedIn: try await session.register(args.registration), epoch: epoch, position: session.engine.eventPosition, complete: true)
                    signedIn = result.user
                    return result
                }
            case .requestCode:
                reply = try await call(id, frame) { (args: Args.Phone) in try await session.requestCode(phone: args.phone) }
            case .signInToken:
                reply = try await call(id, frame) { (args: Args.IDToken) in
                    let result = SessionResult(
                        signedIn: try await session.signIn(idToken: args.idToken), epoch: epoch,
                        position: session.engine.eventPosition, complete: true)
                    signedIn = result.user
                    return result
                }
            case .signInCode:
                reply = try await call(id, frame) { (args: Args.PhoneCode) in
                    let result = SessionResult(
                        signedIn: try await session.signIn(phone: args.phone, code: args.code), epoch: epoch,
                        position: session.engine.eventPosition, complete: true)
                    signedIn = result.user
                    return result
                }
            case .signIn:
                reply = try await call(id, frame) { (args: Args.SignIn) in
                    let result = SessionResult(signedIn: try await session.signIn(login: args.login, password: args.password), epoch: epoch, position: session.engine.eventPosition, complete: true)
                    signedIn = result.user
                    return result
                }
            case .resume:
                reply = try await call(id, frame) { (args: Args.Resume) in
                    let (resumed, complete) = try await session.resume(token: args.token, after: args.after)
                    signedIn = resumed.user
                    return SessionResult(signedIn: resumed, epoch: epoch, position: session.engine.eventPosition, complete: complete)
                }
            case .signOut: reply = try await call(id, frame) { (_: Empty) in try await session.signOut(); return Empty() }
            case .changePassword:
                reply = try await call(id, frame) { (args: Args.ChangePassword) in
                    try await session.changePassword(current: args.current, new: args.new)
                    return Empty()
                }
            case .me: reply = try await call(id, frame) { (_: Empty) in try await session.me() }
            case .updateProfile:
                reply = try await call(id, frame) { (args: Args.Profile) in try await session.updateProfile(displayName: args.displayName) }
            case .setAvatar:
                reply = try await call(id, frame) { (args: Args.Avatar) in try await session.setAvatar(args.media) }
            case .searchUsers:
                reply = try await call(id, frame) { (args: Args.SearchUsers) in
                    try await session.searchUsers(args.query, limit: args.limit ?? 20, offset: args.offset ?? 0)
                }
            case .user: reply = try await call(id, frame) { (args: Args.Handle) in try await session.user(handle: args.handle) }
            case .send:
                reply = try await call(id, frame) { (args: Args.Send) in
                    if let media = args.media {
                        return try await session.sendMedia(to: try args.recipient(), media: media, caption: args.text, clientID: args.clientID)
                    }
                    return try await session.sendMessage(to: try args.recipient(), text: args.text, clientID: args.clientID)
                }
            case .history:
                reply = try await call(id, frame) { (args: Args.History) in
                    try await session.history(chat: args.chat, limit: args.limit ?? 50, before: args.before)
                }
            case .search:
                reply = try await call(id, frame) { (args: Args.Search) in
                    try await session.search(args.words, in: args.chat, limit: args.limit ?? 20)
                }
            case .markRead:
                reply = try await call(id, frame) { (args: Args.ChatSeq) in try await session.markRead(chat: args.chat, upTo: args.seq) }
            case .seenBy:
                reply = try await call(id, frame) { (args: Args.ChatSeq) in try await session.seenBy(chat: args.chat, seq: args.seq) }
            case .chats: reply = try await call(id, frame) { (_: Empty) in try await session.chats() }
            case .chat: reply = try await call(id, frame) { (args: Args.Chat) in try await session.chat(args.chat) }
            case .directChat:
                reply = try await call(id, frame) { (args: Args.User) in OptionalChat(chat: try await session.directChat(with: args.user)) }
            case .deleteChat:
                reply = try await call(id, frame) { (args: Args.Chat) in try await session.deleteChat(args.chat); return Empty() }
            case .createGroup:
                reply = try await call(id, frame) { (args: Args.CreateGroup) in
                    try await session.createGroup(handle: args.handle, title: args.title, isPublic: args.isPublic ?? true)
                }
            case .group: reply = try await call(id, frame) { (args: Args.Handle) in try await session.group(handle: args.handle) }
            case .joinGroup: reply = try await call(id, frame) { (args: Args.Handle) in try await session.joinGroup(handle: args.handle) }
            case .join: reply = try await call(id, frame) { (args: Args.Join) in try await session.join(invite: args.invite) }
            case .invite:
                reply = try await call(id, frame) { (args: Args.Member) in try await session.invite(user: args.user, to: args.chat); return Empty() }
            case .createInvite:
                reply = try await call(id, frame) { (args: Args.CreateInvite) in
                    try await session.createInvite(chat: args.chat, maxUses: args.maxUses, expiresIn: args.expiresInSeconds.map { .seconds($0) })
                }
            case .revokeInvite:
                reply = try await call(id, frame) { (args: Args.Code) in try await session.revokeInvite(code: args.code); return Empty() }
            case .leave: reply = try await call(id, frame) { (args: Args.Chat) in try await session.leave(chat: args.chat); return Empty() }
            case .members: reply = try await call(id, frame) { (args: Args.Chat) in try await session.members(chat: args.chat) }
            case .kick:
                reply = try await call(id, frame) { (args: Args.Member) in try await session.kick(user: args.user, from: args.chat); return Empty() }
            case .setRole:
                reply = try await call(id, frame) { (args: Args.SetRole) in
                    try await session.setRole(args.role, for: args.user, in: args.chat)
                    return Empty()
                }
            case .groups: reply = try await call(id, frame) { (_: Empty) in try await session.groups() }
            case .setViewing:
                reply = try await call(id, frame) { (args: Args.Viewing) in try await session.setViewing(args.chat); return Empty() }
            case .online: reply = try await call(id, frame) { (args: Args.Chat) in try await session.online(in: args.chat) }
            case .ping: reply = try await call(id, frame) { (_: Empty) in Empty() }
            }
        } catch let error as ParleyError {
            return (failure(id, error), false, nil)
        } catch {
            return (failure(id, ParleyError(.internalError, "\(error)")), false, nil)
        }
        return (reply, true, signedIn)
    }

    /// Decodes the arguments as `A`, runs `body`, encodes its result as a reply.
    private func call<A: Codable & Sendable, R: Codable & Sendable>(
        _ id: Int64, _ frame: Data, _ body: (A) async throws -> R
    ) async throws -> Data {
        let args: A
        do {
            if let given = try decoder.decode(ArgsEnvelope<A>.self, from: frame).args {
                args = given
            } else if let empty = Empty() as? A {
                args = empty
            } else {
                throw ParleyError(.invalidArgument, "this op needs args")
            }
        } catch let error as DecodingError {
            throw ParleyError(.invalidArgument, "bad args: \(Self.describe(error))")
        }
        let result = try await body(args)
        if let writable = result as? any WireWritable {
            return Data(WireWriter.reply(id, writable))
        }
        return try encoder.encode(Reply.success(id, result))
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }
}

/// The arguments of a request, absent when the op takes none.
private struct ArgsEnvelope<Args: Decodable>: Decodable {
    var args: Args?
}

/// A frame refused before any op ran.
struct Rejection: Error {
    var id: Int64?
    var error: ParleyError
}
