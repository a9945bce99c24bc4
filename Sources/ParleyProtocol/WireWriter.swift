public import Foundation
public import ParleyCore

/// The wire's JSON written by hand for the frames a server sends most: a message event
/// to every member, the reply to a send, a page of history. `Wire.encoder()` takes
/// ~33 µs for one message event (nearly half of it turning keys into snake_case); this
/// takes about 2 µs. The output means the same as the encoder's (a test
/// compares the two, field by field); anything without a `WireWritable` conformance
/// still goes through the encoder.
public struct WireWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the object being written has no field yet (no comma before the next).
    private var atFirstField = true

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// `{"id":ID,"ok":true,"result":VALUE}`: the reply to a request that succeeded.
    public static func reply(_ id: Int64, _ result: some WireWritable) -> [UInt8] {
        var writer = WireWriter()
        writer.object { writer in
            writer.field("id", id)
            writer.field("ok", true)
            writer.field("result", result)
        }
        return writer.bytes
    }

    /// `{"event":"message","pos":POS,"data":{...}}`, or nil for an event this writer
    /// does not know (the caller encodes those with `Wire.encoder()`).
    public static func eventFrame(_ frame: EventFrame) -> [UInt8]? {
        guard case .message(let event) = frame.event else { return nil }
        var writer = WireWriter()
        writer.object { writer in
            writer.field("event", frame.event.type)
            writer.field("pos", frame.pos)
            writer.field("data", event)
        }
        return writer.bytes
    }

    public mutating func object(_ fields: (inout WireWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        atFirstField = true
        fields(&self)
        bytes.append(UInt8(ascii: "}"))
        // The object was the value of a field (or an array element) of its parent.
        atFirstField = false
    }

    public mutating func field(_ name: StaticString, _ value: some WireWritable) {
        key(name)
        value.write(to: &self)
    }

    /// Writes the field only when there is a value, as the encoder does for optionals.
    public mutating func field(_ name: StaticString, _ value: (some WireWritable)?) {
        guard let value else { return }
        field(name, value)
    }

    fileprivate mutating func key(_ name: StaticString) {
        if !atFirstField { bytes.append(UInt8(ascii: ",")) }
        atFirstField = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func digits(of value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(of: value.magnitude)
    }

    mutating func digits(of value: UInt64) {
        Wire.appendDigits(of: value, to: &bytes)
    }

    mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func date(_ date: Date) {
        bytes.append(UInt8(ascii: "\""))
        Wire.appendText(of: date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func array(_ elements: some Collection<some WireWritable>) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element.write(to: &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string: quotes, backslashes and control characters escaped, everything
    /// else as its UTF-8 bytes. A string with nothing to escape (most texts, handles
    /// and names) is copied in one go.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            if !utf8.contains(where: Self.needsEscape) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { escaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func escaped(_ byte: UInt8) {
        guard Self.needsEscape(byte) else {
            bytes.append(byte)
            return
        }
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }
}

/// A value the wire writer can write without the encoder.
public protocol WireWritable {
    func write(to writer: inout WireWriter)
}

extension Int64: WireWritable {
    public func write(to writer: inout WireWriter) { writer.digits(of: self) }
}

extension UInt64: WireWritable {
    public func write(to writer: inout WireWriter) { writer.digits(of: self) }
}

extension Int: WireWritable {
    public func write(to writer: inout WireWriter) { writer.digits(of: Int64(self)) }
}

extension Bool: WireWritable {
    public func write(to writer: inout WireWriter) { writer.boolean(self) }
}

extension String: WireWritable {
    public func write(to writer: inout WireWriter) { writer.string(self) }
}

extension Date: WireWritable {
    public func write(to writer: inout WireWriter) { writer.date(self) }
}

extension Array: WireWritable where Element: WireWritable {
    public func write(to writer: inout WireWriter) { writer.array(self) }
}

extension RawRepresentable where Self: WireWritable, RawValue == Int64 {
    public func write(to writer: inout WireWriter) { writer.digits(of: rawValue) }
}

extension RawRepresentable where Self: WireWritable, RawValue == String {
    public func write(to writer: inout WireWriter) { writer.string(rawValue) }
}

extension UserID: WireWritable {}
extension ChatID: WireWritable {}
extension MessageID: WireWritable {}
extension ChatKind: WireWritable {}
extension MessageKind: WireWritable {}
extension MediaKind: WireWritable {}

extension UserRef: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("id", id)
            writer.field("handle", handle)
            writer.field("display_name", displayName)
            writer.field("is_bot", isBot)
        }
    }
}

extension Chat: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("id", id)
            writer.field("kind", kind)
            writer.field("handle", handle)
            writer.field("title", title)
            writer.field("is_public", isPublic)
            writer.field("participants", participants)
            writer.field("created_at", createdAt)
            writer.field("topic", topic)
            if anyoneSetsTopic { writer.field("anyone_sets_topic", true) }
            if anyoneMentionsAll { writer.field("anyone_mentions_all", true) }
            if moderated { writer.field("moderated", true) }
            if let memberLimit { writer.field("member_limit", memberLimit) }
            if keyed { writer.field("keyed", true) }
            if unlisted { writer.field("unlisted", true) }
            if let retentionDays { writer.field("retention_days", retentionDays) }
            if let serverRetentionDays { writer.field("server_retention_days", serverRetentionDays) }
        }
    }
}

extension MediaInfo: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("id", id)
            writer.field("kind", kind)
            writer.field("type", type)
            writer.field("size", size)
            writer.field("width", width)
            writer.field("height", height)
            writer.field("name", name)
        }
    }
}

extension Message: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in writeFields(to: &writer) }
    }

    /// The message's fields, inside an object the caller writes (a search hit adds its
    /// context beside them).
    func writeFields(to writer: inout WireWriter) {
        writer.field("id", id)
        writer.field("chat_id", chatID)
        writer.field("seq", seq)
        writer.field("sender", sender)
        writer.field("kind", kind)
        writer.field("text", text)
        writer.field("media", media)
        writer.field("sent_at", sentAt)
        writer.field("client_id", clientID)
        if let via { writer.field("via", via) }
        if !mentions.isEmpty { writer.field("mentions", mentions) }
        if mentionsEveryone { writer.field("mentions_everyone", true) }
        writer.field("reply_to", replyTo)
        if !reactions.isEmpty { writer.field("reactions", reactions) }
        writer.field("edited_at", editedAt)
        writer.field("deleted_at", deletedAt)
        if let thread { writer.field("thread", thread) }
        if alsoToChat { writer.field("also_to_chat", true) }
        if let threadHead { writer.field("thread_head", threadHead) }
        if let threadTitle { writer.field("thread_title", threadTitle) }
    }
}

/// `{"title":"deploy friday","replies":3,"last_activity":"…"}`, as `ThreadHead`'s Codable form.
extension ThreadHead: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("title", title)
            writer.field("replies", replies)
            writer.field("last_activity", lastActivity)
        }
    }
}

/// `{"kind":"hook","name":"CI","username":"Release Bot"}`, as `Provenance`'s Codable form.
extension Provenance: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("kind", kind)
            writer.field("name", name)
            writer.field("username", username)
        }
    }
}

extension SearchHit: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            message.writeFields(to: &writer)
            guard !before.isEmpty || !after.isEmpty else { return }
            writer.key("context")
            writer.object { writer in
                writer.field("before", before)
                writer.field("after", after)
            }
        }
    }
}

extension MessageEvent: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("chat", chat)
            writer.field("message", message)
            writer.field("by", by)
        }
    }
}

extension ReplyQuote: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("seq", seq)
            writer.field("sender", sender)
            writer.field("text", text)
            writer.field("deleted", deleted)
        }
    }
}

extension ReactionCount: WireWritable {
    public func write(to writer: inout WireWriter) {
        writer.object { writer in
            writer.field("emoji", emoji)
            writer.field("count", count)
        }
    }
}
