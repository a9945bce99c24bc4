import ParleyCore

/// A duration in a shell command's option: an error there is a usage error.
extension DurationText {
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
