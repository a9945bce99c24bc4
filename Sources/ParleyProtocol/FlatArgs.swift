import ParleyCore

/// The arguments of a request read without `JSONDecoder`, for the ops every message
/// pays for (`send`): a frame of nothing but `id`, `op` and `args`, whose `args` is a
/// flat object of known keys, each once, with strings, whole numbers, `true`, `false`
/// or `null` as values. Anything else, a wrong type included, is left to the decoder,
/// which then decides and words the error as before: this path never refuses a frame,
/// and what it accepts it reads as the decoder would.
enum FlatArgs {
    enum Value: Equatable {
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
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        while true {
            reader.skipSpace()
            guard let key = reader.plainString(maxLength: 64), seen.insert(key).inserted else { return nil }
            reader.skipSpace()
            guard reader.take(UInt8(ascii: ":")) else { return nil }
            reader.skipSpace()
            // Every byte is read as JSON, not skipped: a frame that is not JSON is the
            // decoder's to refuse.
            switch key {
            case "args":
                guard let object = object(&reader, keys: keys) else { return nil }
                args = object
            case "id":
                guard reader.wholeNumber() != nil, reader.atEnd || FrameHead.Reader.isDelimiter(reader.peek() ?? 0) else { return nil }
            case "op":
                guard reader.plainString(maxLength: 64) != nil else { return nil }
            default:
                return nil
            }
            reader.skipSpace()
            if reader.take(UInt8(ascii: ",")) { continue }
            guard reader.take(UInt8(ascii: "}")) else { return nil }
            break
        }
        reader.skipSpace()
        return reader.atEnd ? args : nil
    }

    private static func object(_ reader: inout FrameHead.Reader, keys: Set<String>) -> [String: Value]? {
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var object: [String: Value] = [:]
        reader.skipSpace()
        if reader.take(UInt8(ascii: "}")) { return object }
        while true {
            reader.skipSpace()
            guard let key = reader.plainString(maxLength: 64), keys.contains(key), object[key] == nil else { return nil }
            reader.skipSpace()
            guard reader.take(UInt8(ascii: ":")) else { return nil }
            reader.skipSpace()
            switch reader.peek() {
            case UInt8(ascii: "\""):
                guard let text = reader.string(maxLength: maxString) else { return nil }
                object[key] = .string(text)
            case UInt8(ascii: "t"):
                guard reader.literal("true") else { return nil }
                object[key] = .bool(true)
            case UInt8(ascii: "f"):
                guard reader.literal("false") else { return nil }
                object[key] = .bool(false)
            case UInt8(ascii: "n"):
                guard reader.literal("null") else { return nil }
                object[key] = .null
            default:
                guard let number = reader.wholeNumber() else { return nil }
                if let byte = reader.peek(), !FrameHead.Reader.isDelimiter(byte) { return nil }
                object[key] = .number(number)
            }
            reader.skipSpace()
            if reader.take(UInt8(ascii: ",")) { continue }
            guard reader.take(UInt8(ascii: "}")) else { return nil }
            return object
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
    static let flatKeys: Set<String> = ["chat", "user", "text", "media", "client_id", "via", "reply_to"]

    init?(flat: [String: FlatArgs.Value]) {
        guard case .string(let text)? = flat["text"], let chat = flat.optionalNumber("chat"), let user = flat.optionalNumber("user"),
            let media = flat.optionalString("media"), let clientID = flat.optionalString("client_id"),
            let via = flat.optionalString("via"), let replyTo = flat.optionalNumber("reply_to")
        else { return nil }
        self.init(to: .chat(ChatID(0)), text: text, media: media, clientID: clientID, via: via, replyTo: replyTo)
        self.chat = chat.map { ChatID($0) }
        self.user = user.map { UserID($0) }
    }
}
