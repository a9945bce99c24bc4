public import ParleyCore

/// Guests (IRC's unregistered nicks): their handles freed, renamed, marked as bots.
public protocol GuestsStore: Sendable {
    /// Frees a guest's handle for others (it becomes `handle~id`; what the guest said
    /// keeps its display name): true when `user` is a guest, false for any other account,
    /// which is left alone.
    func retireGuest(_ user: UserID) async throws -> Bool

    /// Gives a guest another handle (and the display name that goes with it): false for
    /// an account that is not a guest; `handleTaken` when another account holds it.
    func renameGuest(_ user: UserID, to handle: String, displayName: String) async throws -> Bool

    /// Marks a guest as a bot (IRC's user mode +B): false for an account that is not a
    /// guest, which is left alone (bot accounts are made by their owners).
    func markGuestAsBot(_ user: UserID) async throws -> Bool
}
