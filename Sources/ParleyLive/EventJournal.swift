import Foundation
public import ParleyCore

/// Where a bus on one process keeps the events a resume can replay, so that positions
/// and the events they name outlive the process (SQLite's `event` table). Positions
/// come from the journal, whose counter the store shares: a message's event is written
/// in the message's own transaction, at a position taken there.
public protocol EventJournal: Sendable {
    /// Names the journal's positions; the same across restarts of one database.
    var epoch: String { get }
    /// The newest position taken before this process opened the journal.
    var newestAtOpen: UInt64 { get }
    /// Resumes from at or before this cannot be answered whole.
    var prunedThrough: UInt64 { get }
    /// The next position.
    func takePosition() -> UInt64
    /// The position the store gave `message`'s event when it stored the message, if
    /// it did; asked once.
    func takenPosition(of message: MessageID) -> UInt64?
    /// Calls `abandoned` with positions that were taken but name no event (a
    /// transaction that rolled back); set once, before events flow.
    func onAbandoned(_ abandoned: @escaping @Sendable ([UInt64]) -> Void)
    /// Keeps `event` for `recipients`, unless the store already has it (a message's).
    func record(_ event: PositionedEvent, recipients: [UserID])
    /// `user`'s kept events after `after` up to `through`, oldest first: the newest
    /// `limit` of them, and whether there were more.
    func events(of user: UserID, after: UInt64, through: UInt64, limit: Int) async throws -> (
        events: [PositionedEvent], more: Bool
    )
}
