/// Deleting one's own account, and an operator's erasure of another.
public protocol ErasureService: AnyObject, Sendable {
    /// Deletes the signed-in account for good, proven with its password (nil: it has none).
    func deleteAccount(password: String?) async throws

    /// An operator erases an account.
    func eraseAccount(handle: String, reason: String?) async throws
}
