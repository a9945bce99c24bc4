/// The wire name of every request a client can make: one per `ChatService` verb, plus
/// `ping`. Each is declared with its argument and result types in `OpDeclarations`
/// (`op.declaration`); docs/protocol.md shows each with an example exchange.
public enum Op: String, CaseIterable, Sendable {
    case register, signIn = "sign_in", requestCode = "request_code", signInCode = "sign_in_code", signInToken = "sign_in_token", resume,
        signOut = "sign_out", changePassword = "change_password"
    case me, updateProfile = "update_profile", setAvatar = "set_avatar", searchUsers = "search_users", user
    case send, history, search, markRead = "mark_read", seenBy = "seen_by"
    case chats, chat, directChat = "direct_chat", deleteChat = "delete_chat"
    case createGroup = "create_group", group, joinGroup = "join_group", join, invite, publicGroups = "public_groups"
    case createInvite = "create_invite", sendInvite = "send_invite", invitations, revokeInvite = "revoke_invite"
    case leave, members, kick, setRole = "set_role", groups
    case setViewing = "set_viewing", online
    case createBot = "create_bot", bots, createSignupCode = "create_signup_code", signupCodes = "signup_codes"
    case revokeSignupCode = "revoke_signup_code"
    case createHook = "create_hook", createOutgoingHook = "create_outgoing_hook", hooks, revokeHook = "revoke_hook"
    case signInBot = "sign_in_bot", createBotToken = "create_bot_token", botTokens = "bot_tokens", revokeBotToken = "revoke_bot_token"
    case setBotCommands = "set_bot_commands", chatCommands = "chat_commands"
    case remind, reminders, cancelReminder = "cancel_reminder"
    case report, reports, resolveReport = "resolve_report"
    case ignore, unignore, ignored, setNotify = "set_notify"
    case suspend, reinstate, suspensions, banServer = "ban_server", unbanServer = "unban_server", serverBans = "server_bans"
    case redact, audit, deleteAccount = "delete_account", eraseAccount = "erase_account", disconnect, wallops
    case exportAccount = "export_account"
    case editMessage = "edit_message", deleteMessage = "delete_message", react, unreact, mentions, typing
    case setTopic = "set_topic", setGroupRules = "set_group_rules", ban, unban, bans
    case setAway = "set_away", back, hideActivity = "hide_activity", activity, sessions, revokeSession = "revoke_session"
    case ircPlayback = "irc_playback", setIRCPlayback = "set_irc_playback"
    case openThread = "open_thread", thread, threads, followedThreads = "followed_threads", followThread = "follow_thread"
    case markThreadRead = "mark_thread_read"
    case ping
}
