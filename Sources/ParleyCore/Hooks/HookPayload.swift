import Foundation

/// What a hook posts: the message's text, and the name the sender gave itself, if any.
public struct HookPost: Hashable, Sendable {
    public var text: String
    public var username: String?
    /// Slack's `thread_ts`: the message whose thread the post goes into (as the hook's
    /// answer named it: its `seq`, or `SEQ.000000` as Slack writes a `ts`).
    public var threadTS: String?
    /// What the delivery is about (a pull request, an issue), for deliveries about the
    /// same item to go into one thread.
    public var item: HookItem?

    public init(text: String, username: String? = nil, threadTS: String? = nil, item: HookItem? = nil) {
        self.text = text
        self.username = username
        self.threadTS = threadTS
        self.item = item
    }

    /// The message `threadTS` names, or nil when it names none.
    public var threadSeq: Int64? {
        guard let threadTS else { return nil }
        let whole = threadTS.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let number = Int64(whole[0]), number > 0, whole.count == 1 || whole[1].allSatisfy({ $0 == "0" }) else { return nil }
        return number
    }
}

/// The item a hook delivery is about: a key that names it in its repository
/// (`owner/repo#42`) and the title its thread takes.
public struct HookItem: Hashable, Sendable {
    public var key: String
    public var title: String

    public init(key: String, title: String) {
        self.key = key
        self.title = title
    }
}

/// Reads what the tools that post to chat send, into one message: Slack's incoming-webhook
/// JSON (also as a form's `payload=` field), Prometheus Alertmanager's webhook JSON,
/// GitHub's deliveries (named by `X-GitHub-Event`), and plain text. Every value is
/// hostile: only strings, numbers and booleans are read where they are expected, and
/// the text is cut to a message's length.
public enum HookPayload {
    public static func post(body: [UInt8], contentType: String?, githubEvent: String?) throws(ParleyError) -> HookPost {
        let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        var json = body.first(where: { !$0.isASCIIWhitespace }) == UInt8(ascii: "{")
        var bytes = body
        if type == "application/x-www-form-urlencoded", body.starts(with: Array("payload=".utf8)) {
            let field = String(decoding: body.dropFirst(8), as: UTF8.self).replacingOccurrences(of: "+", with: " ")
            guard let decoded = field.removingPercentEncoding else {
                throw ParleyError(.invalidArgument, "the payload field is not URL-encoded")
            }
            bytes = Array(decoded.utf8)
            json = true
        }
        if githubEvent != nil || type == "application/json" { json = true }
        guard json else {
            guard let text = String(validating: body, as: UTF8.self) else { throw ParleyError(.invalidText, "the text is not UTF-8") }
            return HookPost(text: try cut(text))
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw ParleyError(.invalidArgument, "the body is JSON but not an object")
            }
            object = parsed
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(.invalidArgument, "the body is not JSON")
        }
        if let event = githubEvent {
            return HookPost(text: try cut(GitHubSummary.line(event: event, object)), item: GitHubSummary.item(event: event, object))
        }
        if object["alerts"] is [Any], object["status"] is String { return HookPost(text: try cut(AlertSummary.text(object))) }
        return HookPost(
            text: try cut(SlackText.text(object)), username: string(object["username"]).map { Sanitized.line($0, max: 32) },
            threadTS: string(object["thread_ts"]).map { Sanitized.line($0, max: 32) })
    }

    /// The text trimmed and cut to a message's length, or `empty_text`.
    public static func cut(_ text: String) throws(ParleyError) -> String {
        let trimmed = text.trimmingSpaces(newlines: true)
        guard !trimmed.isEmpty else { throw ParleyError(.emptyText, "the post has no text to show") }
        guard trimmed.count > Limits.maxTextLength else { return trimmed }
        return String(trimmed.prefix(Limits.maxTextLength - 8)) + " … (cut)"
    }

    /// A string, or a number or boolean written out; nil for anything else.
    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let flag as Bool: flag ? "true" : "false"
        case let whole as Int: String(whole)
        case let number as Double: number.isFinite ? String(number) : nil
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}

enum Sanitized {
    /// One line: control characters (newlines too) become spaces, cut to `max` characters.
    static func line(_ text: String, max: Int) -> String {
        let scalars = text.unicodeScalars.map { Limits.isControl($0) ? " " : $0 }
        var line = String(String.UnicodeScalarView(scalars)).trimmingSpaces()
        if line.count > max { line = String(line.prefix(max - 1)) + "…" }
        return line
    }
}

extension UInt8 {
    fileprivate var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
