import ParleyCore

/// What a client needs to fill a gap a server could not: the last message it saw in
/// each chat, and the live events that arrive while the missed messages are fetched
/// (held, then passed on less the ones the fetch already gave).
struct MissedMessages {
    /// Messages fetched for one chat, at most.
    static let limit = 200

    private var lastSeqs: [ChatID: Int64] = [:]
    private var fetched: [ChatID: Int64] = [:]
    private var held: [ChatEvent] = []
    /// While true, live events are held (`hold`).
    private var holding = false

    /// A message the client has seen or sent.
    mutating func saw(_ message: Message) {
        lastSeqs[message.chatID] = max(lastSeqs[message.chatID] ?? 0, message.seq)
    }

    /// Where each chat stood when the session started.
    mutating func learn(_ summaries: [ChatSummary]) {
        for summary in summaries {
            guard let seq = summary.lastMessage?.seq else { continue }
            lastSeqs[summary.chat.id] = max(lastSeqs[summary.chat.id] ?? 0, seq)
        }
    }

    /// What to fetch for a chat whose last message is `last`: the last seq seen there
    /// and how many messages to ask for (nil: none missed), and whether that is all
    /// of them. Numbers from the server are checked: nothing here can overflow.
    func gap(in chat: ChatID, upTo last: Int64) -> (known: Int64, count: Int, whole: Bool)? {
        let known = lastSeqs[chat] ?? 0
        guard last > known, last < Int64.max else { return nil }
        let (missed, overflow) = last.subtractingReportingOverflow(known)
        if overflow || missed > Self.limit { return (known, Self.limit, false) }
        return (known, Int(missed), true)
    }

    /// The missed messages of `chat` up to `last` were passed on.
    mutating func filled(_ chat: ChatID, through last: Int64) {
        lastSeqs[chat] = max(lastSeqs[chat] ?? 0, last)
        fetched[chat] = last
    }

    mutating func startHolding() {
        holding = true
    }

    /// Keeps a live event while holding; false when not holding (pass it on).
    mutating func hold(_ event: ChatEvent) -> Bool {
        guard holding else { return false }
        held.append(event)
        return true
    }

    /// Stops holding and returns the held events to pass on, less the messages that
    /// were fetched.
    mutating func release() -> [ChatEvent] {
        defer {
            held = []
            fetched = [:]
            holding = false
        }
        return held.filter { event in
            guard case .message(let message) = event else { return true }
            return message.message.seq > fetched[message.chat.id] ?? 0
        }
    }
}
