/// Everything one client connection can do, signed out or signed in.
///
/// The embedded engine (`ChatEngine.connect()`) and the remote client both conform, so
/// the shell and the bots never know which one they talk to. A connection starts signed
/// out; `register`, `signIn` or `resume` sign it in, and from then on `events` carries
/// what happens in the user's chats.
///
/// What it can do is cut by feature (`Slices/`): `IgnoreService` is done by
/// `EngineSession+Ignore` and kept in `IgnoreStore`, the same name on every floor
/// (docs/contributing.md has the table; `scripts/features.py` checks it).
///
/// ```swift
/// let alice = engine.connect()
/// try await alice.signIn(login: "alice@example.com", password: "correct horse")
/// let message = try await alice.sendMessage(to: .user(bob.id), text: "hi", clientID: nil)
/// ```
public protocol ChatService:
    AccountsService, PhoneService, IdentityService, SignupService, ActivityService, MessagesService, EditsService, MediaService,
    MembersService, GroupsService, InvitesService, BotTokensService, BotCommandsService, RemindersService, IgnoreService,
    ReportsService, OperatorsService, ExportService, ErasureService, HooksService, ThreadsService
{
    /// Live events for the signed-in user, in order. One consumer per connection.
    var events: AsyncStream<ChatEvent> { get }
    /// Ends the connection: its presence goes, its event stream finishes. The session
    /// token stays valid (use `signOut` to revoke it).
    func close() async
}

extension ChatService {
    /// A message the user sends themself.
    public func sendMessage(to recipient: Recipient, text: String, clientID: String?) async throws -> Message {
        try await sendMessage(to: recipient, text: text, clientID: clientID, via: nil)
    }

    public func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?) async throws -> Message {
        try await sendMessage(to: recipient, text: text, clientID: clientID, via: via, replyTo: nil)
    }

    public func sendMedia(to recipient: Recipient, media: String, caption: String, clientID: String?) async throws -> Message {
        try await sendMedia(to: recipient, media: media, caption: caption, name: nil, clientID: clientID, via: nil)
    }

    public func sendMedia(to recipient: Recipient, media: String, caption: String, clientID: String?, via: String?) async throws -> Message
    {
        try await sendMedia(to: recipient, media: media, caption: caption, name: nil, clientID: clientID, via: via)
    }

    /// A message answering message `seq` of the same chat.
    public func reply(to seq: Int64, in chat: ChatID, text: String, clientID: String?, via: String? = nil) async throws -> Message {
        try await sendMessage(to: .chat(chat), text: text, clientID: clientID, via: via, replyTo: seq)
    }

    /// Messages in the user's chats matching all `words`, newest first, without context.
    public func search(_ words: String, in chat: ChatID?, limit: Int) async throws -> [Message] {
        try await search(MessageSearch(words: words, chat: chat, limit: limit)).map(\.message)
    }

    public func joinGroup(handle: String) async throws -> Chat {
        try await joinGroup(handle: handle, key: nil)
    }

    public func setGroupRules(in chat: ChatID, anyoneSetsTopic: Bool?, anyoneMentionsAll: Bool?) async throws -> Chat {
        try await setGroupRules(in: chat, GroupRulesChange(anyoneSetsTopic: anyoneSetsTopic, anyoneMentionsAll: anyoneMentionsAll))
    }

    /// One text: `sendToThread` when it names a thread, else `sendMessage`.
    public func send(_ item: OutgoingText) async throws -> Message {
        if let thread = item.thread, case .chat(let chat) = item.recipient {
            return try await sendToThread(
                chat: chat, seq: thread, text: item.text, clientID: item.clientID, via: item.via, alsoToChat: item.alsoToChat)
        }
        guard item.thread == nil else { throw ParleyError(.invalidArgument, "a thread's message goes to a chat") }
        return try await sendMessage(to: item.recipient, text: item.text, clientID: item.clientID, via: item.via, replyTo: item.replyTo)
    }

    /// One `send` after another.
    public func sendMessages(_ batch: [OutgoingText]) async -> SentBatch {
        var sent: [Message] = []
        for item in batch {
            do {
                sent.append(try await send(item))
            } catch {
                return SentBatch(sent: sent, failure: ParleyError(error))
            }
        }
        return SentBatch(sent: sent, failure: nil)
    }
}
