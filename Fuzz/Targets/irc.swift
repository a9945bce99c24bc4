// libFuzzer target: a line an IRC client sends, through the gateway's parser; what it
// reads must write back to a line that reads the same (unless writing it back, which
// may add a ':' before the last parameter, makes it longer than a line may be).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIRC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let message = (try? IRCMessage(parsing: line)) ?? nil else { return 0 }
    let again: IRCMessage?
    do {
        again = try IRCMessage(parsing: message.serialized)
    } catch .lineTooLong {
        return 0
    } catch {
        again = nil
    }
    if again?.command != message.command || again?.params != message.params || again?.source != message.source {
        fatalError("\(line.debugDescription) wrote back as \(message.serialized.debugDescription)")
    }
    return 0
}
