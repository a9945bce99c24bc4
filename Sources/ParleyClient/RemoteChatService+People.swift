public import Foundation
public import ParleyCore
import ParleyProtocol

/// Reminders, reports, ignoring and bots' chat commands, over the link.
extension RemoteChatService {
    public func remind(_ text: String, at due: Date, in chat: ChatID?) async throws -> Reminder {
        try await link.call(OpDeclarations.remind, Args.Remind(text: text, at: due, chat: chat))
    }

    public func reminders() async throws -> [Reminder] {
        try await link.call(OpDeclarations.reminders, Empty())
    }

    public func cancelReminder(_ id: Int64) async throws {
        _ = try await link.call(OpDeclarations.cancelReminder, Args.ReminderID(id: id))
    }

    public func report(chat: ChatID, seq: Int64, reason: String?) async throws -> Report {
        try await link.call(OpDeclarations.report, Args.ReportMessage(chat: chat, seq: seq, reason: reason))
    }

    public func reports(includingResolved: Bool) async throws -> [Report] {
        try await link.call(OpDeclarations.reports, Args.ReportQueue(all: includingResolved))
    }

    public func resolveReport(_ id: Int64, note: String?) async throws -> Report {
        try await link.call(OpDeclarations.resolveReport, Args.ResolveReport(id: id, note: note))
    }

    public func ignore(_ user: UserID) async throws -> UserRef {
        try await link.call(OpDeclarations.ignore, Args.User(user: user))
    }

    public func unignore(_ user: UserID) async throws {
        _ = try await link.call(OpDeclarations.unignore, Args.User(user: user))
    }

    public func ignored() async throws -> [UserRef] {
        try await link.call(OpDeclarations.ignored, Empty())
    }

    public func setBotCommands(_ commands: [ChatCommand]) async throws {
        _ = try await link.call(OpDeclarations.setBotCommands, Args.BotCommandList(commands: commands))
    }

    public func chatCommands(in chat: ChatID) async throws -> [BotCommands] {
        try await link.call(OpDeclarations.chatCommands, Args.Chat(chat: chat))
    }

    public func setNotify(_ level: NotifyLevel?, in chat: ChatID) async throws {
        _ = try await link.call(OpDeclarations.setNotify, Args.Notify(chat: chat, level: level))
    }
}
