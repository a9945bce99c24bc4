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
}
