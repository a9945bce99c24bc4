import Foundation

extension Data {
    /// Lowercase hex, as notifications and `decode(…, 'hex')` carry token hashes.
    var hex: String { map { String(format: "%02x", $0) }.joined() }

    /// The bytes of `hex`, or nil when it is not an even run of hex digits.
    init?(hex: Substring) {
        guard hex.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}
