import ParleyCore
import _FoundationICU

/// Whether two names read alike: Unicode's confusable skeletons (UTS #39), from ICU as
/// Foundation ships it on Linux (its data is Unicode's `confusables.txt`, so no table is
/// kept here). `аlice` with a Cyrillic `а` and `alice` have one skeleton; so do `rn` and
/// `m`. Letters that are only alike in small capitals (`ᴀlice`) are not in that table.
///
/// ```swift
/// ConfusableNames.skeleton("pаypаl") == ConfusableNames.skeleton("paypal")  // true
/// ```
enum ConfusableNames {
    /// ICU's checker is safe to share once made: skeletons only read it.
    private final class Checker: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() {
            var status = U_ZERO_ERROR
            pointer = swift_uspoof_open(&status)
        }
    }

    private static let checker = Checker()

    /// The name folded for comparison (lower case, no spaces), then its skeleton; the
    /// folded name alone if ICU could not say.
    static func skeleton(_ name: String) -> String {
        let folded = name.lowercased().filter { $0 != " " }
        guard let pointer = checker.pointer, !folded.isEmpty else { return folded }
        let input = Array(folded.utf16)
        var status = U_ZERO_ERROR
        let length = swift_uspoof_getSkeleton(pointer, 0, input, Int32(input.count), nil, 0, &status)
        guard length > 0, length < 4096 else { return folded }
        var output = [UInt16](repeating: 0, count: Int(length))
        status = U_ZERO_ERROR
        let written = swift_uspoof_getSkeleton(pointer, 0, input, Int32(input.count), &output, length, &status)
        guard status.rawValue <= 0, written == length else { return folded }
        return String(decoding: output, as: UTF16.self).lowercased()
    }

    /// Each piece a handle's character becomes in a skeleton (`m` → `rn`, `1` → `l`,
    /// `r` → `r`), with the characters that become it: read from ICU for every character a
    /// handle may have, not written here.
    private static let handlePieces: [String: [Character]] = {
        var pieces: [String: [Character]] = [:]
        for scalar in (0x21...0x7E).compactMap(Unicode.Scalar.init) where Limits.isUserHandleScalar(scalar) {
            pieces[skeleton(String(scalar)), default: []].append(Character(scalar))
        }
        return pieces
    }()

    /// Other handles that read as `handle`: every spelling of its skeleton in handle
    /// characters (`mallory`, `ma11ory`, `rnallory` for one another), at most `limit`, the
    /// handle itself (in lower case) left out.
    static func lookalikeHandles(of handle: String, limit: Int = 64) -> [String] {
        let target = Array(skeleton(handle))
        let own = handle.lowercased()
        let longest = handlePieces.keys.map(\.count).max() ?? 1
        var found: [String] = []
        func spell(from index: Int, _ prefix: String) {
            guard found.count < limit else { return }
            guard index < target.count else {
                if prefix != own { found.append(prefix) }
                return
            }
            for length in 1...min(longest, target.count - index) {
                for character in handlePieces[String(target[index..<index + length])] ?? [] {
                    spell(from: index + length, prefix + String(character))
                }
            }
        }
        spell(from: 0, "")
        return found
    }
}
