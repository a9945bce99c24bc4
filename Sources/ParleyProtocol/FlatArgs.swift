import ParleyCore

/// The arguments of a request read without `JSONDecoder`, for the ops every message
/// pays for (`send`): a frame of nothing but `id`, `op` and `args`, whose `args` is a
/// flat object of known keys, each once, with strings, whole numbers, `true`, `false`
/// or `null` as values. Anything else, a wrong type included, is left to the decoder,
/// which then decides and words the error as before: this path never refuses a frame,
/// and what it accepts it reads as the decoder would.
enum FlatArgs {
    enum Value {
        case string(String)
        case number(Int64)
        case bool(Bool)
        case null
    }

    /// The longest string value read here; longer ones go to the decoder.
    private static let maxString = 256 * 1024

    /// The frame's `args` as keys and values, if it is a request this path reads
    /// without doubt and every key is one of `keys`.
    static func scan(_ frame: UnsafeRawBufferPointer, keys: Set<String>) -> [String: Value]? {
        var reader = FrameHead.Reader(bytes: frame)
        var args: [String: Value]?
        var seen: Set<String> = []
        reader.skipSpace()
        // Every byte is read as JSON, not skipped: a frame that is not JSON is the
        // decoder's to refuse.
        let walked = reader.object { key, reader in
            guard seen.insert(key).inserted else { return false }
            switch key {
            case "args":
                args = object(&reader, keys: keys)
                return args != nil
            case "id": return reader.wholeNumber() != nil
            case "op": return reader.plainString(maxLength: 64) != nil
            default: return false
            }
        }
        reader.skipSpace()
        return walked && reader.atEnd ? args : nil
    }

    private static func object(_ reader: inout FrameHead.Reader, keys: Set<String>) -> [String: Value]? {
        var object: [String: Value] = [:]
        let walked = reader.object { key, reader in
            guard keys.contains(key), object[key] == nil, let value = value(&reader) else { return false }
            object[key] = value
            return true
        }
        return walked ? object : nil
    }

    /// A string, a whole number, `true`, `false` or `null`.
    private static func value(_ reader: inout FrameHead.Reader) -> Value? {
        switch reader.peek() {
        case UInt8(ascii: "\""): reader.string(maxLength: maxString).map { .string($0) }
        case UInt8(ascii: "t"): reader.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): reader.literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): reader.literal("null") ? .null : nil
        default: reader.wholeNumber().map { .number($0) }
        }
    }
}

/// Arguments that can be built from a flat object of known keys (see `FlatArgs`).
protocol FlatDecodable {
    /// The keys, as written on the wire.
    static var flatKeys: Set<String> { get }
    /// nil when a value has a type the decoder would refuse, or a required key is missing:
    /// the decoder then reads the frame and words the error.
    init?(flat: [String: FlatArgs.Value])
}

extension Dictionary where Key == String, Value == FlatArgs.Value {
    /// An optional string: `.some(nil)` for a missing key or `null`, nil for another type.
    func optionalString(_ key: String) -> String?? {
        switch self[key] {
        case nil, .null?: .some(nil)
        case .string(let text)?: .some(text)
        default: nil
        }
    }

    /// An optional whole number, as `optionalString`.
    func optionalNumber(_ key: String) -> Int64?? {
        switch self[key] {
        case nil, .null?: .some(nil)
        case .number(let number)?: .some(number)
        default: nil
        }
    }
}

extension Args.Send: FlatDecodable {
    static let flatKeys: Set<String> = ["chat", "user", "text", "media", "name", "client_id", "via", "reply_to"]

    init?(flat: [String: FlatArgs.Value]) {
        guard case .string(let text)? = flat["text"], let chat = flat.optionalNumber("chat"), let user = flat.optionalNumber("user"),
            let media = flat.optionalString("media"), let clientID = flat.optionalString("client_id"),
            let via = flat.optionalString("via"), let replyTo = flat.optionalNumber("reply_to"), let name = flat.optionalString("name")
        else { return nil }
        self.init(to: .chat(ChatID(0)), text: text, media: media, name: name, clientID: clientID, via: via, replyTo: replyTo)
        self.chat = chat.map { ChatID($0) }
        self.user = user.map { UserID($0) }
    }
}
