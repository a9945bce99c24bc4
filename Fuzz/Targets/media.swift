// libFuzzer target: any bytes through MediaInspector (built with MediaInspector.swift;
// see scripts/fuzz.sh). A crash is a bug: every file must be taken or refused.
import ParleyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = MediaInspector.sniff(bytes)
    if let found = try? MediaInspector.inspect(bytes), found.kind == .image {
        precondition((found.width ?? 0) > 0 && (found.height ?? 0) > 0, "an image was taken without pixels")
    }
    return 0
}
