import Foundation
import Logging
import ParleyCore
import ParleyEngine
import ParleyLive

/// One IRC client's conversation with the gateway: its registration (CAP, SASL or
/// PASS, NICK, USER), then its commands, each a verb of its own session: `ChatService`'s,
/// or one of the gateway's own (`GatewayService`), nothing else of the engine. Lines are
/// handled one after another, in the order they came.
actor IRCConnection {
    let gateway: IRCGateway
    let output: IRCOutput
    /// What the event sink reads too: who this is and what the client asked for.
    let view: IRCView
    /// The connection's session: what any client of the engine may ask, and the
    /// gateway's own verbs.
    let session: any GatewayService

    var requestedNick: String?
    var userLine: (username: String, realname: String)?
    var password: String?
    /// CAP negotiation holds registration until CAP END.
    var negotiating = false
    var saslMechanism: String?
    /// The SASL payload so far, while it comes in 400-byte lines.
    var saslPayload = ""
    var isRegistered = false
    /// When the connection signed in: what was said before it and missed is played back
    /// (`playBack`), what came after arrives live.
    var signedInAt = Date()
    /// Recorded for WHOWAS already (QUIT records it before the connection closes).
    var departed = false
    /// The server log has the connection's end already (QUIT logs it).
    var endLogged = false
    /// The last batch id handed out (`BATCH +hN`).
    var nextBatch = 0
    /// While a line with a `label` tag is handled (IRCv3 labeled-response): its replies,
    /// sent together with the label once it is done.
    private var collecting: [IRCMessage]?
    /// The arrival ticket of the line being handled (`ArrivalOrder`).
    var ticket: UInt64 = 0
    /// The message of several lines the client is sending (`draft/multiline`).
    var multiline: MultilineDraft?
    /// The user's modes: +i always, +o after OPER, +w when they asked for WALLOPS.
    var userModes: Set<Character> = ["i"]

    /// This connection's place among its address's unsigned ones, given up on registering.
    let place: AddressSlots.Slot?

    init(gateway: IRCGateway, output: IRCOutput, address: String, place: AddressSlots.Slot? = nil) {
        self.gateway = gateway
        self.output = output
        self.place = place
        let view = IRCView(serverName: gateway.configuration.serverName, people: gateway.people) { [gateway] id, user in
            gateway.mediaLink(id, for: user)
        }
        self.view = view
        session = gateway.engine.connect(
            address: address, client: "irc",
            deliver: { event in
                if let shared = view.sharedLines(for: event) {
                    output.deliver(serialized: shared)
                } else {
                    output.deliver(view.lines(for: event.event))
                }
            },
            ended: { reason in
                output.send(IRCMessage(command: "ERROR", params: ["Closing link: \(reason.message)"]))
                output.close()
            })
    }

    var serverName: String { gateway.configuration.serverName }
    /// The nick the client goes by: its handle once signed in, else what it asked for.
    var nick: String { view.me?.handle ?? requestedNick ?? "*" }

    func handle(_ inbound: IRCInbound, ticket: UInt64 = 0) async {
        self.ticket = ticket
        let line: String
        switch inbound {
        case .tooLong:
            reply(IRCNumeric.inputTooLong, ["Input line was too long"])
            return
        case .line(let text): line = text
        }
        let message: IRCMessage
        do {
            guard let parsed = try IRCMessage(parsing: line) else { return }
            message = parsed
        } catch .lineTooLong, .tagsTooLong {
            reply(IRCNumeric.inputTooLong, ["Input line was too long"])
            return
        } catch {
            reply(IRCNumeric.unknownCommand, ["*", "Unreadable line"])
            return
        }
        // A line of a multiline message is kept for it; its batch's label goes on the
        // reply to the whole, once it closes (BATCH -REF).
        if let reference = message.tags["batch"], isRegistered {
            batched(message, reference: reference)
            return
        }
        var label = view.capabilities.contains(.labeledResponse) ? message.tags["label"] : nil
        if message.command == "BATCH", let reference = message.params.first {
            label = multiline.flatMap { reference == "-" + $0.reference ? $0.label : nil }
        }
        if label != nil { collecting = [] }
        defer { if let label { sendLabeled(label) } }
        guard let command = Self.commands[message.command] else {
            reply(IRCNumeric.unknownCommand, [message.command, "Unknown command"])
            return
        }
        if command.needsSignIn && !isRegistered {
            reply(IRCNumeric.notRegistered, ["You have not registered"])
            return
        }
        do {
            try await command.run(self, message)
        } catch is IRCRefusal {
            // Answered already, with its numeric.
        } catch {
            // INVITE names the nick first and the channel the refusal is about second.
            let target = message.command == "INVITE" && message.params.count > 1 ? message.params[1] : message.params.first
            refuse(message.command, target: target, ParleyError(error))
        }
    }

    /// The connection is gone: its session ends (an IRC connection's session lives as
    /// long as it does), and the user goes offline if this was their last connection.
    func closed() async {
        if !endLogged { log("connection closed: connection dropped") }
        recordDeparture()
        await session.end()
    }

    /// A line in the server log, as the WebSocket's sign-ins and ends are logged: with
    /// the address, the client kind and the user, when there is one.
    func log(_ text: String, _ extra: Logger.Metadata = [:]) {
        var metadata: Logger.Metadata = ["address": "\(session.address)", "client": "irc"]
        if let me = view.me { metadata["user"] = "\(me.handle)" }
        metadata.merge(extra) { $1 }
        gateway.logger.info("\(text)", metadata: metadata)
    }

    /// Counts a signed-in connection out, once, for LUSERS and WHOWAS.
    func recordDeparture() {
        guard isRegistered, !departed, let me = view.me else { return }
        departed = true
        gateway.people.departed(
            me.id,
            IRCPeople.Departure(
                nick: me.handle, username: userLine?.username ?? me.handle, realname: userLine?.realname ?? me.displayName, at: Date()))
    }

    // MARK: Writing

    /// A reply to the line being handled (labeled, when it carried a label).
    func emit(_ message: IRCMessage) {
        if collecting != nil {
            collecting?.append(message)
        } else {
            output.send(message)
        }
    }

    func emit(_ messages: [IRCMessage]) {
        if collecting != nil {
            collecting?.append(contentsOf: messages)
        } else {
            output.send(messages)
        }
    }

    /// Closes the connection after what the line being handled has said so far.
    func closeOutput() {
        if let collected = collecting {
            collecting = nil
            output.send(collected)
        }
        output.close()
    }

    /// The replies to a labeled line: one line carries the label; a reply that is one
    /// batch carries it on the batch's start; several lines go in a `labeled-response`
    /// batch; none is an ACK.
    private func sendLabeled(_ label: String) {
        guard var lines = collecting else { return }
        collecting = nil
        if lines.isEmpty {
            output.send(IRCMessage(tags: ["label": label], source: serverName, command: "ACK", params: []))
            return
        }
        let enclosed =
            lines.count > 1 && lines[0].command == "BATCH" && lines[lines.count - 1].command == "BATCH"
            && lines[0].params.first.map { "-" + $0.dropFirst() } == lines[lines.count - 1].params.first
        if lines.count == 1 || enclosed {
            lines[0].tags["label"] = label
            output.send(lines)
            return
        }
        nextBatch &+= 1
        let id = "l\(nextBatch)"
        var wrapped = [IRCMessage(tags: ["label": label], source: serverName, command: "BATCH", params: ["+" + id, "labeled-response"])]
        for var line in lines {
            // Inside the new batch: every line not already in one of the reply's own batches.
            if line.tags["batch"] == nil { line.tags["batch"] = id }
            wrapped.append(line)
        }
        wrapped.append(IRCMessage(source: serverName, command: "BATCH", params: ["-" + id]))
        output.send(wrapped)
    }

    /// `:server NUMERIC nick params…`.
    func reply(_ numeric: String, _ params: [String]) {
        emit(IRCMessage(source: serverName, command: numeric, params: [nick] + params))
    }

    /// A refusal as the numeric a client expects, or a NOTICE that carries Parley's code.
    func refuse(_ command: String, target: String?, _ error: ParleyError) {
        let target = target ?? "*"
        switch error.code {
        case .notMember where command == "PRIVMSG" || command == "NOTICE": reply(IRCNumeric.cannotSendToChan, [target, error.message])
        case .notMember: reply(IRCNumeric.notOnChannel, [target, error.message])
        case .unknownGroup, .unknownChat, .notAGroup: reply(IRCNumeric.noSuchChannel, [target, error.message])
        case .unknownUser: reply(IRCNumeric.noSuchNick, [target, error.message])
        case .forbidden: reply(IRCNumeric.chanOpPrivsNeeded, [target, error.message])
        case .privateGroup: reply(IRCNumeric.inviteOnlyChan, [target, error.message])
        case .banned: reply(IRCNumeric.bannedFromChan, [target, error.message])
        case .badKey: reply(IRCNumeric.badChannelKey, [target, error.message])
        case .groupFull: reply(IRCNumeric.channelIsFull, [target, error.message])
        case .moderated: reply(IRCNumeric.cannotSendToChan, [target, error.message])
        case .alreadyMember: reply(IRCNumeric.userOnChannel, [target, error.message])
        case .notSignedIn: reply(IRCNumeric.notRegistered, ["You have not registered"])
        case .invalidArgument where command == "JOIN": reply(IRCNumeric.badChanMask, [target, error.message])
        case .internalError:
            // The detail (a database message, a type's name) goes to the log only.
            let reference = String(UInt32.random(in: .min ... .max), radix: 16)
            gateway.logger.error(
                "internal error \(reference): \(error.message)", metadata: ["command": "\(command)", "reference": "\(reference)"])
            emit(
                IRCMessage(
                    source: serverName, command: "NOTICE",
                    params: [nick, "internal: the server failed to do this (reference \(reference))"]))
        default:
            emit(IRCMessage(source: serverName, command: "NOTICE", params: [nick, "\(error.code): \(error.message)"]))
        }
    }
}
