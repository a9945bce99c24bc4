import Foundation
import ParleyCore

/// A message of several lines sent as one (IRCv3 `draft/multiline`): the client opens a
/// `draft/multiline` batch to a target, sends its lines as PRIVMSG (or NOTICE) in it,
/// `draft/multiline-concat` on a line that continues the one before without a line
/// break, and closes it; the whole is one message, sent when the batch closes.
struct MultilineDraft {
    /// What CAP LS offers: `max-bytes` of text, `max-lines` lines a message.
    static let maxBytes = Limits.maxTextLength
    static let maxLines = 32

    let reference: String
    let target: String
    /// The opening line's label (labeled-response): the reply to the batch carries it.
    let label: String?
    /// The opening line's tags: a `+draft/reply`, client-only tags.
    let tags: [String: String]
    var command: String?
    var text = ""
    var lines = 0
    /// The lines as the client cut them.
    var cut: [MessageLine] = []
    /// A refusal was sent: the rest of the batch is dropped until it closes.
    var refused = false

    init(reference: String, target: String, label: String?, tags: [String: String]) {
        self.reference = reference
        self.target = target
        self.label = label
        self.tags = tags.filter { $0.key.hasPrefix("+") }
    }
}

extension IRCConnection {
    /// `BATCH +REF draft/multiline TARGET` opens a message of several lines; `BATCH -REF`
    /// sends it. No other batch type comes from clients.
    func batch(_ message: IRCMessage) async throws {
        let reference = try parameter(message, 0)
        if reference.hasPrefix("+") {
            guard message.params.count > 2, message.params[1] == "draft/multiline", view.capabilities.contains(.multiline) else {
                fail("BATCH", "INVALID_TYPE", [String(reference.dropFirst()), "Only draft/multiline batches are taken"])
                return
            }
            guard multiline == nil else {
                multiline = nil
                fail("BATCH", "MULTILINE_INVALID", ["A multiline batch was already open; both are dropped"])
                return
            }
            let label = view.capabilities.contains(.labeledResponse) ? message.tags["label"] : nil
            multiline = MultilineDraft(
                reference: String(reference.dropFirst()), target: message.params[2], label: label, tags: message.tags)
            return
        }
        guard let draft = multiline, reference == "-" + draft.reference else {
            fail("BATCH", "MULTILINE_INVALID", ["No open batch \(reference.dropFirst())"])
            return
        }
        multiline = nil
        guard !draft.refused else { return }
        guard !draft.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, let command = draft.command else {
            fail("BATCH", "MULTILINE_INVALID", ["A multiline message needs some text"])
            return
        }
        try await privmsg(
            IRCMessage(tags: draft.tags, command: command, params: [draft.target, draft.text]), notice: command == "NOTICE",
            lines: draft.cut)
    }

    /// A line tagged `batch=REF`: a line of the open multiline message, or a refusal.
    func batched(_ message: IRCMessage, reference: String) {
        guard var draft = multiline, draft.reference == reference else {
            multiline = nil
            fail("BATCH", "MULTILINE_INVALID", ["No open batch \(reference)"])
            return
        }
        guard !draft.refused else { return }
        defer { multiline = draft }
        let concat = message.tags["draft/multiline-concat"] != nil
        let text = message.params.count > 1 ? message.params[1] : ""
        guard message.command == "PRIVMSG" || message.command == "NOTICE", draft.command ?? message.command == message.command else {
            draft.refused = true
            fail("BATCH", "MULTILINE_INVALID", ["A multiline message is all PRIVMSG or all NOTICE"])
            return
        }
        guard message.params.first?.lowercased() == draft.target.lowercased() else {
            draft.refused = true
            fail("BATCH", "MULTILINE_INVALID_TARGET", [draft.target, message.params.first ?? "*", "Every line goes to the batch's target"])
            return
        }
        guard !(concat && text.isEmpty) else {
            draft.refused = true
            fail("BATCH", "MULTILINE_INVALID", ["An empty line cannot continue another"])
            return
        }
        let joined = draft.lines == 0 || concat ? text : "\n" + text
        guard draft.lines < MultilineDraft.maxLines else {
            draft.refused = true
            fail("BATCH", "MULTILINE_MAX_LINES", [String(MultilineDraft.maxLines), "A multiline message has at most that many lines"])
            return
        }
        guard draft.text.utf8.count + joined.utf8.count <= MultilineDraft.maxBytes else {
            draft.refused = true
            fail("BATCH", "MULTILINE_MAX_BYTES", [String(MultilineDraft.maxBytes), "A multiline message has at most that many bytes"])
            return
        }
        draft.command = message.command
        draft.text += joined
        draft.lines += 1
        draft.cut.append(MessageLine(text: text, continues: concat))
    }
}
