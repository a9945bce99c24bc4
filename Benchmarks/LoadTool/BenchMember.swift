import Foundation
import NIOCore

/// One member's connection in a bench run, on the run's loop. A message's text is
/// `t=MICROS s=SENDER`: a member tells its own (the acknowledgement, on IRC) from
/// another's (a delivery, whose latency is now minus MICROS) by SENDER. Lines and frames
/// are scanned for bytes, not decoded, once the run is measuring.
final class BenchMember: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let index: Int
    private let run: BenchRun
    private let proto: BenchPlan.Proto
    private var context: ChannelHandlerContext?
    private var lines = ByteBuffer()
    private var frames = ServerFrames()
    private var inChannel = false
    private var nextID = 1
    /// The stamps of this member's sends not yet acknowledged, oldest first: a server answers
    /// one connection's sends in the order they came.
    private var unanswered = CircularBuffer<Int64>()

    init(run: BenchRun, index: Int, proto: BenchPlan.Proto) {
        self.run = run
        self.index = index
        self.proto = proto
    }

    private var nick: String { "b\(run.plan.tag)\(index)" }
    private var channelName: String { "#b\(run.plan.tag)" }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        run.attached(self)
    }

    func channelActive(context: ChannelHandlerContext) {
        switch proto {
        case .irc:
            write("CAP REQ :echo-message\r\nNICK \(nick)\r\nUSER \(nick) 0 * :bench\r\n")
        case .parley:
            context.writeAndFlush(NIOAny(ServerFrames.upgradeRequest(host: run.plan.host, port: run.plan.port)), promise: nil)
            run.wantsToRegister(self)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // `close()` lets go of the context first: a connection that ends without it was the server's doing.
        guard self.context != nil else { return }
        self.context = nil
        run.failed("member \(index): the server closed the connection")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        switch proto {
        case .irc:
            lines.writeBuffer(&incoming)
            while let end = lines.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let length = end - lines.readerIndex
                let line = lines.readableBytesView.prefix(length)
                ircLine(line)
                lines.moveReaderIndex(forwardBy: length + 1)
            }
            lines.discardReadBytes()
        case .parley:
            frames.append(incoming)
            frames.read(answering: context) { parleyFrame($0) }
        }
    }

    func close() {
        guard let context else { return }
        self.context = nil
        switch proto {
        case .irc: write("QUIT :bench done\r\n", on: context)
        case .parley:
            var close = ByteBuffer(bytes: [0x88, 0x82, 0, 0, 0, 0])
            close.writeInteger(UInt16(1000))
            context.writeAndFlush(NIOAny(close), promise: nil)
        }
        context.close(promise: nil)
    }

    // MARK: Sending

    func send(stamp: Int64, number: Int) {
        let text = "t=\(stamp) s=\(index)"
        unanswered.append(stamp)
        switch proto {
        case .irc:
            write("PRIVMSG \(channelName) :\(text)\r\n")
        case .parley:
            request(
                #"{"id":\#(take()),"op":"send","args":{"chat":\#(run.chat),"text":"\#(text)","client_id":"\#(run.plan.tag)-\#(number)"}}"#)
        }
    }

    func register() {
        let args = #"{"email":"\#(nick)@example.com","password":"bench-password","handle":"\#(nick)"}"#
        request(#"{"id":\#(take()),"op":"register","args":\#(args)}"#)
    }

    func createGroup(handle: String) {
        request(#"{"id":\#(take()),"op":"create_group","args":{"handle":"\#(handle)","is_public":true}}"#)
    }

    func joinGroup(handle: String) {
        request(##"{"id":\##(take()),"op":"join_group","args":{"handle":"#\##(handle)"}}"##)
    }

    private func take() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private func request(_ json: String) {
        guard let context else { return }
        context.writeAndFlush(NIOAny(RawClient.masked(json)), promise: nil)
    }

    private func write(_ text: String, on given: ChannelHandlerContext? = nil) {
        guard let context = given ?? context else { return }
        context.writeAndFlush(NIOAny(ByteBuffer(string: text)), promise: nil)
    }

    // MARK: Reading

    private func ircLine(_ line: ByteBufferView) {
        if let stamp = Self.stamp(after: " :t=", in: line) {
            if stamp.sender == index { answered(ok: true) } else { run.delivered(sentAt: stamp.micros) }
            return
        }
        var words = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines).split(separator: " ")
        if words.first?.hasPrefix(":") == true { words.removeFirst() }
        guard let command = words.first else { return }
        switch command {
        case "PING": write("PONG \(words.dropFirst().joined(separator: " "))\r\n")
        case "CAP" where words.count > 2 && words[2] == "ACK": write("CAP END\r\n")
        case "CAP" where words.count > 2 && words[2] == "NAK": run.failed("the server has no echo-message, which bench needs for acks")
        case "001": write("JOIN \(channelName)\r\n")
        case "366" where !inChannel:
            inChannel = true
            run.inChannel()
        case "ERROR", "432", "433", "465", "474": run.failed("member \(index): \(words.joined(separator: " "))")
        case "404", "FAIL": answered(ok: false)
        default: break
        }
    }

    private func parleyFrame(_ payload: ByteBufferView) {
        if FrameScanner.find(#""event":"#, in: payload) != nil {
            if let stamp = Self.stamp(after: #""text":"t="#, in: payload), stamp.sender != index {
                run.delivered(sentAt: stamp.micros)
            }
            return
        }
        if run.chat != 0, inChannel {
            answered(ok: FrameScanner.find(#""ok":true"#, in: payload) != nil)
            return
        }
        // Setup: a reply to register, create_group or join_group.
        guard let reply = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any], reply["id"] != nil else { return }
        guard reply["ok"] as? Bool == true else {
            run.failed("member \(index): \(String(decoding: payload, as: UTF8.self))")
            return
        }
        let result = reply["result"] as? [String: Any]
        if result?["token"] != nil {
            run.registeredOne()
        } else if let id = result?["id"] as? Int {
            inChannel = true
            if index == 0 { run.groupMade(id) } else { run.joinedGroup() }
        }
    }

    /// The server answered this member's oldest unanswered send.
    private func answered(ok: Bool) {
        run.acknowledged(by: index, ok: ok, sentAt: unanswered.popFirst())
    }

    /// The MICROS and SENDER of `t=MICROS s=SENDER` after `marker`.
    static func stamp(after marker: String, in bytes: ByteBufferView) -> (micros: Int64, sender: Int)? {
        guard let start = FrameScanner.find(marker, in: bytes) else { return nil }
        var index = bytes.startIndex + start + marker.utf8.count
        guard let micros = FrameScanner.number(in: bytes, at: &index), index + 3 <= bytes.endIndex,
            bytes[index] == UInt8(ascii: " "), bytes[index + 1] == UInt8(ascii: "s"), bytes[index + 2] == UInt8(ascii: "=")
        else { return nil }
        index += 3
        guard let sender = FrameScanner.number(in: bytes, at: &index) else { return nil }
        return (micros, Int(sender))
    }
}
