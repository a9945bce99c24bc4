import Foundation
import Logging
import ParleyCore
import ParleyEngine
import ParleyProtocol

/// Turns one request frame into a call on the socket's engine session and the reply
/// frame. Thin on purpose: the rules live in the engine.
struct Dispatcher: Sendable {
    let session: EngineSession
    let epoch: String
    let logger: Logger
    private let encoder = Wire.encoder()
    private let decoder = RequestDecoder()

    init(session: EngineSession, epoch: String, logger: Logger) {
        self.session = session
        self.epoch = epoch
        self.logger = logger
    }

    /// The op a frame names, or the error reply to send instead.
    func head(of frame: Data) -> Result<(id: Int64, op: Op), Rejection> {
        decoder.head(of: frame)
    }

    func failure(_ id: Int64?, _ error: ParleyError, op: Op? = nil) -> Data {
        (try? encoder.encode(Reply<Empty>.failure(id, redacted(error, op: op)))) ?? Data(#"{"ok":false}"#.utf8)
    }

    /// What a request's log lines carry: the op, the user (or `none`) and the address.
    func metadata(_ op: Op?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "user": "\(session.userID.map { String($0.rawValue) } ?? "none")", "address": "\(session.address)",
        ]
        if let op { metadata["op"] = "\(op.rawValue)" }
        return metadata
    }

    /// An internal error's detail (a database message, a path) goes to the log only;
    /// the client gets a reference to quote.
    private func redacted(_ error: ParleyError, op: Op?) -> ParleyError {
        guard error.code == .internalError else { return error }
        return Self.internalError(logged: error.message, logger: logger, metadata: metadata(op))
    }

    /// `internal` with a fresh reference, the detail logged under it.
    static func internalError(logged detail: String, logger: Logger, metadata: Logger.Metadata = [:]) -> ParleyError {
        let reference = String(UInt32.random(in: .min ... .max), radix: 16)
        var metadata = metadata
        metadata["reference"] = "\(reference)"
        logger.error("internal error \(reference): \(detail)", metadata: metadata)
        return ParleyError(.internalError, "the server failed to do this (reference \(reference))")
    }

    /// Performs `op` and returns the reply frame, its error code if it failed, and the
    /// user when it signed the socket in.
    func perform(_ op: Op, id: Int64, frame: Data) async -> (reply: Data, error: ErrorCode?, signedIn: User?) {
        var signedIn: User?
        let reply: Data
        do {
            switch op {
            case .register:
                reply = try await call(id, frame) { (args: Args.Register) in
                    let result = SessionResult(
                        signedIn: try await session.register(try args.registration()), epoch: epoch, position: session.engine.eventPosition,
                        complete: true)
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
                    let result = SessionResult(
                        signedIn: try await session.signIn(login: args.login, password: args.password), epoch: epoch,
                        position: session.engine.eventPosition, complete: true)
                    signedIn = result.user
                    return result
                }
            case .resume:
                reply = try await call(id, frame) { (args: Args.Resume) in
                    let (resumed, complete) = try await session.resume(token: args.token, after: args.after)
                    signedIn = resumed.user
                    return SessionResult(signedIn: resumed, epoch: epoch, position: session.engine.eventPosition, complete: complete)
                }
            case .signOut:
                reply = try await call(id, frame) { (_: Empty) in
                    try await session.signOut()
                    return Empty()
                }
            case .changePassword:
                reply = try await call(id, frame) { (args: Args.ChangePassword) in
                    try await session.changePassword(current: args.current, new: args.new)
                    return Empty()
                }
            case .me: reply = try await call(id, frame) { (_: Empty) in try await session.me() }
            case .createBot: reply = try await call(id, frame) { (args: Args.CreateBot) in try await session.createBot(args.bot) }
            case .bots: reply = try await call(id, frame) { (_: Empty) in try await session.bots() }
            case .createSignupCode:
                reply = try await call(id, frame) { (args: Args.CreateSignupCode) in
                    try await session.createSignupCode(maxUses: args.maxUses, expiresIn: args.expiresInSeconds.map { .seconds($0) })
                }
            case .signupCodes: reply = try await call(id, frame) { (_: Empty) in try await session.signupCodes() }
            case .revokeSignupCode:
                reply = try await call(id, frame) { (args: Args.Code) in
                    try await session.revokeSignupCode(args.code)
                    return Empty()
                }
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
                        return try await session.sendMedia(
                            to: try args.recipient(), media: media, caption: args.text, clientID: args.clientID)
                    }
                    return try await session.sendMessage(
                        to: try args.recipient(), text: args.text, clientID: args.clientID, via: args.via, replyTo: args.replyTo)
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
                reply = try await call(id, frame) { (args: Args.Chat) in
                    try await session.deleteChat(args.chat)
                    return Empty()
                }
            case .createGroup:
                reply = try await call(id, frame) { (args: Args.CreateGroup) in
                    try await session.createGroup(handle: args.handle, title: args.title, isPublic: args.isPublic ?? true)
                }
            case .group: reply = try await call(id, frame) { (args: Args.Handle) in try await session.group(handle: args.handle) }
            case .joinGroup: reply = try await call(id, frame) { (args: Args.Handle) in try await session.joinGroup(handle: args.handle) }
            case .join: reply = try await call(id, frame) { (args: Args.Join) in try await session.join(invite: args.invite) }
            case .invite:
                reply = try await call(id, frame) { (args: Args.Member) in
                    try await session.invite(user: args.user, to: args.chat)
                    return Empty()
                }
            case .createInvite:
                reply = try await call(id, frame) { (args: Args.CreateInvite) in
                    try await session.createInvite(
                        chat: args.chat, maxUses: args.maxUses, expiresIn: args.expiresInSeconds.map { .seconds($0) })
                }
            case .revokeInvite:
                reply = try await call(id, frame) { (args: Args.Code) in
                    try await session.revokeInvite(code: args.code)
                    return Empty()
                }
            case .leave:
                reply = try await call(id, frame) { (args: Args.Chat) in
                    try await session.leave(chat: args.chat)
                    return Empty()
                }
            case .members: reply = try await call(id, frame) { (args: Args.Chat) in try await session.members(chat: args.chat) }
            case .kick:
                reply = try await call(id, frame) { (args: Args.Member) in
                    try await session.kick(user: args.user, from: args.chat)
                    return Empty()
                }
            case .setRole:
                reply = try await call(id, frame) { (args: Args.SetRole) in
                    try await session.setRole(args.role, for: args.user, in: args.chat)
                    return Empty()
                }
            case .groups: reply = try await call(id, frame) { (_: Empty) in try await session.groups() }
            case .setViewing:
                reply = try await call(id, frame) { (args: Args.Viewing) in
                    try await session.setViewing(args.chat)
                    return Empty()
                }
            case .online: reply = try await call(id, frame) { (args: Args.Chat) in try await session.online(in: args.chat) }
            case .editMessage:
                reply = try await call(id, frame) { (args: Args.Edit) in
                    try await session.editMessage(chat: args.chat, seq: args.seq, text: args.text)
                }
            case .deleteMessage:
                reply = try await call(id, frame) { (args: Args.ChatSeq) in try await session.deleteMessage(chat: args.chat, seq: args.seq)
                }
            case .react:
                reply = try await call(id, frame) { (args: Args.Reaction) in
                    try await session.react(chat: args.chat, seq: args.seq, emoji: args.emoji)
                }
            case .unreact:
                reply = try await call(id, frame) { (args: Args.Reaction) in
                    try await session.unreact(chat: args.chat, seq: args.seq, emoji: args.emoji)
                }
            case .mentions: reply = try await call(id, frame) { (args: Args.Limit) in try await session.mentions(limit: args.limit ?? 20) }
            case .typing:
                reply = try await call(id, frame) { (args: Args.Chat) in
                    try await session.typing(in: args.chat)
                    return Empty()
                }
            case .setTopic:
                reply = try await call(id, frame) { (args: Args.Topic) in try await session.setTopic(args.topic, in: args.chat) }
            case .setGroupRules:
                reply = try await call(id, frame) { (args: Args.GroupRules) in
                    try await session.setGroupRules(
                        in: args.chat, anyoneSetsTopic: args.anyoneSetsTopic, anyoneMentionsAll: args.anyoneMentionsAll)
                }
            case .setAway:
                reply = try await call(id, frame) { (args: Args.Away) in
                    try await session.setAway(args.message)
                    return Empty()
                }
            case .back:
                reply = try await call(id, frame) { (_: Empty) in
                    try await session.back()
                    return Empty()
                }
            case .hideActivity:
                reply = try await call(id, frame) { (args: Args.Hidden) in
                    try await session.hideActivity(args.hidden)
                    return Empty()
                }
            case .activity: reply = try await call(id, frame) { (args: Args.User) in try await session.activity(of: args.user) }
            case .sessions: reply = try await call(id, frame) { (_: Empty) in try await session.sessions() }
            case .revokeSession:
                reply = try await call(id, frame) { (args: Args.Session) in
                    try await session.revokeSession(args.id)
                    return Empty()
                }
            case .ping: reply = try await call(id, frame) { (_: Empty) in Empty() }
            }
        } catch let error as ParleyError {
            var metadata = metadata(op)
            metadata["code"] = "\(error.code)"
            if Self.accountOps.contains(op) || error.code == .rateLimited {
                logger.info("\(op.rawValue) refused: \(error.code)", metadata: metadata)
            } else {
                logger.debug("request refused", metadata: metadata)
            }
            return (failure(id, error, op: op), error.code, nil)
        } catch {
            return (failure(id, ParleyError(.internalError, String(describing: error)), op: op), .internalError, nil)
        }
        logger.debug("request", metadata: metadata(op))
        if let signedIn {
            let what = op == .register ? "signed up" : op == .resume ? "resumed" : "signed in"
            logger.info("\(what) @\(signedIn.handle)", metadata: metadata(op))
        }
        return (reply, nil, signedIn)
    }

    /// Ops whose refusals an operator wants to see (guessing, sign-up floods).
    private static let accountOps: Set<Op> = [.register, .signIn, .signInCode, .signInToken, .requestCode, .resume, .changePassword]

    /// Decodes the arguments as `A`, runs `body`, encodes its result as a reply.
    private func call<A: Codable & Sendable, R: Codable & Sendable>(
        _ id: Int64, _ frame: Data, _ body: (A) async throws -> R
    ) async throws -> Data {
        let args = try decoder.arguments(A.self, from: frame)
        let result = try await body(args)
        if let writable = result as? any WireWritable {
            return Data(WireWriter.reply(id, writable))
        }
        return try encoder.encode(Reply.success(id, result))
    }
}
