public import Foundation

/// Durations as people write them: `500ms`, `30s`, `30m`, `2h`, `7d`, or plain seconds;
/// the shell and the IRC gateway read them alike.
public enum DurationText {
    /// `90s`, `10m`, `1h30m`, `2d`: whole numbers with units, summed (each number up to
    /// six digits, so the sum stays far from overflowing); nil for anything else.
    public static func compound(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var total = 0.0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 6 else { return nil }
            } else if let unit = units[character], let value = Double(digits) {
                total += value * unit
                digits = ""
            } else {
                return nil
            }
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }

    /// How long a server ban lasts, written as for `compound`: a second up to the longest
    /// ban (`Limits.maxBanSeconds`); nil for anything else.
    public static func banLength(_ text: String) -> Duration? {
        guard let seconds = compound(text), seconds >= 1, seconds <= Double(Limits.maxBanSeconds) else { return nil }
        return .seconds(Int64(seconds))
    }
}
