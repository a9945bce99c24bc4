package import Foundation

/// Times are kept as milliseconds since 1970 in every store.
extension Date {
    /// Milliseconds since 1970, saturated at Int64's range (and 0 for NaN), so no date
    /// can trap when it is stored.
    package var storedMilliseconds: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded()
        guard !milliseconds.isNaN else { return 0 }
        if milliseconds >= 9.2e18 { return .max }
        if milliseconds <= -9.2e18 { return .min }
        return Int64(milliseconds)
    }

    /// The date of a stored time: how every store reads back `storedMilliseconds`.
    package init(storedMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
