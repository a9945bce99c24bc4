public import Foundation
public import ParleyCore
import ParleyProtocol

/// `ChatService` over a Parley server's WebSocket: what `parley --server URL` uses.
/// Every verb is one request; events arrive in order and once, also across reconnects;
/// sends go through an outbox in `folder` and are never stored twice.
///
/// ```swift
/// let service = RemoteChatService(url: "ws://127.0.0.1:7878/v1/ws", folder: folder)
/// try await service.signIn(login: "@alice", password: "correct horse")
/// ```
public final class RemoteChatService: ChatService {
    public let events: AsyncStream<ChatEvent>
    let link: Link

    /// - Parameters:
    ///   - url: `ws://HOST:PORT` (the `/v1/ws` path is added when missing), or several
    ///     nodes of one service, comma-separated: when one stops answering the next is
    ///     tried, and the session resumes there.
    ///   - folder: where the outbox is kept (nil: in memory only).
    ///   - trust: how a `wss://` server's certificate is checked.
    ///   - onAcknowledged: called for each queued message once the server has it.
    ///   - onRejected: called with the client id and error of a queued message the server refused.
    ///   - reconnectWait: how long a request waits for the connection once one that was
    ///     up is lost (nil: `connectTimeout`); a send is queued after that.
    ///   - onChange: called when a connection that was up is lost, and when it is back
    ///     (with whether every message missed meanwhile was passed on).
    ///   - client: how this program names itself to the server (shown in `/sessions`).
    public init(
        url: String, folder: URL?, trust: ServerTrust = ServerTrust(), connectTimeout: Duration = .seconds(5),
        reconnectWait: Duration? = nil, client: String = "parley/client",
        onAcknowledged: @escaping @Sendable (Message) -> Void = { _ in },
        onRejected: @escaping @Sendable (String, ParleyError) -> Void = { _, _ in },
        onChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }
    ) {
        let (events, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
        self.events = events
        let settings = Link.Settings(
            urls: url.split(separator: ",").map { Self.socketURL(String($0)) }, trust: trust, connectTimeout: connectTimeout,
            reconnectWait: reconnectWait,
            outboxURL: folder?.appendingPathComponent("outbox.json"), client: client)
        link = Link(settings: settings, events: continuation, onAcknowledged: onAcknowledged, onRejected: onRejected, onChange: onChange)
    }

    /// `ws://host:port` → `ws://host:port/v1/ws`.
    public static func socketURL(_ url: String) -> String {
        var url = url
        if !url.contains("://") { url = "ws://" + url }
        if let slash = url.range(of: "://").map({ url[$0.upperBound...] }), !slash.contains("/") { url += "/v1/ws" }
        return url
    }

    /// Messages waiting for the connection.
    public func queued() async -> [(clientID: String, text: String)] {
        await link.queued.map { ($0.clientID ?? "", $0.text) }
    }

    /// Waits for the queued messages to reach the server (reconnecting as needed) until
    /// `limit` has passed without a connection; returns those still queued, which stay
    /// in the folder's outbox.
    public func drainQueue(offline limit: Duration) async -> [(clientID: String, text: String)] {
        await link.drain(offline: limit).map { ($0.clientID ?? "", $0.text) }
    }

    private func session<Args>(_ operation: OpDeclaration<Args, SessionResult>, _ args: Args) async throws -> SignedIn {
        let result = try await link.call(operation, args)
        await link.signedIn(result, fresh: operation.op != .resume)
        return result.signedIn
    }

    public func register(_ registration: Registration) async throws -> SignedIn {
        try await session(OpDeclarations.register, Args.Register(registration))
    }

    public func signIn(login: String, password: String) async throws -> SignedIn {
        try await session(OpDeclarations.signIn, Args.SignIn(login: login, password: password))
    }

    public func requestCode(phone: String) async throws -> CodeRequest {
        try await link.call(OpDeclarations.requestCode, Args.Phone(phone: phone))
    }

    public func signIn(phone: String, code: String) async throws -> SignedIn {
        try await session(OpDeclarations.signInCode, Args.PhoneCode(phone: phone, code: code))
    }

    public func signIn(idToken: String) async throws -> SignedIn {
        try await session(OpDeclarations.signInToken, Args.IDToken(idToken: idToken))
    }

    public func signIn(botToken: String) async throws -> SignedIn {
        try await session(OpDeclarations.signInBot, Args.BotTokenSecret(token: botToken))
    }

    public func createBotToken(for bot: UserID, name: String) async throws -> CreatedBotToken {
        try await link.call(OpDeclarations.createBotToken, Args.CreateBotToken(bot: bot, name: name))
    }

    public func botTokens(for bot: UserID) async throws -> [BotToken] {
        try await link.call(OpDeclarations.botTokens, Args.Bot(bot: bot))
    }

    public func revokeBotToken(_ id: Int64, of bot: UserID) async throws {
        _ = try await link.call(OpDeclarations.revokeBotToken, Args.BotTokenID(bot: bot, token: id))
    }

    public func resume(token: String) async throws -> SignedIn {
        try await session(OpDeclarations.resume, Args.Resume(token: token, after: nil))
    }

    public func signOut() async throws {
        try await link.call(OpDeclarations.signOut, Empty())
        await link.signedOut()
    }

    public func changePassword(current: String, new: String) async throws {
        try await link.call(OpDeclarations.changePassword, Args.ChangePassword(current: current, new: new))
    }

    public func me() async throws -> User { try await link.call(OpDeclarations.me, Empty()) }

    public func createBot(_ bot: NewBot) async throws -> User { try await link.call(OpDeclarations.createBot, Args.CreateBot(bot)) }

    public func bots() async throws -> [User] { try await link.call(OpDeclarations.bots, Empty()) }

    public func createSignupCode(maxUses: Int?, expiresIn: Duration?) async throws -> SignupCode {
        try await link.call(OpDeclarations.createSignupCode, Args.CreateSignupCode(maxUses: maxUses, expiresIn: expiresIn))
    }

    public func signupCodes() async throws -> [SignupCode] { try await link.call(OpDeclarations.signupCodes, Empty()) }

    public func revokeSignupCode(_ code: String) async throws {
        try await link.call(OpDeclarations.revokeSignupCode, Args.Code(code: code))
    }

    public func updateProfile(displayName: String) async throws -> User {
        try await link.call(OpDeclarations.updateProfile, Args.Profile(displayName: displayName))
    }

    public func searchUsers(_ query: String, limit: Int, offset: Int) async throws -> [User] {
        try await link.call(OpDeclarations.searchUsers, Args.SearchUsers(query: query, limit: limit, offset: offset))
    }

    public func user(handle: String) async throws -> User { try await link.call(OpDeclarations.user, Args.Handle(handle: handle)) }

    public func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?) async throws
        -> Message
    {
        try await link.send(
            Args.Send(to: recipient, text: text, clientID: clientID ?? UUID().uuidString.lowercased(), via: via, replyTo: replyTo))
    }

    public func editMessage(chat: ChatID, seq: Int64, text: String) async throws -> Message {
        try await link.call(OpDeclarations.editMessage, Args.Edit(chat: chat, seq: seq, text: text))
    }

    public func deleteMessage(chat: ChatID, seq: Int64) async throws -> Message {
        try await link.call(OpDeclarations.deleteMessage, Args.ChatSeq(chat: chat, seq: seq))
    }

    public func react(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount] {
        try await link.call(OpDeclarations.react, Args.Reaction(chat: chat, seq: seq, emoji: emoji))
    }

    public func unreact(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount] {
        try await link.call(OpDeclarations.unreact, Args.Reaction(chat: chat, seq: seq, emoji: emoji))
    }

    public func mentions(limit: Int) async throws -> [Message] { try await link.call(OpDeclarations.mentions, Args.Limit(limit: limit)) }

    public func typing(in chat: ChatID) async throws {
        try await link.call(OpDeclarations.typing, Args.Chat(chat: chat))
    }

    public func setTopic(_ topic: String?, in chat: ChatID) async throws -> Chat {
        try await link.call(OpDeclarations.setTopic, Args.Topic(chat: chat, topic: topic))
    }

    public func setGroupRules(in chat: ChatID, _ change: GroupRulesChange) async throws -> Chat {
        try await link.call(OpDeclarations.setGroupRules, Args.GroupRules(chat: chat, change))
    }

    public func ban(handle: String, from chat: ChatID) async throws {
        _ = try await link.call(OpDeclarations.ban, Args.Ban(handle: handle, chat: chat))
    }

    public func unban(handle: String, from chat: ChatID) async throws {
        _ = try await link.call(OpDeclarations.unban, Args.Ban(handle: handle, chat: chat))
    }

    public func bans(in chat: ChatID) async throws -> [String] {
        try await link.call(OpDeclarations.bans, Args.Chat(chat: chat))
    }

    public func setAway(_ message: String?) async throws {
        try await link.call(OpDeclarations.setAway, Args.Away(message: message))
    }

    public func back() async throws {
        try await link.call(OpDeclarations.back, Empty())
    }

    public func ircPlayback() async throws -> Int? {
        try await link.call(OpDeclarations.ircPlayback, Empty()).limit
    }

    public func setIRCPlayback(_ limit: Int?) async throws {
        _ = try await link.call(OpDeclarations.setIRCPlayback, Args.Playback(limit: limit))
    }

    public func hideActivity(_ hidden: Bool) async throws {
        try await link.call(OpDeclarations.hideActivity, Args.Hidden(hidden: hidden))
    }

    public func activity(of user: UserID) async throws -> UserActivity {
        try await link.call(OpDeclarations.activity, Args.User(user: user))
    }

    public func sessions() async throws -> [SessionInfo] { try await link.call(OpDeclarations.sessions, Empty()) }

    public func revokeSession(_ id: String) async throws {
        try await link.call(OpDeclarations.revokeSession, Args.Session(id: id))
    }

    public func history(chat: ChatID, limit: Int, before: Int64?) async throws -> [Message] {
        try await link.call(OpDeclarations.history, Args.History(chat: chat, limit: limit, before: before))
    }

    public func search(_ search: MessageSearch) async throws -> [SearchHit] {
        try await link.call(OpDeclarations.search, Args.Search(search))
    }

    public func markRead(chat: ChatID, upTo seq: Int64) async throws -> ReadMarker {
        try await link.call(OpDeclarations.markRead, Args.ChatSeq(chat: chat, seq: seq))
    }

    public func seenBy(chat: ChatID, seq: Int64) async throws -> [ReadMarker] {
        try await link.call(OpDeclarations.seenBy, Args.ChatSeq(chat: chat, seq: seq))
    }

    public func chats() async throws -> [ChatSummary] { try await link.call(OpDeclarations.chats, Empty()) }

    public func chat(_ id: ChatID) async throws -> Chat { try await link.call(OpDeclarations.chat, Args.Chat(chat: id)) }

    public func directChat(with user: UserID) async throws -> Chat? {
        try await link.call(OpDeclarations.directChat, Args.User(user: user)).chat
    }

    public func deleteChat(_ chat: ChatID) async throws {
        try await link.call(OpDeclarations.deleteChat, Args.Chat(chat: chat))
    }

    public func createGroup(handle: String, title: String?, isPublic: Bool) async throws -> Chat {
        try await link.call(OpDeclarations.createGroup, Args.CreateGroup(handle: handle, title: title, isPublic: isPublic))
    }

    public func group(handle: String) async throws -> Chat { try await link.call(OpDeclarations.group, Args.Handle(handle: handle)) }

    public func publicGroups(_ prefix: String, limit: Int, offset: Int) async throws -> [GroupListing] {
        try await link.call(OpDeclarations.publicGroups, Args.SearchUsers(query: prefix, limit: limit, offset: offset))
    }

    public func joinGroup(handle: String, key: String?) async throws -> Chat {
        try await link.call(OpDeclarations.joinGroup, Args.JoinGroup(handle: handle, key: key))
    }

    public func join(invite codeOrLink: String) async throws -> Chat {
        try await link.call(OpDeclarations.join, Args.Join(invite: codeOrLink))
    }

    public func sendInvite(to user: UserID, chat: ChatID) async throws -> Invite {
        try await link.call(OpDeclarations.sendInvite, Args.Member(user: user, chat: chat))
    }

    public func invitations() async throws -> [InviteNotice] { try await link.call(OpDeclarations.invitations, Empty()) }

    public func invite(user: UserID, to chat: ChatID) async throws {
        try await link.call(OpDeclarations.invite, Args.Member(user: user, chat: chat))
    }

    public func createInvite(chat: ChatID, maxUses: Int?, expiresIn: Duration?) async throws -> Invite {
        try await link.call(OpDeclarations.createInvite, Args.CreateInvite(chat: chat, maxUses: maxUses, expiresIn: expiresIn))
    }

    public func revokeInvite(code: String) async throws {
        try await link.call(OpDeclarations.revokeInvite, Args.Code(code: code))
    }

    public func leave(chat: ChatID) async throws {
        try await link.call(OpDeclarations.leave, Args.Chat(chat: chat))
    }

    public func members(chat: ChatID) async throws -> [Member] { try await link.call(OpDeclarations.members, Args.Chat(chat: chat)) }

    public func kick(user: UserID, from chat: ChatID) async throws {
        try await link.call(OpDeclarations.kick, Args.Member(user: user, chat: chat))
    }

    public func setRole(_ role: Role, for user: UserID, in chat: ChatID) async throws {
        try await link.call(OpDeclarations.setRole, Args.SetRole(user: user, chat: chat, role: role))
    }

    public func groups() async throws -> [Chat] { try await link.call(OpDeclarations.groups, Empty()) }

    public func setViewing(_ chat: ChatID?) async throws {
        try await link.call(OpDeclarations.setViewing, Args.Viewing(chat: chat))
        await link.viewing(chat)
    }

    public func online(in chat: ChatID) async throws -> [PresenceEntry] {
        try await link.call(OpDeclarations.online, Args.Chat(chat: chat))
    }

    public func uploadMedia(from file: URL, kind: MediaKind?, for recipient: Recipient?, progress: TransferProgress?) async throws
        -> MediaInfo
    {
        let source = try LocalFile(reading: file)
        var query = [URLQueryItem]()
        if let kind { query.append(URLQueryItem(name: "kind", value: kind.rawValue)) }
        switch recipient {
        case .chat(let id): query.append(URLQueryItem(name: "chat", value: String(id.rawValue)))
        case .user(let id): query.append(URLQueryItem(name: "user", value: String(id.rawValue)))
        case nil: break
        }
        var path = URLComponents()
        path.path = MediaHTTP.uploadPath
        path.queryItems = query.isEmpty ? nil : query
        let transfer = try MediaTransfer(socketURL: await link.url, trust: link.settings.trust)
        return try await transfer.upload(
            source, path: path.string ?? MediaHTTP.uploadPath, token: try await link.requireToken(), progress: progress)
    }

    public func sendMedia(
        to recipient: Recipient, media: String, caption: String, name: String?, clientID: String?, via: String?
    ) async throws -> Message {
        try await link.send(
            Args.Send(
                to: recipient, text: caption, media: media, name: name, clientID: clientID ?? UUID().uuidString.lowercased(), via: via))
    }

    @discardableResult
    public func downloadMedia(_ id: String, to file: URL, replace: Bool, progress: TransferProgress?) async throws -> Int64 {
        guard MediaInfo.isValidID(id) else { throw ParleyError(.unknownMedia, "'\(id)' is not a media id") }
        let target = try LocalFile.destination(file, replace: replace)
        let transfer = try MediaTransfer(socketURL: await link.url, trust: link.settings.trust)
        try await transfer.download(
            path: MediaHTTP.downloadPath(id), token: try await link.requireToken(), to: target, replace: replace, progress: progress)
        return try LocalFile(reading: target).size
    }

    public func setAvatar(_ media: String?) async throws -> User {
        try await link.call(OpDeclarations.setAvatar, Args.Avatar(media: media))
    }

    public func close() async { await link.close() }

    public func createHook(in chat: ChatID, name: String, signingSecret: String?) async throws -> CreatedHook {
        try await link.call(OpDeclarations.createHook, Args.CreateHook(chat: chat, name: name, signingSecret: signingSecret))
    }

    public func createOutgoingHook(in chat: ChatID, name: String, url: String, trigger: String) async throws -> CreatedHook {
        try await link.call(OpDeclarations.createOutgoingHook, Args.CreateOutgoingHook(chat: chat, name: name, url: url, trigger: trigger))
    }

    public func hooks(in chat: ChatID) async throws -> [Hook] {
        try await link.call(OpDeclarations.hooks, Args.Chat(chat: chat))
    }

    public func revokeHook(_ id: Int64, in chat: ChatID) async throws {
        _ = try await link.call(OpDeclarations.revokeHook, Args.HookID(chat: chat, hook: id))
    }
}
