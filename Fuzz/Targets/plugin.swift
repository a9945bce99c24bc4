// libFuzzer target: a line a plugin writes on its stdout through the host's parser.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlugin(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = PluginAction.parse(line)
    return 0
}
