import ParleyCore
import ParleyStore

extension ChatEngine {
    /// The most accounts `namesBreakingRules` reads (it runs once, when the server starts).
    static let nameAuditLimit = 100_000

    /// Accounts whose handle or display name was taken before today's rules refused it
    /// (a reserved handle or `deleted-` prefix on a live account; a display name with a
    /// drawn mark, odd spaces or invisible characters): they keep working, and the
    /// operators are told of them, each as `@handle: why`.
    public func namesBreakingRules() async throws -> [String] {
        var found: [String] = []
        var offset = 0
        while offset < Self.nameAuditLimit {
            let page = try await store.searchUsers(prefix: "", limit: Limits.maxPageSize, offset: offset)
            for user in page where !user.handle.lowercased().hasPrefix("deleted-") || user.displayName != "Deleted user" {
                if Limits.isReservedHandle(user.handle) {
                    found.append("@\(user.handle): the handle is reserved")
                } else if !user.displayName.hasSuffix(" (guest)") {
                    do { _ = try Limits.chosenDisplayName(user.displayName) } catch { found.append("@\(user.handle): \(error.message)") }
                }
            }
            guard page.count == Limits.maxPageSize else { break }
            offset += page.count
        }
        return found
    }
}
