import Foundation
import GRDB
public import ParleyCore
public import ParleyLive
import Synchronization

/// `EventJournal` in the store's database, so that a server restarted on the same
/// folder (cleanly or after `kill -9`) answers a resume exactly.
///
/// A message's event is a row of `event` naming the message, written by the message
/// writer in the message's own transaction (no commit of its own); replaying it reads
/// the message as it is now and sends it to the chat's members now. Any other kept
/// event (a member joining, a read marker, an edit) is its wire frame and its
/// recipients, written behind the bus in batches: a `kill -9` can lose the last
/// milliseconds of those, never a message's. The table keeps the newest `keep`
/// positions.
///
/// A position is never handed out twice, though many are never written (presence and
/// typing, or what a `kill -9` took): `event_log.reserved_through` is kept ahead of the
/// positions handed out, and a restart continues after it. A client that saw such a
/// position then misses nothing published after the restart.
public final class SQLiteEventJournal: EventJournal {
    /// How events other than messages are kept (`EventEncoding`, and the wire frames an
    /// older build kept, which this module does not know).
    public struct Codec: Sendable {
        public var encode: @Sendable (ChatEvent) -> [UInt8]?
        public var decode: @Sendable ([UInt8]) -> ChatEvent?
        public init(encode: @escaping @Sendable (ChatEvent) -> [UInt8]?, decode: @escaping @Sendable ([UInt8]) -> ChatEvent?) {
            self.encode = encode
            self.decode = decode
        }
    }

    private struct Entry {
        var event: PositionedEvent
        var recipients: [UserID]
    }

    private struct State {
        var next: UInt64
        var prunedThrough: UInt64
        /// Positions the message writer gave messages' events, until the bus asks.
        var taken: [MessageID: UInt64] = [:]
        var pending: [Entry] = []
        var writing = false
        var abandoned: (@Sendable ([UInt64]) -> Void)?
        var codec: Codec?
        var keep: UInt64 = 2_000_000
        /// Positions up to this one may be handed out: the database says so.
        var reservedThrough: UInt64 = 0
        /// A reservation further ahead is being written.
        var renewing = false
        /// Written in the message writer's open transaction.
        var pendingReservation: UInt64?
    }

    /// How far ahead of the positions handed out the reservation runs.
    static let margin: UInt64 = 100_000

    public let epoch: String
    public let newestAtOpen: UInt64
    private let pool: DatabasePool
    private let queue = DispatchQueue(label: "parley.event-journal")
    private let state: Mutex<State>

    init(pool: DatabasePool) throws {
        self.pool = pool
        let (epoch, pruned, newest, reserved) = try pool.read { db -> (String, Int64, Int64, Int64) in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT epoch, pruned_through, (SELECT coalesce(max(position), 0) FROM event), reserved_through FROM event_log")
            else { throw DatabaseError(message: "the database has no event log") }
            return (row[0], row[1], row[2], row[3])
        }
        self.epoch = epoch
        // Past all three: a position handed out before (kept, pruned or not) is never
        // handed out again.
        newestAtOpen = UInt64(max(0, newest, pruned, reserved))
        state = Mutex(State(next: newestAtOpen, prunedThrough: UInt64(max(0, pruned))))
    }

    /// Starts keeping events (until then the store writes none): a bus that uses the
    /// journal calls it before events flow.
    /// - Parameter keep: how many of the newest positions the table keeps.
    public func start(codec: Codec, keep: Int) throws {
        let through = state.withLock { $0.next } + Self.margin
        try reserve(through: through)
        state.withLock {
            $0.codec = codec
            $0.keep = UInt64(max(1, keep))
        }
    }

    /// Writes that positions up to `through` may be handed out.
    private func reserve(through: UInt64) throws {
        try pool.write { db in try Self.reserve(through: through, db) }
        state.withLock { $0.reservedThrough = max($0.reservedThrough, through) }
    }

    private static func reserve(through: UInt64, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE event_log SET reserved_through = max(reserved_through, ?)", arguments: [Int64(clamping: through)])
    }

    /// Takes the next position; says when the reservation should move ahead (and whether
    /// it must before the position is handed out).
    private static func take(_ state: inout State) -> (position: UInt64, renew: UInt64?, behind: Bool) {
        state.next += 1
        let behind = state.next > state.reservedThrough
        guard behind || (state.next + margin / 2 > state.reservedThrough && !state.renewing) else { return (state.next, nil, false) }
        state.renewing = true
        return (state.next, state.next + margin, behind)
    }

    public var prunedThrough: UInt64 { state.withLock { $0.prunedThrough } }

    public func takePosition() -> UInt64 {
        let (position, renew, behind) = state.withLock { Self.take(&$0) }
        guard let renew else { return position }
        if behind {
            // Rare: the reservation written ahead has not come back in time.
            do { try reserve(through: renew) } catch { Self.complain("no position could be reserved: \(error)") }
            state.withLock { $0.renewing = false }
        } else {
            queue.async {
                do { try self.reserve(through: renew) } catch { Self.complain("no position could be reserved: \(error)") }
                self.state.withLock { $0.renewing = false }
            }
        }
        return position
    }

    /// A position for a message's event, inside the message writer's transaction `db`
    /// (which moves the reservation ahead when due), or nil while the journal is not in use.
    func positionForMessage(_ db: Database) throws -> UInt64? {
        let taken = state.withLock { state -> (position: UInt64, renew: UInt64?, behind: Bool)? in
            guard state.codec != nil else { return nil }
            return Self.take(&state)
        }
        guard let taken else { return nil }
        if let renew = taken.renew {
            do {
                try Self.reserve(through: renew, db)
            } catch {
                state.withLock { $0.renewing = false }
                throw error
            }
            // Counted once the transaction commits (`committed`); a rollback forgets it.
            state.withLock { $0.pendingReservation = renew }
        }
        return taken.position
    }

    /// After the message writer's commit: the positions its messages' events took.
    func committed(_ positions: [(message: MessageID, position: UInt64)]) {
        state.withLock { state in
            for (message, position) in positions { state.taken[message] = position }
            if let reserved = state.pendingReservation {
                state.reservedThrough = max(state.reservedThrough, reserved)
                state.pendingReservation = nil
                state.renewing = false
            }
        }
        if !positions.isEmpty { pruneIfDue() }
    }

    /// After the message writer's rollback: positions that name nothing.
    func abandon(_ positions: [UInt64]) {
        state.withLock { state in
            if state.pendingReservation != nil {
                state.pendingReservation = nil
                state.renewing = false
            }
        }
        guard !positions.isEmpty, let abandoned = state.withLock({ $0.abandoned }) else { return }
        abandoned(positions)
    }

    public func takenPosition(of message: MessageID) -> UInt64? {
        state.withLock { $0.taken.removeValue(forKey: message) }
    }

    public func onAbandoned(_ abandoned: @escaping @Sendable ([UInt64]) -> Void) {
        state.withLock { $0.abandoned = abandoned }
    }

    public func record(_ event: PositionedEvent, recipients: [UserID]) {
        // Encoded on the journal's queue, not here: the bus calls this under its lock.
        let start = state.withLock { state -> Bool in
            guard state.codec != nil else { return false }
            state.pending.append(Entry(event: event, recipients: recipients))
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if start { queue.async { self.writePending() } }
    }

    /// Writes what is pending, in batches, until nothing is.
    private func writePending() {
        while true {
            let (batch, codec) = state.withLock { state -> ([Entry], Codec?) in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.writing = false }
                return (batch, state.codec)
            }
            guard !batch.isEmpty else { return }
            guard let codec else { continue }
            do {
                try pool.write { db in
                    let event = try db.cachedStatement(sql: "INSERT OR REPLACE INTO event (position, origin, body) VALUES (?, ?, ?)")
                    let recipient = try db.cachedStatement(sql: "INSERT OR IGNORE INTO event_recipient (user_id, position) VALUES (?, ?)")
                    for entry in batch {
                        guard let body = codec.encode(entry.event.event) else { continue }
                        let position = Int64(clamping: entry.event.position)
                        try event.execute(arguments: [position, entry.event.originToken, Data(body)])
                        for user in entry.recipients { try recipient.execute(arguments: [user.rawValue, position]) }
                    }
                }
            } catch {
                // A resume from before these answers without them: the client is told
                // nothing was lost when something was, so say so where an operator looks.
                Self.complain("\(batch.count) events were not kept for resuming: \(error)")
            }
            pruneIfDue()
        }
    }

    /// Keeps the newest `keep` positions, pruning in steps of an eighth of them.
    private func pruneIfDue() {
        let through = state.withLock { state -> UInt64? in
            let cut = state.next > state.keep ? state.next - state.keep : 0
            guard cut > state.prunedThrough + max(1, state.keep / 8) else { return nil }
            state.prunedThrough = cut
            return cut
        }
        guard let through else { return }
        queue.async { [pool] in
            _ = try? pool.write { db in
                let cut = Int64(clamping: through)
                try db.execute(sql: "DELETE FROM event WHERE position <= ?", arguments: [cut])
                try db.execute(sql: "DELETE FROM event_recipient WHERE position <= ?", arguments: [cut])
                try db.execute(sql: "UPDATE event_log SET pruned_through = max(pruned_through, ?)", arguments: [cut])
            }
        }
    }

    private static func complain(_ line: String) {
        FileHandle.standardError.write(Data("parley: \(line)\n".utf8))
    }

    /// Waits for the events recorded so far to be written (a clean shutdown).
    public func flush() {
        queue.sync {}
        while state.withLock({ $0.writing }) { queue.sync {} }
    }

    public func events(of user: UserID, after: UInt64, through: UInt64, limit: Int) async throws -> (
        events: [PositionedEvent], more: Bool
    ) {
        guard through > after, limit > 0 else { return ([], false) }
        let codec = state.withLock { $0.codec }
        let low = Int64(clamping: after)
        let high = Int64(clamping: through)
        let fetch = limit + 1
        let found = try await pool.read { db -> [PositionedEvent] in
            var events: [PositionedEvent] = []
            var chats: [ChatID: Chat] = [:]
            let messages = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.position, e.origin, \(Rows.messageColumns) FROM event e
                    JOIN message m ON m.id = e.message_id \(Rows.messageJoins)
                    JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = ?
                    WHERE e.position > ? AND e.position <= ? AND e.message_id IS NOT NULL
                    ORDER BY e.position DESC LIMIT ?
                    """, arguments: [user.rawValue, low, high, fetch])
            for row in messages {
                let message = Rows.message(row, from: 2)
                if chats[message.chatID] == nil { chats[message.chatID] = try Rows.chat(db, id: message.chatID) }
                guard let chat = chats[message.chatID] else { continue }
                events.append(
                    PositionedEvent(
                        event: .message(MessageEvent(chat: chat, message: message)), position: UInt64(max(0, row[0] as Int64)),
                        originToken: row[1]))
            }
            let others = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.position, e.origin, e.body FROM event_recipient r JOIN event e ON e.position = r.position
                    WHERE r.user_id = ? AND r.position > ? AND r.position <= ?
                    ORDER BY r.position DESC LIMIT ?
                    """, arguments: [user.rawValue, low, high, fetch])
            for row in others {
                guard let body = row[2] as Data?, let event = codec?.decode(Array(body)) else { continue }
                events.append(PositionedEvent(event: event, position: UInt64(max(0, row[0] as Int64)), originToken: row[1]))
            }
            return events
        }
        let newest = found.sorted { $0.position > $1.position }
        return (Array(newest.prefix(limit).reversed()), newest.count > limit)
    }
}
