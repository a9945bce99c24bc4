import NIOCore

/// A socket and the nick it registered.
final class Member {
    let channel: any Channel
    var nick = "*"
    /// Written to since the turn's flush.
    var dirty = false

    init(channel: any Channel) {
        self.channel = channel
    }
}

/// The one channel's members, and the sockets to flush at the end of the loop's turn.
/// Used on the loop's thread only.
final class Room {
    let loop: any EventLoop
    var store: Store?
    private(set) var members: [ObjectIdentifier: Member] = [:]
    private var dirty: [Member] = []
    private var flushScheduled = false

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func join(_ member: Member) { members[ObjectIdentifier(member)] = member }
    func leave(_ member: Member) { members[ObjectIdentifier(member)] = nil }

    /// Queues `line` for `member`; the flush comes once the turn's reads are done.
    func send(_ line: ByteBuffer, to member: Member) {
        member.channel.write(line, promise: nil)
        if !member.dirty {
            member.dirty = true
            dirty.append(member)
        }
        if !flushScheduled {
            flushScheduled = true
            loop.execute { self.flush() }
        }
    }

    /// `line` to every member.
    func relay(_ line: ByteBuffer) {
        for member in members.values { send(line, to: member) }
    }

    private func flush() {
        flushScheduled = false
        let members = dirty
        dirty.removeAll(keepingCapacity: true)
        for member in members {
            member.dirty = false
            member.channel.flush()
        }
    }
}

/// Splits a socket's bytes into lines and answers them.
final class LineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let room: Room
    private var member: Member?
    private var unread = ByteBuffer()

    init(room: Room) {
        self.room = room
    }

    func channelActive(context: ChannelHandlerContext) {
        member = Member(channel: context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let member { room.leave(member) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if unread.readableBytes == 0 {
            unread = bytes
        } else {
            unread.writeBuffer(&bytes)
        }
        while let newline = unread.readableBytesView.firstIndex(of: UInt8(ascii: "\n")),
            var line = unread.readSlice(length: newline - unread.readerIndex + 1)
        {
            var length = line.readableBytes - 1
            if length > 0, line.getInteger(at: line.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") { length -= 1 }
            if let member, let text = line.readSlice(length: length) { answer(text, from: member, context: context) }
        }
        if unread.readableBytes > 4096 { context.close(promise: nil) }
    }

    private func reply(_ text: String, to member: Member) {
        room.send(member.channel.allocator.buffer(string: text), to: member)
    }

    private func answer(_ line: ByteBuffer, from member: Member, context: ChannelHandlerContext) {
        let bytes = line.readableBytesView
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else { return }
        let command = bytes[..<space]
        let rest = bytes[(space + 1)...]
        if command.elementsEqual("PRIVMSG".utf8) {
            guard let colon = rest.firstIndex(of: UInt8(ascii: ":")) else { return }
            var relayed = context.channel.allocator.buffer(capacity: line.readableBytes + member.nick.utf8.count + 16)
            relayed.writeString(":\(member.nick)!u@h PRIVMSG ")
            relayed.writeBytes(rest)
            relayed.writeString("\r\n")
            let room = room
            if let store = room.store {
                store.append(sender: member.nick, text: ByteBuffer(rest[rest.index(after: colon)...])) { room.relay(relayed) }
            } else {
                room.relay(relayed)
            }
        } else if command.elementsEqual("CAP".utf8) {
            if rest.starts(with: "REQ".utf8) { reply(":floor CAP * ACK :echo-message\r\n", to: member) }
        } else if command.elementsEqual("NICK".utf8) {
            member.nick = String(decoding: rest, as: UTF8.self)
        } else if command.elementsEqual("USER".utf8) {
            reply(":floor 001 \(member.nick) :welcome\r\n", to: member)
        } else if command.elementsEqual("JOIN".utf8) {
            let channel = String(decoding: rest, as: UTF8.self)
            room.join(member)
            reply(":\(member.nick)!u@h JOIN \(channel)\r\n:floor 366 \(member.nick) \(channel) :End of /NAMES list.\r\n", to: member)
        } else if command.elementsEqual("PING".utf8) {
            reply("PONG \(String(decoding: rest, as: UTF8.self))\r\n", to: member)
        } else if command.elementsEqual("QUIT".utf8) {
            context.close(promise: nil)
        }
    }
}
