public import Foundation
import ParleyCore

/// Durations as people write them: `500ms`, `30s`, `30m`, `2h`, `7d`, or plain seconds.
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

    static func parse(_ text: String) throws(ParleyError) -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value >= 0 { return try bounded(value * scale, text) }
        }
        if let seconds = Double(text), seconds >= 0 { return try bounded(seconds, text) }
        throw ParleyError(.usage, "'\(text)' is not a duration (like 500ms, 30s, 30m, 2h, 7d)")
    }

    private static func bounded(_ seconds: Double, _ text: String) throws(ParleyError) -> Duration {
        do { return try Limits.duration(seconds: seconds) } catch {
            throw ParleyError(.usage, "'\(text)' is too long: a duration is at most \(Limits.maxDurationDays)d")
        }
    }
}
