// libFuzzer target: any bytes through MediaInspector (built with MediaInspector.swift;
// see scripts/fuzz.sh). A crash is a bug: every file must be taken or refused, and any
// file is taken as a file.
import ParleyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = MediaInspector.sniff(bytes)
    if let found = try? MediaInspector.inspect(bytes), found.kind == .image {
        precondition((found.width ?? 0) > 0 && (found.height ?? 0) > 0, "an image was taken without pixels")
    }
    // As a file, only an empty one is refused, and it is never taken as media.
    do {
        let file = try MediaInspector.inspectFile(bytes)
        precondition(file.kind == .file && file.width == nil, "a file was typed as media")
        let types = ["application/pdf", "application/zip", "application/gzip", "text/plain", "application/octet-stream"]
        precondition(types.contains(file.type), "an unknown file type \(file.type)")
    } catch {
        precondition(size == 0 && error.code == .emptyFile, "a file was refused: \(error.code)")
    }
    // The text check agrees with the standard library's UTF-8 validation.
    let valid = String(validating: bytes, as: UTF8.self) != nil && !bytes.contains(0)
    precondition(MediaInspector.isText(bytes) == valid, "isText disagrees with the UTF-8 decoder")
    return 0
}
