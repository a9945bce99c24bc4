/// A stable, machine-readable error code such as `not_member`. Scripts and clients
/// match on the code; the message is for people.
public struct ErrorCode: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ErrorCode {
    // Sessions and accounts
    public static let notSignedIn = ErrorCode("not_signed_in")
    public static let alreadySignedIn = ErrorCode("already_signed_in")
    public static let badCredentials = ErrorCode("bad_credentials")
    public static let invalidToken = ErrorCode("invalid_token")
    public static let emailTaken = ErrorCode("email_taken")
    public static let handleTaken = ErrorCode("handle_taken")
    public static let invalidEmail = ErrorCode("invalid_email")
    public static let invalidHandle = ErrorCode("invalid_handle")
    public static let invalidPassword = ErrorCode("invalid_password")
    public static let invalidName = ErrorCode("invalid_name")
    public static let invalidPhone = ErrorCode("invalid_phone")
    public static let invalidCode = ErrorCode("invalid_code")
    public static let codeExpired = ErrorCode("code_expired")
    public static let tooManyAttempts = ErrorCode("too_many_attempts")
    /// The server takes no new accounts (`--registration closed`).
    public static let registrationClosed = ErrorCode("registration_closed")
    /// The server takes new accounts only with a sign-up code (`--registration invite`).
    public static let codeRequired = ErrorCode("code_required")
    /// The server's operators suspended the account (`/suspend`).
    public static let accountSuspended = ErrorCode("account_suspended")
    /// A server-wide ban names the account, its handle or the address (`/ban-server`).
    public static let serverBanned = ErrorCode("server_banned")
    // External identity (OpenID Connect ID tokens)
    public static let invalidIDToken = ErrorCode("invalid_id_token")
    public static let unknownKey = ErrorCode("unknown_key")
    public static let badSignature = ErrorCode("bad_signature")
    public static let idTokenExpired = ErrorCode("id_token_expired")
    public static let idTokenNotYetValid = ErrorCode("id_token_not_yet_valid")
    public static let wrongAudience = ErrorCode("wrong_audience")
    public static let wrongIssuer = ErrorCode("wrong_issuer")
    /// Signed in by phone for the first time: choose a display name before anything else.
    public static let profileRequired = ErrorCode("profile_required")
    // Lookups
    public static let unknownUser = ErrorCode("unknown_user")
    public static let unknownChat = ErrorCode("unknown_chat")
    public static let unknownGroup = ErrorCode("unknown_group")
    public static let unknownMessage = ErrorCode("unknown_message")
    public static let messageDeleted = ErrorCode("message_deleted")
    public static let unknownSession = ErrorCode("unknown_session")
    /// The edit or delete window of a message has passed.
    public static let tooLate = ErrorCode("too_late")
    public static let tooManyReactions = ErrorCode("too_many_reactions")
    // Rules
    public static let notMember = ErrorCode("not_member")
    public static let forbidden = ErrorCode("forbidden")
    public static let alreadyMember = ErrorCode("already_member")
    public static let notAGroup = ErrorCode("not_a_group")
    public static let privateGroup = ErrorCode("private_group")
    /// Banned from the group: no joining, no invitation, until unbanned.
    public static let banned = ErrorCode("banned")
    /// The group needs a key to join by handle, and this was not it.
    public static let badKey = ErrorCode("bad_key")
    /// The group is at its member limit.
    public static let groupFull = ErrorCode("group_full")
    /// The group is moderated: only the owner, admins and voiced members post.
    public static let moderated = ErrorCode("moderated")
    public static let invalidInvite = ErrorCode("invalid_invite")
    public static let inviteExpired = ErrorCode("invite_expired")
    public static let inviteUsedUp = ErrorCode("invite_used_up")
    public static let inviteRevoked = ErrorCode("invite_revoked")
    // Input
    public static let emptyText = ErrorCode("empty_text")
    public static let textTooLong = ErrorCode("text_too_long")
    public static let invalidText = ErrorCode("invalid_text")
    public static let invalidArgument = ErrorCode("invalid_argument")
    /// A send named something other than a plugin it goes through (a hook, a notice, a
    /// label): what a message came through is the server's to say.
    public static let invalidVia = ErrorCode("invalid_via")
    public static let rateLimited = ErrorCode("rate_limited")
    // Media and files
    public static let unknownMedia = ErrorCode("unknown_media")
    public static let unsupportedMedia = ErrorCode("unsupported_media")
    public static let mediaMismatch = ErrorCode("media_mismatch")
    public static let truncatedMedia = ErrorCode("truncated_media")
    public static let emptyFile = ErrorCode("empty_file")
    public static let fileTooLarge = ErrorCode("file_too_large")
    public static let fileNotFound = ErrorCode("file_not_found")
    public static let notAFile = ErrorCode("not_a_file")
    public static let fileExists = ErrorCode("file_exists")
    public static let noMedia = ErrorCode("no_media")
    public static let fileError = ErrorCode("file_error")
    // Hooks and bot tokens
    public static let unknownHook = ErrorCode("unknown_hook")
    public static let unknownBotToken = ErrorCode("unknown_bot_token")
    public static let unknownReminder = ErrorCode("unknown_reminder")
    public static let unknownReport = ErrorCode("unknown_report")
    public static let unknownBan = ErrorCode("unknown_ban")
    public static let bodyTooLarge = ErrorCode("body_too_large")
    /// What was asked for is more than one reply carries (`Wire.maxServerFrameBytes`):
    /// ask for fewer.
    public static let replyTooLarge = ErrorCode("reply_too_large")
    // Transport and internals
    public static let badFrame = ErrorCode("bad_frame")
    public static let unknownOp = ErrorCode("unknown_op")
    /// No route answers this HTTP method and path.
    public static let unknownPath = ErrorCode("unknown_path")
    public static let tooManySockets = ErrorCode("too_many_sockets")
    public static let pending = ErrorCode("pending")
    public static let unavailable = ErrorCode("unavailable")
    public static let internalError = ErrorCode("internal")
    /// Work stopped before it was done (a cancelled task, a prompt left with Ctrl-C).
    public static let cancelled = ErrorCode("cancelled")
}

/// The one error type that crosses the `ChatService` boundary.
///
/// ```swift
/// throw ParleyError(.notMember, "you are not a member of #swift")
/// ```
public struct ParleyError: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Any error as a ParleyError: itself if it is one, else `internal`.
    public init(_ error: any Error) {
        if error is CancellationError {
            self = ParleyError(.cancelled, "cancelled")
            return
        }
        self = error as? ParleyError ?? ParleyError(.internalError, "\(error)")
    }

    public var description: String { "\(code): \(message)" }
}
