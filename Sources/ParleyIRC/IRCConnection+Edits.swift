import Foundation
import ParleyCore
import ParleyEngine

/// Edits from IRC. A client that takes `draft/message-edit` sends `EDIT`, as
/// ircv3-specifications #425 proposes it (no IRC server ships edits yet); any other
/// client may type `s/old/new/`, which corrects its last message there (docs/irc.md).
extension IRCConnection {
    /// `@draft/target-msgid=MSGID;draft/edit-text=TEXT EDIT target`: `edit_message`;
    /// refusals as FAIL EDIT with codes named as REDACT's are.
    func edit(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        guard let msgid = message.tags["draft/target-msgid"], let text = message.tags["draft/edit-text"], !text.isEmpty else {
            fail("EDIT", "INVALID_PARAMS", [target, "EDIT takes the draft/target-msgid and draft/edit-text tags"])
            return
        }
        guard let (chat, seq) = await namedMessage("EDIT", target: target, msgid: msgid) else { return }
        do {
            let edited = try await session.editMessage(chat: chat.id, seq: seq, text: text)
            echoEdit(edited, in: chat)
        } catch let error as ParleyError {
            switch error.code {
            case .forbidden: fail("EDIT", "EDIT_FORBIDDEN", [target, msgid, error.message])
            case .tooLate: fail("EDIT", "EDIT_WINDOW_EXPIRED", [target, msgid, error.message])
            case .unknownMessage: fail("EDIT", "UNKNOWN_MSGID", [target, msgid, error.message])
            case .invalidArgument: fail("EDIT", "INVALID_TEXT", [target, msgid, error.message])
            default: throw error
            }
        }
    }

    /// A line `s/old/new/` to `target`: corrects the sender's last message in that chat
    /// (among its last 50) when `old` is in it; false when it is not a correction that
    /// applies, and the line is then sent as it is.
    func correctLastMessage(to target: String, with line: String) async -> Bool {
        guard let correction = SedCorrection(line), let me = view.me, let chat = try? await historyChat(target),
            let recent = try? await session.history(chat: chat.id, limit: 50, before: nil),
            let last = recent.last(where: { $0.sender.id == me.id && $0.deletedAt == nil && $0.kind != .system }),
            let corrected = correction.applied(to: last.text),
            let edited = try? await session.editMessage(chat: chat.id, seq: last.seq, text: corrected)
        else { return false }
        // Its client showed the correction as typed: the edit line says it took.
        echoEdit(edited, in: chat, always: true)
        return true
    }

    /// The edit, to the connection that made it (with echo-message, or `always`): the
    /// engine tells everyone else.
    private func echoEdit(_ edited: Message, in chat: Chat, always: Bool = false) {
        guard always || view.capabilities.contains(.echoMessage) else { return }
        emit(view.lines(for: .messageEdited(MessageEvent(chat: chat, message: edited))))
    }
}
