public import Foundation
public import ParleyCore

/// Erasing an account, and the handles erased accounts hold.
public protocol ErasureStore: Sendable {
    /// Erases an account: its profile, email, phone, password, sessions, tokens, links,
    /// reminders and uploads go; its messages lose their media, or are deleted with
    /// `deleteMessages`; its handle is renamed and the old one held until `until` (no new
    /// account nor guest may take it). Returns the media ids no one uses any more.
    func eraseAccount(_ user: UserID, deleteMessages: Bool, holdHandleUntil until: Date, at time: Date) async throws -> [String]

    /// Whether an erased account's handle is held at `time`.
    func isHandleHeld(_ handle: String, at time: Date) async throws -> Bool
}
