import ParleyCore

// libFuzzer target: a line an IRC client sends, through the gateway's parser; what it
// reads must write back to a line that reads the same (unless writing it back, which
// may add a ':' before the last parameter, makes it longer than a line may be). Each
// parameter also goes where an operator's KLINE or UBAN sends it: a server ban's
// target, an address range, and the ban matched against it as a handle and an address.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIRC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    fuzzBans(line)
    guard let message = (try? IRCMessage(parsing: line)) ?? nil else { return 0 }
    for parameter in message.params { fuzzBans(parameter) }
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

/// A ban made from `text` matches what it should, and an address range read back from
/// its own description is the same range.
private func fuzzBans(_ text: String) {
    if let range = AddressRange(text) {
        guard AddressRange(range.description) == range else { fatalError("\(text.debugDescription) reads back differently") }
        _ = range.contains(text)
    }
    guard let (kind, pattern) = try? ServerBan.target(text) else { return }
    let ban = ServerBan(id: 1, kind: kind, pattern: pattern, reason: nil, by: "fuzz", createdAt: .distantPast)
    if kind == .account, !ban.matches(handle: pattern) { fatalError("\(text.debugDescription) does not match its own account") }
    if kind == .address, !ban.matches(address: pattern.split(separator: "/").first.map(String.init) ?? "") {
        fatalError("\(text.debugDescription) does not cover its own first address")
    }
    _ = ban.matches(handle: text)
    _ = ban.matches(address: text)
}
