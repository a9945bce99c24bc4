import NIOCore
import ParleyCore
import Synchronization

/// An event's IRC lines, serialized once for each combination of the capabilities a
/// message's line depends on, and of whether its client reads replies with their quote
/// (`IRCView.quotesReplies`) (`IRCView.sharedLines(for:)`): clients that differ only in
/// others share the same bytes, and finding them costs no hashing of capability names.
final class IRCSharedLines: Sendable {
    /// What `IRCView.messageLines` reads of a client's capabilities, one bit each.
    static let shaping: [IRCCapability] = [.serverTime, .messageTags, .accountTag, .multiline]

    static func shape(of capabilities: Set<IRCCapability>, me: UserRef?) -> Int {
        let tags = shaping.indices.reduce(0) { shape, bit in capabilities.contains(shaping[bit]) ? shape | 1 << bit : shape }
        return me.map { IRCView.quotesReplies(capabilities, me: $0) } == true ? tags | 1 << shaping.count : tags
    }

    private let byShape = Mutex<[ByteBuffer?]>(Array(repeating: nil, count: 1 << (shaping.count + 1)))

    func lines(for shape: Int, make: () -> ByteBuffer) -> ByteBuffer {
        if let made = byShape.withLock({ $0[shape] }) { return made }
        let made = make()
        byShape.withLock { $0[shape] = made }
        return made
    }
}
