public import Foundation

/// An account the server's operators suspended: its sessions ended, and it cannot sign
/// in (nor can its bots) until reinstated.
public struct Suspension: Hashable, Codable, Sendable {
    public var user: UserRef
    public var reason: String
    /// The operator who suspended it.
    public var by: String
    public var at: Date
    /// Set on a bot suspended with its owner: reinstating the owner reinstates it.
    public var withOwner: UserID?

    public init(user: UserRef, reason: String, by: String, at: Date, withOwner: UserID? = nil) {
        self.user = user
        self.reason = reason
        self.by = by
        self.at = at
        self.withOwner = withOwner
    }

    /// What the account is told: at once on every open client, and at each sign-in.
    public var refusal: ParleyError {
        ParleyError(.accountSuspended, "@\(user.handle) is suspended by the server's operators: \(reason)")
    }
}

/// A server-wide ban: an account, a handle pattern (`spam*`) or an address range. An
/// account or handle ban ends the sessions it names and refuses their sign-in; an address
/// ban refuses sign-ins and registrations from the range.
public struct ServerBan: Hashable, Codable, Sendable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case account, handle, address
    }

    public var id: Int64
    public var kind: Kind
    /// The handle (account), the lowercased pattern (handle) or the range in CIDR form.
    public var pattern: String
    public var reason: String?
    public var by: String
    public var createdAt: Date
    public var expiresAt: Date?

    public static let maxPatternLength = 64
    /// Bans a server keeps at once.
    public static let maxBans = 10_000

    public init(id: Int64, kind: Kind, pattern: String, reason: String?, by: String, createdAt: Date, expiresAt: Date? = nil) {
        self.id = id
        self.kind = kind
        self.pattern = pattern
        self.reason = reason
        self.by = by
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// What a ban's target reads as: `@bob` an account, a pattern with `*` or `?` a
    /// handle pattern, an address or CIDR range an address range (`bob` alone an account).
    public static func target(_ text: String) throws(ParleyError) -> (kind: Kind, pattern: String) {
        let text = text.trimmingSpaces()
        guard !text.isEmpty, text.utf8.count <= maxPatternLength, !text.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "a ban names @handle, a handle pattern like spam*, or an address range like 203.0.113.0/24")
        }
        if let range = AddressRange(text) { return (.address, range.description) }
        let name = text.hasPrefix("@") ? String(text.dropFirst()).lowercased() : text.lowercased()
        if name.contains("*") || name.contains("?") {
            guard name.unicodeScalars.allSatisfy({ Limits.isUserHandleScalar($0) || $0 == "*" || $0 == "?" }),
                name.contains(where: { $0 != "*" && $0 != "?" })
            else { throw ParleyError(.invalidArgument, "a handle pattern is handle characters with * and ?, not only wildcards") }
            return (.handle, name)
        }
        guard name.unicodeScalars.allSatisfy(Limits.isUserHandleScalar), !name.isEmpty else {
            throw ParleyError(.invalidArgument, "\(text) is neither a handle, a handle pattern nor an address range")
        }
        return (.account, name)
    }

    /// Whether the ban names this handle (an account or handle ban).
    public func matches(handle: String) -> Bool {
        switch kind {
        case .account: pattern == handle.lowercased()
        case .handle: Self.glob(Array(pattern.unicodeScalars), Array(handle.lowercased().unicodeScalars))
        case .address: false
        }
    }

    /// Whether the ban covers this address (an address ban).
    public func matches(address: String) -> Bool {
        kind == .address && (AddressRange(pattern)?.contains(address) ?? false)
    }

    public func isLive(at now: Date) -> Bool { expiresAt.map { $0 > now } ?? true }

    /// What it bans, in words: `@bob`, `handles like spam*`, `addresses in 203.0.113.0/24`.
    public var banned: String {
        switch kind {
        case .account: "@\(pattern)"
        case .handle: "handles like \(pattern)"
        case .address: "addresses in \(pattern)"
        }
    }

    /// What someone it refuses is told.
    public var refusal: ParleyError {
        let why = reason.map { ": \($0)" } ?? ""
        return switch kind {
        case .address: ParleyError(.serverBanned, "your address is banned from this server\(why)")
        case .account, .handle: ParleyError(.serverBanned, "this account is banned from this server\(why)")
        }
    }

    /// `*` any run, `?` one character; iterative, so no pattern can make it recurse deep.
    static func glob(_ pattern: [Unicode.Scalar], _ text: [Unicode.Scalar]) -> Bool {
        var (p, t, star, mark) = (0, 0, -1, 0)
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

/// What an operator or a group's owner or admin did, as the audit log keeps it.
public enum AuditAction: String, Codable, Sendable, CaseIterable {
    // The server's operators
    case suspend, reinstate
    case serverBan = "server_ban", serverUnban = "server_unban"
    case redact
    case resolveReport = "resolve_report"
    case deleteAccount = "delete_account", exportAccount = "export_account"
    case setServerRetention = "set_server_retention"
    case disconnect, wallops
    // A group's owner and admins
    case kick, ban, unban
    case setRole = "set_role", setRules = "set_rules", setRetention = "set_retention"
    case deleteMessage = "delete_message"
}

/// One line of the audit log: who did what to whom, where, when and why.
public struct AuditEntry: Hashable, Codable, Sendable {
    public var id: Int64
    public var at: Date
    /// The handle of who did it.
    public var actor: String
    public var action: AuditAction
    /// Whom or what: `@bob`, `spam*`, `203.0.113.0/24`, `report 3`, `message 42`.
    public var target: String
    /// The group it happened in, for a group's moderation, and how it was named then.
    public var chatID: ChatID?
    public var place: String?
    /// What changed, in words (`role admin`, `12 messages, 2 files`).
    public var detail: String?
    public var reason: String?

    public static let maxPage = 500

    public init(
        id: Int64 = 0, at: Date, actor: String, action: AuditAction, target: String, chatID: ChatID? = nil, place: String? = nil,
        detail: String? = nil, reason: String? = nil
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.action = action
        self.target = target
        self.chatID = chatID
        self.place = place
        self.detail = detail
        self.reason = reason
    }
}

/// What a redaction took down.
public struct Redaction: Hashable, Codable, Sendable {
    public var user: UserRef
    public var messages: Int
    public var media: Int
    public init(user: UserRef, messages: Int, media: Int) {
        self.user = user
        self.messages = messages
        self.media = media
    }
}
