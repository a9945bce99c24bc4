/// An IPv4 or IPv6 address range in CIDR form (`203.0.113.0/24`, `2001:db8::/32`); a
/// bare address is a range of one. Parsed by hand, so any text is safe to give it: a
/// malformed one is nil, never a trap. An IPv4 address seen as IPv6 (`::ffff:1.2.3.4`)
/// matches IPv4 ranges.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), with the bits past `prefix` cleared.
    public let bytes: [UInt8]
    public let prefix: Int

    public init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.address(String(parts[0])) else { return nil }
        let width = address.count * 8
        var prefix = width
        if parts.count == 2 {
            guard let bits = Int(parts[1]), parts[1].utf8.count <= 3, (0...width).contains(bits) else { return nil }
            prefix = bits
        }
        self.prefix = prefix
        self.bytes = Self.masked(address, prefix: prefix)
    }

    /// Whether `address` (as a connection reports it) is in the range; "unknown" is in none.
    public func contains(_ address: String) -> Bool {
        guard var found = Self.address(address) else { return false }
        if found.count == 16, bytes.count == 4, found.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) {
            found = Array(found.suffix(4))
        }
        guard found.count == bytes.count else { return false }
        return Self.masked(found, prefix: prefix) == bytes
    }

    public var description: String {
        let address: String
        if bytes.count == 4 {
            address = bytes.map(String.init).joined(separator: ".")
        } else {
            address = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return prefix == bytes.count * 8 ? address : "\(address)/\(prefix)"
    }

    private static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefix - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xFF >> UInt8(kept))
        }
    }

    /// The bytes of an IPv4 or IPv6 address (a zone like `%eth0` is dropped).
    static func address(_ text: String) -> [UInt8]? {
        let text = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        if !text.contains(":") { return ipv4(Substring(text)) }
        return ipv6(text)
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = UInt8(part) else {
                return nil
            }
            bytes.append(value)
        }
        return bytes
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        var halves: [String] = []
        var rest = Substring(text)
        while let index = rest.firstRange(of: "::") {
            halves.append(String(rest[..<index.lowerBound]))
            rest = rest[index.upperBound...]
        }
        halves.append(String(rest))
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let four = ipv4(piece) else { return nil }
                    bytes += four
                    continue
                }
                guard (1...4).contains(piece.utf8.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
