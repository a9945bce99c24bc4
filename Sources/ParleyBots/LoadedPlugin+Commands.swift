import Foundation
import ParleyCore

/// Who may run a plugin's commands in chats (`!NAME`), checked before the plugin sees
/// the line, and what the server lists for `/help` there.
extension LoadedPlugin {
    /// Whether the plugin may be handed `message`: yes unless it runs a declared command
    /// its sender may not. A person refused is told so in a direct message (once a
    /// rate-limit token allows: never a flood), a bot or another plugin is not (so a
    /// refusal never starts a loop); either way the plugin never sees the line.
    func mayRun(_ message: MessageEvent, live: Bool) async -> Bool {
        let text = message.message.text
        guard text.hasPrefix("!"), !hello.commands.isEmpty else { return true }
        let name = text.dropFirst().prefix { !$0.isWhitespace }.lowercased()
        guard let command = hello.commands.first(where: { $0.name == name })?.chatCommand, !command.isOpen else { return true }
        let sender = message.message.sender
        let role = try? await service.members(chat: message.chat.id).first { $0.user.id == sender.id }?.role
        let owner = me.isBot ? me.owner : me.handle
        let isGroup = message.chat.kind == .group
        if command.permits(role: isGroup ? role : nil, handle: sender.handle, isBotOwner: owner?.lowercased() == sender.handle.lowercased())
        {
            return true
        }
        // Not handed over, but past: a restart does not offer it again.
        noteHanded(message)
        let automated = sender.isBot || message.message.via != nil
        if live, !automated, limiter.allow() {
            let place = isGroup ? "#" + (message.chat.handle ?? "this group") : "this chat"
            let refusal = "!\(name) is for \(command.allowedText(in: place)) only"
            let (service, via) = (service, via)
            Task { _ = try? await service.sendMessage(to: .user(sender.id), text: refusal, clientID: nil, via: via, replyTo: nil) }
        }
        return false
    }

    /// Tells the server the commands this bot account answers in chats, with those of
    /// the host's other plugins acting as the same account (nothing for a plugin acting
    /// as its user: its commands are the shell's).
    func publishCommands() async {
        guard me.isBot else { return }
        do { try await service.setBotCommands(host.declared.commands(of: me.id).map(\.chatCommand)) } catch {
            runtime.log(name, "its commands could not be listed for /help: \(ParleyError(error).message)")
        }
    }
}
