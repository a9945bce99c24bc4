public import Foundation
public import ParleyCore

/// Arguments of each op, named as on the wire (in snake_case there).
public enum Args {
    public struct Register: Codable, Sendable {
        public var email: String
        public var password: String
        public var displayName: String?
        public var handle: String?
        public var code: String?
        /// Bot accounts once registered themselves; now their owner makes them (`create_bot`).
        public var isBot: Bool?
        public init(_ registration: Registration) {
            email = registration.email
            password = registration.password
            displayName = registration.displayName
            handle = registration.handle
            code = registration.code
        }
        public func registration() throws(ParleyError) -> Registration {
            guard isBot != true else {
                throw ParleyError(.forbidden, "a bot account is made by the signed-in user who will own it: create_bot")
            }
            return Registration(email: email, password: password, displayName: displayName, handle: handle, code: code)
        }
    }

    public struct CreateBot: Codable, Sendable {
        public var handle: String
        public var displayName: String?
        public var password: String?
        public init(_ bot: NewBot) {
            handle = bot.handle
            displayName = bot.displayName
            password = bot.password
        }
        public var bot: NewBot { NewBot(handle: handle, displayName: displayName, password: password) }
    }

    public struct CreateSignupCode: Codable, Sendable {
        public var maxUses: Int?
        public var expiresInSeconds: Int64?
        public init(maxUses: Int?, expiresIn: Duration?) {
            self.maxUses = maxUses
            self.expiresInSeconds = expiresIn?.components.seconds
        }
    }

    public struct SignIn: Codable, Sendable {
        public var login: String
        public var password: String
        public init(login: String, password: String) {
            self.login = login
            self.password = password
        }
    }

    public struct Resume: Codable, Sendable {
        public var token: String
        /// The last event position the client has: missed events after it come first.
        public var after: EventPosition?
        public init(token: String, after: EventPosition?) {
            self.token = token
            self.after = after
        }
    }

    public struct ChangePassword: Codable, Sendable {
        public var current: String
        public var new: String
        public init(current: String, new: String) {
            self.current = current
            self.new = new
        }
    }

    public struct IDToken: Codable, Sendable {
        public var idToken: String
        public init(idToken: String) { self.idToken = idToken }
    }

    public struct Phone: Codable, Sendable {
        public var phone: String
        public init(phone: String) { self.phone = phone }
    }

    public struct PhoneCode: Codable, Sendable {
        public var phone: String
        public var code: String
        public init(phone: String, code: String) {
            self.phone = phone
            self.code = code
        }
    }

    public struct Profile: Codable, Sendable {
        public var displayName: String
        public init(displayName: String) { self.displayName = displayName }
    }

    /// `search_users` and `public_groups`: a prefix of a handle (or a name, for users).
    public struct SearchUsers: Codable, Sendable {
        public var query: String
        public var limit: Int?
        public var offset: Int?
        public init(query: String, limit: Int, offset: Int) {
            self.query = query
            self.limit = limit
            self.offset = offset
        }
    }

    public struct Handle: Codable, Sendable {
        public var handle: String
        public init(handle: String) { self.handle = handle }
    }

    /// `set_avatar`: an uploaded image's id, or null to remove the avatar.
    public struct Avatar: Codable, Sendable {
        public var media: String?
        public init(media: String?) { self.media = media }
    }

    /// `send` goes to `chat`, or to `user` (creating the direct chat on the first message).
    /// With `media` (an uploaded image or video) it is an image or video message and
    /// `text` is its caption, which may be empty.
    public struct Send: Codable, Sendable {
        public var chat: ChatID?
        public var user: UserID?
        public var text: String
        public var media: String?
        /// With `media`: the file's name, as the message shows it (`MediaInfo.name`).
        public var name: String?
        public var clientID: String?
        /// The plugin sending for its user, if one is.
        public var via: String?
        /// The sequence number of the message in the same chat this one answers.
        public var replyTo: Int64?
        /// The thread it goes to (its root's seq, or any message's in it), and whether
        /// the chat's main flow shows it too.
        public var thread: Int64?
        public var alsoToChat: Bool?
        public init(
            to recipient: Recipient, text: String, media: String? = nil, name: String? = nil, clientID: String?, via: String? = nil,
            replyTo: Int64? = nil, thread: Int64? = nil, alsoToChat: Bool? = nil
        ) {
            self.replyTo = replyTo
            self.thread = thread
            self.alsoToChat = alsoToChat
            self.name = name
            switch recipient {
            case .chat(let id): chat = id
            case .user(let id): user = id
            }
            self.text = text
            self.media = media
            self.clientID = clientID
            self.via = via
        }
        public func recipient() throws -> Recipient {
            switch (chat, user) {
            case (let chat?, nil): return .chat(chat)
            case (nil, let user?): return .user(user)
            default: throw ParleyError(.invalidArgument, "send needs exactly one of chat and user")
            }
        }
    }

    /// `search`: words (may be empty when a filter is given) and the filters of
    /// `MessageSearch`; `context` defaults to 0 and `limit` to 20.
    public struct Search: Codable, Sendable {
        public var words: String?
        public var chat: ChatID?
        public var from: UserID?
        public var before: Date?
        public var after: Date?
        public var context: Int?
        public var limit: Int?
        /// Only the thread of this root, in `chat`.
        public var thread: Int64?
        public init(_ search: MessageSearch) {
            words = search.words
            chat = search.chat
            thread = search.thread
            from = search.from
            before = search.before
            after = search.after
            context = search.context == 0 ? nil : search.context
            limit = search.limit
        }

        public var search: MessageSearch {
            MessageSearch(
                words: words ?? "", chat: chat, from: from, before: before, after: after, context: context ?? 0, limit: limit ?? 20,
                thread: thread)
        }
    }

    public struct ChatSeq: Codable, Sendable {
        public var chat: ChatID
        public var seq: Int64
        public init(chat: ChatID, seq: Int64) {
            self.chat = chat
            self.seq = seq
        }
    }

    /// `edit_message`: the new text of message `seq`.
    public struct Edit: Codable, Sendable {
        public var chat: ChatID
        public var seq: Int64
        public var text: String
        public init(chat: ChatID, seq: Int64, text: String) {
            self.chat = chat
            self.seq = seq
            self.text = text
        }
    }

    /// `react` and `unreact`.
    public struct Reaction: Codable, Sendable {
        public var chat: ChatID
        public var seq: Int64
        public var emoji: String
        public init(chat: ChatID, seq: Int64, emoji: String) {
            self.chat = chat
            self.seq = seq
            self.emoji = emoji
        }
    }

    public struct Limit: Codable, Sendable {
        public var limit: Int?
        public init(limit: Int) { self.limit = limit }
    }

    /// `set_topic`: null or empty clears it.
    public struct Topic: Codable, Sendable {
        public var chat: ChatID
        public var topic: String?
        public init(chat: ChatID, topic: String?) {
            self.chat = chat
            self.topic = topic
        }
    }

    /// `set_group_rules`: a rule left out stays as it is; `member_limit` 0 and an empty
    /// `key` remove those.
    public struct GroupRules: Codable, Sendable {
        public var chat: ChatID
        public var anyoneSetsTopic: Bool?
        public var anyoneMentionsAll: Bool?
        public var isPublic: Bool?
        public var moderated: Bool?
        public var memberLimit: Int?
        public var key: String?
        public var unlisted: Bool?
        /// Days the group keeps messages; 0: as long as the server does.
        public var retentionDays: Int?
        public init(chat: ChatID, _ change: GroupRulesChange) {
            unlisted = change.unlisted
            retentionDays = change.retentionDays
            self.chat = chat
            anyoneSetsTopic = change.anyoneSetsTopic
            anyoneMentionsAll = change.anyoneMentionsAll
            isPublic = change.isPublic
            moderated = change.moderated
            memberLimit = change.memberLimit
            key = change.key
        }

        public var change: GroupRulesChange {
            GroupRulesChange(
                anyoneSetsTopic: anyoneSetsTopic, anyoneMentionsAll: anyoneMentionsAll, isPublic: isPublic, moderated: moderated,
                memberLimit: memberLimit, key: key, unlisted: unlisted, retentionDays: retentionDays)
        }
    }

    /// `ban`, `unban`: a handle, taken or not.
    public struct Ban: Codable, Sendable {
        public var handle: String
        public var chat: ChatID
        public init(handle: String, chat: ChatID) {
            self.handle = handle
            self.chat = chat
        }
    }

    /// `join_group`: the key, for a group that has one.
    public struct JoinGroup: Codable, Sendable {
        public var handle: String
        public var key: String?
        public init(handle: String, key: String?) {
            self.handle = handle
            self.key = key
        }
    }

    public struct Away: Codable, Sendable {
        public var message: String?
        public init(message: String?) { self.message = message }
    }

    public struct Hidden: Codable, Sendable {
        public var hidden: Bool
        public init(hidden: Bool) { self.hidden = hidden }
    }

    /// A user's bound on IRC playback: nil for the server's, 0 for none.
    public struct Playback: Codable, Sendable {
        public var limit: Int?
        public init(limit: Int?) { self.limit = limit }
    }

    public struct Session: Codable, Sendable {
        public var id: String
        public init(id: String) { self.id = id }
    }

    public struct Chat: Codable, Sendable {
        public var chat: ChatID
        public init(chat: ChatID) { self.chat = chat }
    }

    public struct User: Codable, Sendable {
        public var user: UserID
        public init(user: UserID) { self.user = user }
    }

    public struct CreateGroup: Codable, Sendable {
        public var handle: String
        public var title: String?
        public var isPublic: Bool?
        public init(handle: String, title: String?, isPublic: Bool) {
            self.handle = handle
            self.title = title
            self.isPublic = isPublic
        }
    }

    public struct Join: Codable, Sendable {
        public var invite: String
        public init(invite: String) { self.invite = invite }
    }

    public struct Member: Codable, Sendable {
        public var user: UserID
        public var chat: ChatID
        public init(user: UserID, chat: ChatID) {
            self.user = user
            self.chat = chat
        }
    }

    public struct CreateInvite: Codable, Sendable {
        public var chat: ChatID
        public var maxUses: Int?
        public var expiresInSeconds: Int64?
        public init(chat: ChatID, maxUses: Int?, expiresIn: Duration?) {
            self.chat = chat
            self.maxUses = maxUses
            self.expiresInSeconds = expiresIn?.components.seconds
        }
    }

    public struct Code: Codable, Sendable {
        public var code: String
        public init(code: String) { self.code = code }
    }

    public struct SetRole: Codable, Sendable {
        public var user: UserID
        public var chat: ChatID
        public var role: Role
        public init(user: UserID, chat: ChatID, role: Role) {
            self.user = user
            self.chat = chat
            self.role = role
        }
    }

    public struct Viewing: Codable, Sendable {
        public var chat: ChatID?
        public init(chat: ChatID?) { self.chat = chat }
    }
}
