/// The IRCv3 capabilities the gateway offers (CAP LS), by name: a check for one is
/// `capabilities.contains(.messageTags)`, which a misspelling cannot compile to.
enum IRCCapability: String, CaseIterable, Sendable, Comparable {
    case sasl
    case serverTime = "server-time"
    case messageTags = "message-tags"
    case echoMessage = "echo-message"
    case accountTag = "account-tag"
    case extendedJoin = "extended-join"
    case awayNotify = "away-notify"
    case multiPrefix = "multi-prefix"
    case batch
    case chathistory = "draft/chathistory"
    case labeledResponse = "labeled-response"
    case userhostInNames = "userhost-in-names"
    case readMarker = "draft/read-marker"
    case extendedMonitor = "extended-monitor"
    case messageRedaction = "draft/message-redaction"
    case messageEdit = "draft/message-edit"
    case multiline = "draft/multiline"
    case setname
    case accountNotify = "account-notify"

    /// What CAP LS 302 says after the name (`sasl=PLAIN`).
    var value: String? {
        switch self {
        case .sasl: "PLAIN"
        case .multiline: "max-bytes=\(MultilineDraft.maxBytes),max-lines=\(MultilineDraft.maxLines)"
        default: nil
        }
    }

    /// The name with its value, as CAP LS 302 lists it.
    var offered: String { value.map { "\(rawValue)=\($0)" } ?? rawValue }

    static func < (a: IRCCapability, b: IRCCapability) -> Bool { a.rawValue < b.rawValue }
}
