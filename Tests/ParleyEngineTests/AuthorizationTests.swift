import Foundation
import ParleyCore
import ParleyEngine
import ParleyStore
import ParleyTesting
import Testing

/// Every verb that touches a group, called by each kind of caller, against a fresh
/// private group: allowed or denied with the expected code, and a denied call leaves
/// the stored state exactly as it was.
@Suite(.timeLimit(.minutes(10))) struct AuthorizationTests {
    enum Caller: String, CaseIterable, Sendable {
        case signedOut, nonMember, member, admin, owner
    }

    enum Outcome: Sendable, CustomStringConvertible {
        case allow
        case deny(ErrorCode)
        var description: String {
            switch self {
            case .allow: "allow"
            case .deny(let code): "deny(\(code))"
            }
        }
    }

    struct Fixture: Sendable {
        let world: TestWorld
        let sessions: [Caller: EngineSession]
        let group: ChatID
        let invite: String
        let target: UserID  // not a member yet
        let extra: UserID  // a plain member to kick or promote
        let users: [UserID]
        let file: String  // a file the owner sent to the group, as message 2
        let hook: Int64  // the owner's hook on the group
        let bot: UserID  // a bot account the group's owner owns
        let botToken: Int64  // one of its tokens

        /// A new file on disk for a caller to upload.
        func localFile(_ text: String) throws -> URL {
            let url = world.folder.appendingPathComponent("local-\(UUID().uuidString).txt")
            try Data(text.utf8).write(to: url)
            return url
        }

        static func make(on kind: StoreKind) async throws -> Fixture {
            let world = try await TestWorld(on: kind)
            let owner = try await world.signUp("owner")
            let group = try await owner.createGroup(handle: "vault", title: "Vault", isPublic: false)
            let admin = try await world.signUp("ada")
            let member = try await world.signUp("member")
            let extra = try await world.signUp("extra")
            let outsider = try await world.signUp("outsider")
            let target = try await world.signUp("target")
            for session in [admin, member, extra] { try await owner.invite(user: try await session.me().id, to: group.id) }
            try await owner.setRole(.admin, for: try await admin.me().id, in: group.id)
            _ = try await owner.sendMessage(to: .chat(group.id), text: "the first message", clientID: nil)
            let notes = world.folder.appendingPathComponent("notes.txt")
            try Data("the owner's notes\n".utf8).write(to: notes)
            let file = try await owner.uploadMedia(from: notes, kind: .file, for: .chat(group.id), progress: nil)
            _ = try await owner.sendMedia(to: .chat(group.id), media: file.id, caption: "", name: "notes.txt", clientID: nil, via: nil)
            let hook = try await owner.createHook(in: group.id, name: "deploys", signingSecret: nil).hook.id
            let bot = try await owner.createBot(NewBot(handle: "owners-bot", displayName: "Bot", password: "bot-pass-1234"))
            let botToken = try await owner.createBotToken(for: bot.id, name: "ci").token.id
            let invite = try await owner.createInvite(chat: group.id, maxUses: 5, expiresIn: nil).code
            var users: [UserID] = []
            for session in [owner, admin, member, extra, outsider, target] { users.append(try await session.me().id) }
            return Fixture(
                world: world,
                sessions: [.signedOut: world.engine.connect(), .nonMember: outsider, .member: member, .admin: admin, .owner: owner],
                group: group.id, invite: invite, target: try await target.me().id, extra: try await extra.me().id, users: users,
                file: file.id, hook: hook, bot: bot.id, botToken: botToken)
        }

        /// Everything a verb could change, read straight from the store.
        func snapshot() async throws -> String {
            let store = world.store
            var lines: [String] = []
            lines.append("members \(try await store.members(of: group).map { "\($0.user.handle):\($0.role)" })")
            lines.append(
                "history \(try await store.history(chat: group, after: 0, before: nil, limit: 100).map { "\($0.seq):\($0.text):\($0.reactions):\(String(describing: $0.editedAt)):\(String(describing: $0.deletedAt))" })"
            )
            let chat = try await store.chat(id: group)
            lines.append(
                "chat \(String(describing: chat?.topic)) \(String(describing: chat?.anyoneSetsTopic)) \(String(describing: chat?.anyoneMentionsAll))"
            )
            let invite = try await store.invite(code: invite)
            lines.append("invite \(String(describing: invite?.usesLeft)) \(String(describing: invite?.revoked))")
            lines.append("readers \(try await store.readers(chat: group, atLeast: 0).map { "\($0.user.handle):\($0.seq)" })")
            for user in users {
                let list = try await store.chatList(for: user)
                lines.append("chats \(user) \(list.map { "\($0.chat.id):\($0.unread)" })")
                let membership = try await store.membership(of: user, in: group)
                lines.append("membership \(user) \(String(describing: membership))")
            }
            lines.append("users \(try await store.searchUsers(prefix: "", limit: 100, offset: 0).count)")
            lines.append("hooks \(try await store.hooks(of: group).map { "\($0.id):\($0.name)" })")
            lines.append("bot tokens \(try await store.botTokens(of: bot).map { "\($0.id):\($0.name)" })")
            lines.append("bot commands \(try await store.botCommands(of: bot).map(\.name))")
            lines.append("reports \(try await store.reports(includingResolved: true, limit: 10).map { "\($0.id):\($0.seq)" })")
            lines.append("suspensions \(try await store.suspensions().map(\.user.handle))")
            lines.append("server bans \(try await store.serverBans().map(\.pattern))")
            lines.append("audit \(try await store.audit(chat: nil, actor: nil, before: nil, limit: 100).map(\.id))")
            return lines.joined(separator: "\n")
        }
    }

    struct Verb: Sendable, CustomStringConvertible {
        let name: String
        let expected: [Caller: Outcome]
        let call: @Sendable (EngineSession, Fixture) async throws -> Void
        var description: String { name }
    }

    /// Members read and write; non-members are refused; managing is for owner and admins.
    static func membersOnly(_ name: String, _ call: @escaping @Sendable (EngineSession, Fixture) async throws -> Void) -> Verb {
        Verb(name: name, expected: [.nonMember: .deny(.unknownChat), .member: .allow, .admin: .allow, .owner: .allow], call: call)
    }

    static func managersOnly(_ name: String, _ call: @escaping @Sendable (EngineSession, Fixture) async throws -> Void) -> Verb {
        Verb(
            name: name, expected: [.nonMember: .deny(.unknownChat), .member: .deny(.forbidden), .admin: .allow, .owner: .allow], call: call)
    }

    static func operatorsOnly(_ name: String, _ call: @escaping @Sendable (EngineSession, Fixture) async throws -> Void) -> Verb {
        Verb(
            name: name,
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .deny(.forbidden)],
            call: call)
    }

    static let verbs: [Verb] = [
        membersOnly("history") { s, f in _ = try await s.history(chat: f.group, limit: 10, before: nil) },
        membersOnly("send") { s, f in _ = try await s.sendMessage(to: .chat(f.group), text: "hello", clientID: nil) },
        membersOnly("members") { s, f in _ = try await s.members(chat: f.group) },
        membersOnly("online") { s, f in _ = try await s.online(in: f.group) },
        membersOnly("markRead") { s, f in _ = try await s.markRead(chat: f.group, upTo: 1) },
        membersOnly("seenBy") { s, f in _ = try await s.seenBy(chat: f.group, seq: 1) },
        membersOnly("searchInChat") { s, f in _ = try await s.search("first", in: f.group, limit: 10) },
        membersOnly("chat") { s, f in _ = try await s.chat(f.group) },
        membersOnly("setViewing") { s, f in try await s.setViewing(f.group) },
        membersOnly("deleteChat") { s, f in try await s.deleteChat(f.group) },
        membersOnly("leave") { s, f in try await s.leave(chat: f.group) },
        membersOnly("reply") { s, f in _ = try await s.reply(to: 1, in: f.group, text: "indeed", clientID: nil) },
        membersOnly("react") { s, f in _ = try await s.react(chat: f.group, seq: 1, emoji: "👍") },
        membersOnly("unreact") { s, f in _ = try await s.unreact(chat: f.group, seq: 1, emoji: "👍") },
        membersOnly("typing") { s, f in try await s.typing(in: f.group) },
        membersOnly("uploadFileForChat") { s, f in
            _ = try await s.uploadMedia(from: try f.localFile("for the group"), kind: .file, for: .chat(f.group), progress: nil)
        },
        membersOnly("sendFile") { s, f in
            let own = try await s.uploadMedia(from: try f.localFile("mine"), kind: .file, for: nil, progress: nil)
            _ = try await s.sendMedia(to: .chat(f.group), media: own.id, caption: "", name: "mine.txt", clientID: nil, via: nil)
        },
        // Media one may not see is not there at all, so its id cannot be probed.
        Verb(name: "downloadFile", expected: [.nonMember: .deny(.unknownMedia), .member: .allow, .admin: .allow, .owner: .allow]) { s, f in
            let target = f.world.folder.appendingPathComponent("download-\(UUID().uuidString)")
            _ = try await s.downloadMedia(f.file, to: target, replace: false, progress: nil)
        },
        Verb(name: "resendFile", expected: [.nonMember: .deny(.unknownMedia), .member: .allow, .admin: .allow, .owner: .allow]) { s, f in
            _ = try await s.sendMedia(to: .chat(f.group), media: f.file, caption: "again", name: "copy.txt", clientID: nil, via: nil)
        },
        managersOnly("setTopic") { s, f in _ = try await s.setTopic("new topic", in: f.group) },
        managersOnly("setGroupRules") { s, f in _ = try await s.setGroupRules(in: f.group, anyoneSetsTopic: true, anyoneMentionsAll: true)
        },
        managersOnly("mentionEveryone") { s, f in _ = try await s.sendMessage(to: .chat(f.group), text: "@all hi", clientID: nil) },
        Verb(
            name: "editOwnersMessage",
            expected: [.nonMember: .deny(.unknownChat), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) { s, f in _ = try await s.editMessage(chat: f.group, seq: 1, text: "changed") },
        Verb(
            name: "deleteOwnersMessage",
            expected: [.nonMember: .deny(.unknownChat), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) { s, f in _ = try await s.deleteMessage(chat: f.group, seq: 1) },
        managersOnly("invite") { s, f in try await s.invite(user: f.target, to: f.group) },
        // A bot's tokens are its owner's alone (here the group's owner owns the bot).
        Verb(
            name: "createBotToken",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) {
            s, f in _ = try await s.createBotToken(for: f.bot, name: "new")
        },
        Verb(
            name: "listBotTokens",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) {
            s, f in _ = try await s.botTokens(for: f.bot)
        },
        Verb(
            name: "revokeBotToken",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) {
            s, f in try await s.revokeBotToken(f.botToken, of: f.bot)
        },
        membersOnly("report") { s, f in _ = try await s.report(chat: f.group, seq: 1, reason: "spam") },
        // The reports queue is the server's operators' (none of these callers is one).
        Verb(
            name: "reports",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .deny(.forbidden)]
        ) { s, _ in _ = try await s.reports(includingResolved: true) },
        Verb(
            name: "resolveReport",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .deny(.forbidden)]
        ) { s, _ in _ = try await s.resolveReport(1, note: "done") },
        // What the server's operators do (none of these callers is one).
        operatorsOnly("suspend") { s, f in _ = try await s.suspend(handle: "target", reason: "spam") },
        operatorsOnly("reinstate") { s, f in _ = try await s.reinstate(handle: "target") },
        operatorsOnly("suspensions") { s, _ in _ = try await s.suspensions() },
        operatorsOnly("banServer") { s, _ in _ = try await s.banServer("203.0.113.0/24", reason: nil, duration: nil) },
        operatorsOnly("banServerAccount") { s, _ in _ = try await s.banServer("@target", reason: nil, duration: nil) },
        operatorsOnly("unbanServer") { s, _ in _ = try await s.unbanServer("1") },
        operatorsOnly("serverBans") { s, _ in _ = try await s.serverBans() },
        operatorsOnly("disconnect") { s, _ in try await s.disconnect(handle: "target", reason: nil) },
        operatorsOnly("wallops") { s, _ in try await s.wallops("hello everyone") },
        operatorsOnly("exportAccount") { s, _ in _ = try await s.exportAccount(handle: "target", after: nil) },
        operatorsOnly("eraseAccount") { s, _ in try await s.eraseAccount(handle: "target", reason: nil) },
        // One's own account goes only with its password.
        Verb(
            name: "deleteAccountWrongPassword",
            expected: [
                .nonMember: .deny(.badCredentials), .member: .deny(.badCredentials), .admin: .deny(.badCredentials),
                .owner: .deny(.badCredentials),
            ]
        ) { s, _ in try await s.deleteAccount(password: "not the password") },
        operatorsOnly("redact") { s, _ in _ = try await s.redact(handle: "owner", from: nil, to: nil, reason: nil) },
        operatorsOnly("auditAll") { s, _ in _ = try await s.audit(chat: nil, actor: nil, before: nil, limit: 10) },
        managersOnly("auditGroup") { s, f in _ = try await s.audit(chat: f.group, actor: nil, before: nil, limit: 10) },
        membersOnly("chatCommands") { s, f in _ = try await s.chatCommands(in: f.group) },
        // Only a bot account declares chat commands (none of these callers is one).
        Verb(
            name: "setBotCommands",
            expected: [.nonMember: .deny(.forbidden), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .deny(.forbidden)]
        ) { s, _ in try await s.setBotCommands([ChatCommand(name: "roll")]) },
        managersOnly("createHook") { s, f in _ = try await s.createHook(in: f.group, name: "CI", signingSecret: nil) },
        managersOnly("listHooks") { s, f in _ = try await s.hooks(in: f.group) },
        Verb(
            name: "revokeHook",
            expected: [.nonMember: .deny(.unknownChat), .member: .deny(.forbidden), .admin: .allow, .owner: .allow]
        ) { s, f in try await s.revokeHook(f.hook, in: f.group) },
        managersOnly("createInvite") { s, f in _ = try await s.createInvite(chat: f.group, maxUses: nil, expiresIn: nil) },
        managersOnly("revokeInvite") { s, f in try await s.revokeInvite(code: f.invite) },
        managersOnly("kick") { s, f in try await s.kick(user: f.extra, from: f.group) },
        managersOnly("makeAdmin") { s, f in try await s.setRole(.admin, for: f.extra, in: f.group) },
        Verb(
            name: "makeOwner",
            expected: [.nonMember: .deny(.unknownChat), .member: .deny(.forbidden), .admin: .deny(.forbidden), .owner: .allow]
        ) { s, f in try await s.setRole(.owner, for: f.extra, in: f.group) },
        Verb(
            name: "group", expected: [.nonMember: .deny(.privateGroup), .member: .allow, .admin: .allow, .owner: .allow]
        ) { s, _ in _ = try await s.group(handle: "vault") },
        Verb(
            name: "joinGroup",
            expected: [
                .nonMember: .deny(.privateGroup), .member: .deny(.alreadyMember), .admin: .deny(.alreadyMember),
                .owner: .deny(.alreadyMember),
            ]
        ) { s, _ in _ = try await s.joinGroup(handle: "vault") },
        Verb(
            name: "joinWithInvite",
            expected: [.nonMember: .allow, .member: .deny(.alreadyMember), .admin: .deny(.alreadyMember), .owner: .deny(.alreadyMember)]
        ) { s, f in _ = try await s.join(invite: f.invite) },
        Verb(name: "chats", expected: [.nonMember: .allow, .member: .allow, .admin: .allow, .owner: .allow]) { s, _ in
            _ = try await s.chats()
        },
        Verb(name: "groups", expected: [.nonMember: .allow, .member: .allow, .admin: .allow, .owner: .allow]) { s, _ in
            _ = try await s.groups()
        },
    ]

    @Test(arguments: StoreKind.all, verbs)
    func everyCallerGetsTheExpectedAnswer(_ kind: StoreKind, verb: Verb) async throws {
        for caller in Caller.allCases {
            let fixture = try await Fixture.make(on: kind)
            let expected = caller == .signedOut ? .deny(.notSignedIn) : verb.expected[caller] ?? .allow
            let before = try await fixture.snapshot()
            let session = try #require(fixture.sessions[caller])
            switch expected {
            case .allow:
                do { try await verb.call(session, fixture) } catch {
                    Issue.record("\(verb.name) by \(caller): expected allow, got \(error)")
                }
            case .deny(let code):
                await expectError(code) { try await verb.call(session, fixture) }
                #expect(try await fixture.snapshot() == before, "\(verb.name) by \(caller) was denied but changed state")
            }
        }
    }
}
