/// A file's name as Parley keeps it and writes it: one path component that shows what it
/// is. A sender chooses it, so it may try to hide its end (`\u{202E}txt.exe`), hide
/// itself (`.bashrc`), point at a home folder (`~`, `~root`) or name a device (`CON`).
///
/// ```swift
/// FileName.cleaned("~root")            // "root"
/// FileName.cleaned("\u{202E}txt.exe")  // "txt.exe"
/// FileName.cleaned("..")               // nil
/// ```
public enum FileName {
    /// The longest name, in UTF-8 bytes (what file systems take).
    public static let maxBytes = 255

    /// `name` cleaned: control, direction-changing and invisible characters dropped; `/`
    /// and `\` made `_`; leading dots, spaces and `~` and trailing dots and spaces taken
    /// off; a name systems reserve for devices (`CON`, `NUL`, `COM1`…) given a leading
    /// `_`; cut to `maxBytes` at a character's end. Nil when nothing is left.
    public static func cleaned(_ name: String?) -> String? {
        guard let name else { return nil }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars where !Limits.isControl(scalar) && !Limits.isInvisible(scalar) {
            let scalar: Unicode.Scalar = scalar == "/" || scalar == "\\" ? "_" : scalar
            if kept.isEmpty, scalar == "." || scalar == "~" || scalar.properties.isWhitespace { continue }
            bytes += UTF8.width(scalar)
            guard bytes <= maxBytes - 1 else { break }
            kept.append(scalar)
        }
        while let last = kept.last, last == "." || last.properties.isWhitespace { kept.removeLast() }
        guard !kept.isEmpty else { return nil }
        let cleaned = String(kept)
        return isReserved(cleaned) ? "_" + cleaned : cleaned
    }

    /// Names Windows keeps for devices, with or without an extension, in any case.
    static func isReserved(_ name: String) -> Bool {
        let stem = name.split(separator: ".", maxSplits: 1).first.map { $0.uppercased() } ?? ""
        if ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].contains(stem) { return true }
        guard stem.count == 4, stem.hasPrefix("COM") || stem.hasPrefix("LPT"), let digit = stem.last else { return false }
        return ("0"..."9").contains(digit)
    }
}
