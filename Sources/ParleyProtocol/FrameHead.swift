/// Finds a request frame's `id` and `op` without decoding the rest, so that the frame
/// is decoded once (as its op's arguments) instead of twice. It only answers frames it
/// reads without doubt: a JSON object whose top level holds `"id"` as a whole number and
/// `"op"` as a plain string, each once, keys without escapes. Anything else (and any
/// frame it cannot walk) is left to `JSONDecoder`, which then decides, as before. The
/// rest of the frame is only skipped here: the decode of the arguments reads all of it.
enum FrameHead {
    /// Nesting deeper than this is left to the decoder.
    private static let maxDepth = 64

    static func scan(_ frame: UnsafeRawBufferPointer) -> (id: Int64, op: String)? {
        var reader = Reader(bytes: frame)
        var id: Int64?
        var op: String?
        reader.skipSpace()
        let walked = reader.object { key, reader in
            switch key {
            case "id":
                guard id == nil, let number = reader.wholeNumber() else { return false }
                id = number
            case "op":
                guard op == nil, let name = reader.plainString(maxLength: 64) else { return false }
                op = name
            default:
                return reader.skipValue(depth: 0)
            }
            return true
        }
        reader.skipSpace()
        guard walked, reader.atEnd, let id, let op else { return nil }
        return (id, op)
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var atEnd: Bool { index >= bytes.count }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpace() {
            while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        /// An object whose keys are plain strings of at most 64 bytes: each key's value is
        /// left to `value`, which reads or skips it and says whether it could. False for
        /// anything else, or when `value` says no.
        mutating func object(_ value: (_ key: String, _ reader: inout Reader) -> Bool) -> Bool {
            guard take(UInt8(ascii: "{")) else { return false }
            skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            while true {
                skipSpace()
                guard let key = plainString(maxLength: 64) else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard value(key, &self) else { return false }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                return take(UInt8(ascii: "}"))
            }
        }

        /// A string without escapes or control characters, of at most `maxLength` bytes.
        mutating func plainString(maxLength: Int) -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while let byte = peek() {
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                guard byte != UInt8(ascii: "\\"), byte >= 0x20, index - start < maxLength else { return nil }
                index += 1
            }
            return nil
        }

        /// A string with JSON's escapes, of at most `maxLength` bytes as written: nil
        /// for anything the decoder might judge otherwise (a control character, a lone
        /// surrogate, bytes that are not UTF-8).
        mutating func string(maxLength: Int) -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var scalars = String.UnicodeScalarView()
            var plainFrom = index
            func flush(_ reader: Reader) -> Bool {
                guard plainFrom < reader.index else { return true }
                guard
                    let plain = String(validating: UnsafeRawBufferPointer(rebasing: reader.bytes[plainFrom..<reader.index]), as: UTF8.self)
                else { return false }
                scalars.append(contentsOf: plain.unicodeScalars)
                return true
            }
            while let byte = peek(), index - start <= maxLength {
                switch byte {
                case UInt8(ascii: "\""):
                    guard flush(self) else { return nil }
                    index += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    guard flush(self) else { return nil }
                    index += 1
                    guard let escape = peek() else { return nil }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let high = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(high) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low)
                            else { return nil }
                            guard let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else { return nil }
                            scalars.append(scalar)
                        } else {
                            guard let scalar = Unicode.Scalar(high) else { return nil }
                            scalars.append(scalar)
                        }
                    default: return nil
                    }
                    plainFrom = index
                default:
                    guard byte >= 0x20 else { return nil }
                    index += 1
                }
            }
            return nil
        }

        /// Four hex digits, as a `\u` escape's code unit.
        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            if let byte = peek(), !Self.isDelimiter(byte) { return false }
            return true
        }

        /// `-`, then 1 to 19 digits, that fit an `Int64`, not followed by a fraction or an
        /// exponent (which the decoder judges).
        mutating func wholeNumber() -> Int64? {
            let negative = take(UInt8(ascii: "-"))
            var value: Int64 = 0
            var digits = 0
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowSum else { return nil }
                value = sum
                digits += 1
                index += 1
            }
            guard digits > 0, digits == 1 || bytes[index - digits] != UInt8(ascii: "0") else { return nil }
            if let byte = peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
            return negative ? -value : value
        }

        /// Steps over one value: a string (escapes included), an object or array (to
        /// `maxDepth`), or a number or literal (its bytes up to the next delimiter).
        mutating func skipValue(depth: Int) -> Bool {
            guard depth < FrameHead.maxDepth, let first = peek() else { return false }
            switch first {
            case UInt8(ascii: "\""):
                index += 1
                while let byte = peek() {
                    index += 1
                    if byte == UInt8(ascii: "\\") {
                        guard !atEnd else { return false }
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        return true
                    }
                }
                return false
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = first == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipSpace()
                if take(close) { return true }
                while true {
                    skipSpace()
                    if first == UInt8(ascii: "{") {
                        guard skipValue(depth: depth + 1) else { return false }  // the key
                        skipSpace()
                        guard take(UInt8(ascii: ":")) else { return false }
                        skipSpace()
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipSpace()
                    if take(UInt8(ascii: ",")) { continue }
                    return take(close)
                }
            default:
                let start = index
                while let byte = peek(), !Self.isDelimiter(byte) { index += 1 }
                return index > start
            }
        }

        private static func isDelimiter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D: true
            default: false
            }
        }
    }
}
