public import ParleyCore

/// Every op's declaration. Adding an op: its name in `Op`, its declaration here (and its
/// line in `Op.declaration`), its call in `RemoteChatService`, its recorded exchange in
/// docs/protocol.md.
public enum OpDeclarations {
    // Accounts and sessions
    public static let register = OpDeclaration(.register) { (call, args: Args.Register) in
        call.session(try await call.service.register(try args.registration()), true)
    }
    public static let signIn = OpDeclaration(.signIn) { (call, args: Args.SignIn) in
        call.session(try await call.service.signIn(login: args.login, password: args.password), true)
    }
    public static let requestCode = OpDeclaration(.requestCode) { (call, args: Args.Phone) in
        try await call.service.requestCode(phone: args.phone)
    }
    public static let signInCode = OpDeclaration(.signInCode) { (call, args: Args.PhoneCode) in
        call.session(try await call.service.signIn(phone: args.phone, code: args.code), true)
    }
    public static let signInToken = OpDeclaration(.signInToken) { (call, args: Args.IDToken) in
        call.session(try await call.service.signIn(idToken: args.idToken), true)
    }
    public static let resume = OpDeclaration(.resume) { (call, args: Args.Resume) in
        let (resumed, complete) = try await call.resume(args.token, args.after)
        return call.session(resumed, complete)
    }
    public static let signOut = OpDeclaration(.signOut) { (call, _: Empty) in
        try await call.service.signOut()
        return Empty()
    }
    public static let changePassword = OpDeclaration(.changePassword) { (call, args: Args.ChangePassword) in
        try await call.service.changePassword(current: args.current, new: args.new)
        return Empty()
    }
    public static let me = OpDeclaration(.me) { (call, _: Empty) in try await call.service.me() }
    public static let createBot = OpDeclaration(.createBot) { (call, args: Args.CreateBot) in try await call.service.createBot(args.bot) }
    public static let bots = OpDeclaration(.bots) { (call, _: Empty) in try await call.service.bots() }
    public static let createSignupCode = OpDeclaration(.createSignupCode) { (call, args: Args.CreateSignupCode) in
        try await call.service.createSignupCode(maxUses: args.maxUses, expiresIn: args.expiresInSeconds.map { .seconds($0) })
    }
    public static let signupCodes = OpDeclaration(.signupCodes) { (call, _: Empty) in try await call.service.signupCodes() }
    public static let revokeSignupCode = OpDeclaration(.revokeSignupCode) { (call, args: Args.Code) in
        try await call.service.revokeSignupCode(args.code)
        return Empty()
    }
    public static let signInBot = OpDeclaration(.signInBot) { (call, args: Args.BotTokenSecret) in
        call.session(try await call.service.signIn(botToken: args.token), true)
    }
    public static let createBotToken = OpDeclaration(.createBotToken) { (call, args: Args.CreateBotToken) in
        try await call.service.createBotToken(for: args.bot, name: args.name)
    }
    public static let botTokens = OpDeclaration(.botTokens) { (call, args: Args.Bot) in try await call.service.botTokens(for: args.bot) }
    public static let revokeBotToken = OpDeclaration(.revokeBotToken) { (call, args: Args.BotTokenID) in
        try await call.service.revokeBotToken(args.token, of: args.bot)
        return Empty()
    }
    public static let setBotCommands = OpDeclaration(.setBotCommands) { (call, args: Args.BotCommandList) in
        try await call.service.setBotCommands(args.commands)
        return Empty()
    }
    public static let chatCommands = OpDeclaration(.chatCommands) { (call, args: Args.Chat) in
        try await call.service.chatCommands(in: args.chat)
    }
    public static let remind = OpDeclaration(.remind) { (call, args: Args.Remind) in
        try await call.service.remind(args.text, at: args.at, in: args.chat)
    }
    public static let reminders = OpDeclaration(.reminders) { (call, _: Empty) in try await call.service.reminders() }
    public static let cancelReminder = OpDeclaration(.cancelReminder) { (call, args: Args.ReminderID) in
        try await call.service.cancelReminder(args.id)
        return Empty()
    }
    public static let report = OpDeclaration(.report) { (call, args: Args.ReportMessage) in
        try await call.service.report(chat: args.chat, seq: args.seq, reason: args.reason)
    }
    public static let reports = OpDeclaration(.reports) { (call, args: Args.ReportQueue) in
        try await call.service.reports(includingResolved: args.all ?? false)
    }
    public static let resolveReport = OpDeclaration(.resolveReport) { (call, args: Args.ResolveReport) in
        try await call.service.resolveReport(args.id, note: args.note)
    }
    public static let ignore = OpDeclaration(.ignore) { (call, args: Args.User) in try await call.service.ignore(args.user) }
    public static let unignore = OpDeclaration(.unignore) { (call, args: Args.User) in
        try await call.service.unignore(args.user)
        return Empty()
    }
    public static let ignored = OpDeclaration(.ignored) { (call, _: Empty) in try await call.service.ignored() }
    public static let setNotify = OpDeclaration(.setNotify) { (call, args: Args.Notify) in
        try await call.service.setNotify(args.level, in: args.chat)
        return Empty()
    }
    public static let createHook = OpDeclaration(.createHook) { (call, args: Args.CreateHook) in
        try await call.service.createHook(in: args.chat, name: args.name, signingSecret: args.signingSecret)
    }
    public static let createOutgoingHook = OpDeclaration(.createOutgoingHook) { (call, args: Args.CreateOutgoingHook) in
        try await call.service.createOutgoingHook(in: args.chat, name: args.name, url: args.url, trigger: args.trigger)
    }
    public static let hooks = OpDeclaration(.hooks) { (call, args: Args.Chat) in try await call.service.hooks(in: args.chat) }
    public static let revokeHook = OpDeclaration(.revokeHook) { (call, args: Args.HookID) in
        try await call.service.revokeHook(args.hook, in: args.chat)
        return Empty()
    }
    public static let updateProfile = OpDeclaration(.updateProfile) { (call, args: Args.Profile) in
        try await call.service.updateProfile(displayName: args.displayName)
    }
    public static let setAvatar = OpDeclaration(.setAvatar) { (call, args: Args.Avatar) in try await call.service.setAvatar(args.media) }
    public static let setAway = OpDeclaration(.setAway) { (call, args: Args.Away) in
        try await call.service.setAway(args.message)
        return Empty()
    }
    public static let back = OpDeclaration(.back) { (call, _: Empty) in
        try await call.service.back()
        return Empty()
    }
    public static let hideActivity = OpDeclaration(.hideActivity) { (call, args: Args.Hidden) in
        try await call.service.hideActivity(args.hidden)
        return Empty()
    }
    public static let ircPlayback = OpDeclaration(.ircPlayback) { (call, _: Empty) in
        Args.Playback(limit: try await call.service.ircPlayback())
    }
    public static let setIRCPlayback = OpDeclaration(.setIRCPlayback) { (call, args: Args.Playback) in
        try await call.service.setIRCPlayback(args.limit)
        return Empty()
    }
    public static let activity = OpDeclaration(.activity) { (call, args: Args.User) in try await call.service.activity(of: args.user) }
    public static let sessions = OpDeclaration(.sessions) { (call, _: Empty) in try await call.service.sessions() }
    public static let revokeSession = OpDeclaration(.revokeSession) { (call, args: Args.Session) in
        try await call.service.revokeSession(args.id)
        return Empty()
    }

    // People
    public static let searchUsers = OpDeclaration(.searchUsers) { (call, args: Args.SearchUsers) in
        try await call.service.searchUsers(args.query, limit: args.limit ?? 20, offset: args.offset ?? 0)
    }
    public static let user = OpDeclaration(.user) { (call, args: Args.Handle) in try await call.service.user(handle: args.handle) }

    // Messages
    /// With `media`, an image, video or file message whose caption is `text`.
    public static let send = OpDeclaration(.send) { (call, args: Args.Send) in
        if let thread = args.thread {
            guard args.media == nil, case .chat(let chat) = try args.recipient() else {
                throw ParleyError(.invalidArgument, "a thread's message is a text to a chat")
            }
            return try await call.service.sendToThread(
                chat: chat, seq: thread, text: args.text, clientID: args.clientID, via: args.via, alsoToChat: args.alsoToChat ?? false)
        }
        if let media = args.media {
            return try await call.service.sendMedia(
                to: try args.recipient(), media: media, caption: args.text, name: args.name, clientID: args.clientID, via: args.via)
        }
        return try await call.service.sendMessage(
            to: try args.recipient(), text: args.text, clientID: args.clientID, via: args.via, replyTo: args.replyTo)
    }
    public static let history = OpDeclaration(.history) { (call, args: Args.History) in
        try await call.service.history(chat: args.chat, flow: args.flow, limit: args.limit ?? 50, before: args.before)
    }
    public static let search = OpDeclaration(.search) { (call, args: Args.Search) in
        try await call.service.search(args.search)
    }
    public static let markRead = OpDeclaration(.markRead) { (call, args: Args.ChatSeq) in
        try await call.service.markRead(chat: args.chat, upTo: args.seq)
    }
    public static let seenBy = OpDeclaration(.seenBy) { (call, args: Args.ChatSeq) in
        try await call.service.seenBy(chat: args.chat, seq: args.seq)
    }
    public static let editMessage = OpDeclaration(.editMessage) { (call, args: Args.Edit) in
        try await call.service.editMessage(chat: args.chat, seq: args.seq, text: args.text)
    }
    public static let deleteMessage = OpDeclaration(.deleteMessage) { (call, args: Args.ChatSeq) in
        try await call.service.deleteMessage(chat: args.chat, seq: args.seq)
    }
    public static let react = OpDeclaration(.react) { (call, args: Args.Reaction) in
        try await call.service.react(chat: args.chat, seq: args.seq, emoji: args.emoji)
    }
    public static let unreact = OpDeclaration(.unreact) { (call, args: Args.Reaction) in
        try await call.service.unreact(chat: args.chat, seq: args.seq, emoji: args.emoji)
    }
    public static let mentions = OpDeclaration(.mentions) { (call, args: Args.Limit) in
        try await call.service.mentions(limit: args.limit ?? 20)
    }
    public static let typing = OpDeclaration(.typing) { (call, args: Args.Chat) in
        try await call.service.typing(in: args.chat)
        return Empty()
    }

    // Chats
    public static let chats = OpDeclaration(.chats) { (call, _: Empty) in try await call.service.chats() }
    public static let chat = OpDeclaration(.chat) { (call, args: Args.Chat) in try await call.service.chat(args.chat) }
    public static let directChat = OpDeclaration(.directChat) { (call, args: Args.User) in
        OptionalChat(chat: try await call.service.directChat(with: args.user))
    }
    public static let deleteChat = OpDeclaration(.deleteChat) { (call, args: Args.Chat) in
        try await call.service.deleteChat(args.chat)
        return Empty()
    }

    // Groups
    public static let createGroup = OpDeclaration(.createGroup) { (call, args: Args.CreateGroup) in
        try await call.service.createGroup(handle: args.handle, title: args.title, isPublic: args.isPublic ?? true)
    }
    public static let group = OpDeclaration(.group) { (call, args: Args.Handle) in try await call.service.group(handle: args.handle) }
    public static let joinGroup = OpDeclaration(.joinGroup) { (call, args: Args.JoinGroup) in
        try await call.service.joinGroup(handle: args.handle, key: args.key)
    }
    public static let join = OpDeclaration(.join) { (call, args: Args.Join) in try await call.service.join(invite: args.invite) }
    public static let invite = OpDeclaration(.invite) { (call, args: Args.Member) in
        try await call.service.invite(user: args.user, to: args.chat)
        return Empty()
    }
    public static let createInvite = OpDeclaration(.createInvite) { (call, args: Args.CreateInvite) in
        try await call.service.createInvite(chat: args.chat, maxUses: args.maxUses, expiresIn: args.expiresInSeconds.map { .seconds($0) })
    }
    public static let sendInvite = OpDeclaration(.sendInvite) { (call, args: Args.Member) in
        try await call.service.sendInvite(to: args.user, chat: args.chat)
    }
    public static let invitations = OpDeclaration(.invitations) { (call, _: Empty) in try await call.service.invitations() }
    public static let revokeInvite = OpDeclaration(.revokeInvite) { (call, args: Args.Code) in
        try await call.service.revokeInvite(code: args.code)
        return Empty()
    }
    public static let leave = OpDeclaration(.leave) { (call, args: Args.Chat) in
        try await call.service.leave(chat: args.chat)
        return Empty()
    }
    public static let members = OpDeclaration(.members) { (call, args: Args.Chat) in try await call.service.members(chat: args.chat) }
    public static let kick = OpDeclaration(.kick) { (call, args: Args.Member) in
        try await call.service.kick(user: args.user, from: args.chat)
        return Empty()
    }
    public static let setRole = OpDeclaration(.setRole) { (call, args: Args.SetRole) in
        try await call.service.setRole(args.role, for: args.user, in: args.chat)
        return Empty()
    }
    public static let setTopic = OpDeclaration(.setTopic) { (call, args: Args.Topic) in
        try await call.service.setTopic(args.topic, in: args.chat)
    }
    public static let setGroupRules = OpDeclaration(.setGroupRules) { (call, args: Args.GroupRules) in
        try await call.service.setGroupRules(in: args.chat, args.change)
    }
    public static let ban = OpDeclaration(.ban) { (call, args: Args.Ban) in
        try await call.service.ban(handle: args.handle, from: args.chat)
        return Empty()
    }
    public static let unban = OpDeclaration(.unban) { (call, args: Args.Ban) in
        try await call.service.unban(handle: args.handle, from: args.chat)
        return Empty()
    }
    public static let bans = OpDeclaration(.bans) { (call, args: Args.Chat) in try await call.service.bans(in: args.chat) }
    public static let groups = OpDeclaration(.groups) { (call, _: Empty) in try await call.service.groups() }
    public static let publicGroups = OpDeclaration(.publicGroups) { (call, args: Args.SearchUsers) in
        try await call.service.publicGroups(args.query, limit: args.limit ?? 20, offset: args.offset ?? 0)
    }

    // Presence
    public static let setViewing = OpDeclaration(.setViewing) { (call, args: Args.Viewing) in
        try await call.service.setViewing(args.chat)
        return Empty()
    }
    public static let online = OpDeclaration(.online) { (call, args: Args.Chat) in try await call.service.online(in: args.chat) }

    /// Nothing: a client checks that the connection answers.
    public static let ping = OpDeclaration(.ping) { (_, _: Empty) in Empty() }
}

extension Op {
    /// The op's declaration. The switch is exhaustive, so an op without one does not build.
    public var declaration: any AnyOpDeclaration {
        switch self {
        case .register: OpDeclarations.register
        case .signIn: OpDeclarations.signIn
        case .requestCode: OpDeclarations.requestCode
        case .signInCode: OpDeclarations.signInCode
        case .signInToken: OpDeclarations.signInToken
        case .resume: OpDeclarations.resume
        case .signOut: OpDeclarations.signOut
        case .changePassword: OpDeclarations.changePassword
        case .me: OpDeclarations.me
        case .updateProfile: OpDeclarations.updateProfile
        case .setAvatar: OpDeclarations.setAvatar
        case .searchUsers: OpDeclarations.searchUsers
        case .user: OpDeclarations.user
        case .send: OpDeclarations.send
        case .history: OpDeclarations.history
        case .search: OpDeclarations.search
        case .markRead: OpDeclarations.markRead
        case .seenBy: OpDeclarations.seenBy
        case .chats: OpDeclarations.chats
        case .chat: OpDeclarations.chat
        case .directChat: OpDeclarations.directChat
        case .deleteChat: OpDeclarations.deleteChat
        case .createGroup: OpDeclarations.createGroup
        case .group: OpDeclarations.group
        case .joinGroup: OpDeclarations.joinGroup
        case .join: OpDeclarations.join
        case .invite: OpDeclarations.invite
        case .createInvite: OpDeclarations.createInvite
        case .sendInvite: OpDeclarations.sendInvite
        case .invitations: OpDeclarations.invitations
        case .revokeInvite: OpDeclarations.revokeInvite
        case .leave: OpDeclarations.leave
        case .members: OpDeclarations.members
        case .kick: OpDeclarations.kick
        case .setRole: OpDeclarations.setRole
        case .groups: OpDeclarations.groups
        case .setViewing: OpDeclarations.setViewing
        case .online: OpDeclarations.online
        case .createBot: OpDeclarations.createBot
        case .bots: OpDeclarations.bots
        case .createSignupCode: OpDeclarations.createSignupCode
        case .signupCodes: OpDeclarations.signupCodes
        case .revokeSignupCode: OpDeclarations.revokeSignupCode
        case .signInBot: OpDeclarations.signInBot
        case .createBotToken: OpDeclarations.createBotToken
        case .botTokens: OpDeclarations.botTokens
        case .revokeBotToken: OpDeclarations.revokeBotToken
        case .setBotCommands: OpDeclarations.setBotCommands
        case .chatCommands: OpDeclarations.chatCommands
        case .remind: OpDeclarations.remind
        case .reminders: OpDeclarations.reminders
        case .cancelReminder: OpDeclarations.cancelReminder
        case .report: OpDeclarations.report
        case .reports: OpDeclarations.reports
        case .resolveReport: OpDeclarations.resolveReport
        case .ignore: OpDeclarations.ignore
        case .unignore: OpDeclarations.unignore
        case .ignored: OpDeclarations.ignored
        case .setNotify: OpDeclarations.setNotify
        case .suspend: OpDeclarations.suspend
        case .reinstate: OpDeclarations.reinstate
        case .suspensions: OpDeclarations.suspensions
        case .banServer: OpDeclarations.banServer
        case .unbanServer: OpDeclarations.unbanServer
        case .serverBans: OpDeclarations.serverBans
        case .redact: OpDeclarations.redact
        case .audit: OpDeclarations.audit
        case .disconnect: OpDeclarations.disconnect
        case .wallops: OpDeclarations.wallops
        case .deleteAccount: OpDeclarations.deleteAccount
        case .eraseAccount: OpDeclarations.eraseAccount
        case .exportAccount: OpDeclarations.exportAccount
        case .createHook: OpDeclarations.createHook
        case .createOutgoingHook: OpDeclarations.createOutgoingHook
        case .hooks: OpDeclarations.hooks
        case .revokeHook: OpDeclarations.revokeHook
        case .editMessage: OpDeclarations.editMessage
        case .deleteMessage: OpDeclarations.deleteMessage
        case .react: OpDeclarations.react
        case .unreact: OpDeclarations.unreact
        case .mentions: OpDeclarations.mentions
        case .typing: OpDeclarations.typing
        case .setTopic: OpDeclarations.setTopic
        case .setGroupRules: OpDeclarations.setGroupRules
        case .publicGroups: OpDeclarations.publicGroups
        case .ban: OpDeclarations.ban
        case .unban: OpDeclarations.unban
        case .bans: OpDeclarations.bans
        case .setAway: OpDeclarations.setAway
        case .back: OpDeclarations.back
        case .hideActivity: OpDeclarations.hideActivity
        case .activity: OpDeclarations.activity
        case .ircPlayback: OpDeclarations.ircPlayback
        case .setIRCPlayback: OpDeclarations.setIRCPlayback
        case .sessions: OpDeclarations.sessions
        case .revokeSession: OpDeclarations.revokeSession
        case .openThread: OpDeclarations.openThread
        case .thread: OpDeclarations.thread
        case .threads: OpDeclarations.threads
        case .followedThreads: OpDeclarations.followedThreads
        case .followThread: OpDeclarations.followThread
        case .markThreadRead: OpDeclarations.markThreadRead
        case .ping: OpDeclarations.ping
        }
    }
}
