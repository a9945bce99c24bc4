// libFuzzer target and property: whatever text comes in, what the sanitizer lets out
// holds no ESC, no C0 control but newline (in message mode), no DEL, no C1 control and
// no bidirectional control.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSanitizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    check(Sanitizer.line(text), newlines: false)
    check(Sanitizer.message(text), newlines: true)
    return 0
}

private func check(_ output: String, newlines: Bool) {
    for scalar in output.unicodeScalars {
        let value = scalar.value
        let allowedNewline = newlines && value == 0x0A
        let forbidden =
            (value < 0x20 && !allowedNewline) || value == 0x7F || (0x80...0x9F).contains(value)
            || [0x061C, 0x200E, 0x200F].contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        precondition(!forbidden, "the sanitizer let U+\(String(value, radix: 16)) through")
    }
}
