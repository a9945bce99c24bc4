public import Foundation

/// Input rules shared by every client and enforced by the engine.
public enum Limits {
    public static let maxTextLength = 4000
    public static let maxDisplayNameLength = 64
    public static let minPasswordBytes = 8
    /// Long passphrases are welcome (past bcrypt's 72 bytes they are hashed with SHA-256
    /// first); this bounds the work one sign-in asks of the server.
    public static let maxPasswordBytes = 1024
    public static let groupHandleLength = 2...32
    public static let userHandleLength = 2...32
    public static let maxGroupTitleLength = 100
    public static let maxPageSize = 500
    /// Messages of one chat an IRC client may be played back when it connects (the
    /// playback reads one more, to know whether it was cut short).
    public static let maxPlayback = maxPageSize - 1
    public static let maxClientIDLength = 128
    /// The longest duration taken from outside (an invite's expiry, a wait, a sleep):
    /// about ten years. Anything longer is a mistake or an attack, and converting it to
    /// stored milliseconds would overflow.
    public static let maxDuration: Duration = .seconds(maxDurationDays * 86_400)
    public static let maxDurationDays: Int64 = 10 * 366

    /// Trims and checks a message text: 1–4,000 characters, no control characters
    /// other than newline and tab.
    public static func messageText(_ text: String) throws(ParleyError) -> String {
        let trimmed = text.trimmingSpaces(newlines: true)
        if trimmed.isEmpty { throw ParleyError(.emptyText, "a message needs some text") }
        if trimmed.count > maxTextLength {
            throw ParleyError(.textTooLong, "a message is at most \(maxTextLength) characters (this one has \(trimmed.count))")
        }
        if trimmed.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) {
            throw ParleyError(.invalidText, "a message may not contain control characters other than newline and tab")
        }
        return trimmed
    }

    /// Trims and checks a caption: like a message text, but it may be empty.
    public static func caption(_ text: String) throws(ParleyError) -> String {
        let trimmed = text.trimmingSpaces(newlines: true)
        return trimmed.isEmpty ? "" : try messageText(trimmed)
    }

    /// Trims and checks a display name: 1–64 characters, no control characters.
    public static func displayName(_ name: String) throws(ParleyError) -> String {
        let trimmed = name.trimmingSpaces()
        guard !trimmed.isEmpty, trimmed.count <= maxDisplayNameLength,
            !trimmed.unicodeScalars.contains(where: isControl)
        else {
            throw ParleyError(.invalidName, "a display name is 1–\(maxDisplayNameLength) characters without control characters")
        }
        return trimmed
    }

    /// A display name someone chooses: `displayName`'s rules, and nothing that lets it
    /// pass for someone or something else: no bidirectional or invisible characters (they
    /// reorder or hide what a terminal shows; a zero-width joiner inside an emoji is
    /// kept), no blank-looking letters, no leading `@` or `#` (a handle, a group), and
    /// none of the marks clients add to names (`(guest)`, `(bot)`).
    ///
    /// ```swift
    /// try Limits.chosenDisplayName("Olga (guest)")   // invalid_name
    /// ```
    public static func chosenDisplayName(_ name: String) throws(ParleyError) -> String {
        let trimmed = try displayName(name)
        if let bad = trimmed.unicodeScalars.first(where: isInvisible) {
            throw ParleyError(
                .invalidName,
                "a display name has no invisible or direction-changing characters (U+\(String(bad.value, radix: 16, uppercase: true)))")
        }
        if trimmed.hasPrefix("@") || trimmed.hasPrefix("#") {
            throw ParleyError(.invalidName, "a display name does not start with @ or #, which read as a handle or a group")
        }
        if trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " }) || trimmed.contains("  ") {
            throw ParleyError(.invalidName, "a display name's spaces are single plain spaces")
        }
        let folded = trimmed.lowercased().replacingOccurrences(of: " ", with: "")
        if drawnLabels.contains(where: { folded.contains($0) }) || folded.contains("*")
            || folded.range(of: #"\([^()]*hook\)"#, options: .regularExpression) != nil
        {
            throw ParleyError(
                .invalidName,
                "a display name does not carry (guest), (bot), (hook), (admin), (owner) or *: clients draw those marks themselves")
        }
        if reservedHandles.contains(folded) {
            throw ParleyError(.invalidName, "a display name is not the server's own or a service's")
        }
        return trimmed
    }

    /// Marks clients draw beside a name, which no name may carry.
    static let drawnLabels = ["(guest)", "(bot)", "(hook)", "(admin)", "(owner)", "(operator)", "(op)"]

    /// Handles nobody may take: the server's name, what IRC users know as services, and
    /// the words a reader takes for the server's own (`admin`, `hook`).
    public static let reservedHandles: Set<String> = [
        "parley", "nickserv", "chanserv", "operserv", "memoserv", "hostserv", "botserv", "saslserv", "services", "global",
        "admin", "administrator", "operator", "system", "hook", "webhook",
    ]

    /// Beginnings no handle may have: an erased account's placeholder is `deleted-ID`,
    /// and a handle that took one could block that erasure or pass for it.
    public static let reservedHandlePrefixes = ["deleted-"]

    /// Whether nobody may take `handle` (any case).
    public static func isReservedHandle(_ handle: String) -> Bool {
        let folded = handle.lowercased()
        return reservedHandles.contains(folded) || reservedHandlePrefixes.contains { folded.hasPrefix($0) }
    }

    /// Characters that show as nothing, or change the direction of what follows.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200D: return false  // joins emoji
        case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x180E: return true
        default: return scalar.properties.generalCategory == .format
        }
    }

    /// A group handle such as `swift` (a leading `#` is accepted and dropped; case is
    /// folded). It holds the characters IRC channel names commonly do: `_`, `-`, `.`.
    public static func groupHandle(_ handle: String) throws(ParleyError) -> String {
        let bare = (handle.hasPrefix("#") ? String(handle.dropFirst()) : handle).lowercased()
        guard groupHandleLength.contains(bare.count), bare.unicodeScalars.allSatisfy(isUserHandleScalar) else {
            throw ParleyError(.invalidHandle, "a group handle is 2–32 lowercase letters, digits, '-', '_' or '.', like #swift")
        }
        return bare
    }

    /// A user handle such as `alice` or `Alice` (a leading `@` is accepted and dropped).
    /// It keeps the case its owner chose; handles are unique, and found, ignoring case.
    public static func userHandle(_ handle: String) throws(ParleyError) -> String {
        let bare = handle.hasPrefix("@") ? String(handle.dropFirst()) : handle
        guard userHandleLength.contains(bare.count), bare.unicodeScalars.allSatisfy({ isUserHandleScalar($0) || ("A"..."Z").contains($0) }),
            bare.first != "-", bare.first != "."
        else {
            throw ParleyError(.invalidHandle, "a user handle is 2–32 letters, digits, '-', '_' or '.', like @alice")
        }
        return bare
    }

    /// A handle made from an email's local part: `Alice.Smith+x@example.com` → `alice.smith`.
    public static func handle(fromEmail email: String) -> String {
        let local = email.split(separator: "@").first.map(String.init) ?? ""
        let base = local.split(separator: "+").first.map(String.init) ?? local
        var handle = String(
            base.lowercased().unicodeScalars.filter(isUserHandleScalar).map(Character.init))
        while handle.first == "." || handle.first == "-" { handle.removeFirst() }
        if handle.count > 24 { handle = String(handle.prefix(24)) }
        if handle.count < 2 { handle = "user" + handle }
        return handle
    }

    /// Lowercases and checks an email address (one `@`, something on both sides, a dot in the domain).
    public static func email(_ email: String) throws(ParleyError) -> String {
        let folded = email.trimmingSpaces().lowercased()
        let parts = folded.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), folded.count <= 254,
            !folded.unicodeScalars.contains(where: { isControl($0) || $0 == " " })
        else {
            throw ParleyError(.invalidEmail, "'\(email)' is not an email address")
        }
        return folded
    }

    /// A phone number in E.164 form: `+` then 8–15 digits, the first not 0. Spaces,
    /// dashes, dots and parentheses are dropped: `+1 (555) 123-4567` → `+15551234567`.
    public static func phone(_ phone: String) throws(ParleyError) -> String {
        let kept = phone.unicodeScalars.filter { !" -.()\t".unicodeScalars.contains($0) }
        let text = String(String.UnicodeScalarView(kept))
        let digits = text.dropFirst()
        guard text.hasPrefix("+"), (8...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            digits.first != "0"
        else {
            throw ParleyError(.invalidPhone, "'\(phone)' is not a phone number in international form, like +15551234567")
        }
        return text
    }

    /// `minimum` is the server's setting (`minPasswordBytes` unless its operator chose another).
    public static func password(_ password: String, minimum: Int = minPasswordBytes) throws(ParleyError) {
        let bytes = password.utf8.count
        guard bytes >= minimum else {
            throw ParleyError(.invalidPassword, "a password needs at least \(minimum) characters")
        }
        guard bytes <= maxPasswordBytes else {
            throw ParleyError(.invalidPassword, "a password is at most \(maxPasswordBytes) bytes")
        }
    }

    /// A thread's title: as a group's, "" clearing it.
    public static func threadTitle(_ title: String) throws(ParleyError) -> String {
        let trimmed = title.trimmingSpaces()
        guard trimmed.count <= maxGroupTitleLength, !trimmed.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidArgument, "a thread's title is at most \(maxGroupTitleLength) characters without control characters")
        }
        return trimmed
    }

    public static func groupTitle(_ title: String) throws(ParleyError) -> String {
        let trimmed = title.trimmingSpaces()
        guard trimmed.count <= maxGroupTitleLength, !trimmed.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidName, "a group title is at most \(maxGroupTitleLength) characters without control characters")
        }
        return trimmed
    }

    public static func pageSize(_ limit: Int) throws(ParleyError) -> Int {
        guard (1...maxPageSize).contains(limit) else {
            throw ParleyError(.invalidArgument, "a page holds 1–\(maxPageSize) items")
        }
        return limit
    }

    /// Checks a duration given in (possibly fractional) seconds: finite, not negative,
    /// at most `maxDuration`.
    public static func duration(seconds: Double) throws(ParleyError) -> Duration {
        guard seconds.isFinite, seconds >= 0, seconds <= maxDuration.seconds else {
            throw ParleyError(.invalidArgument, "a duration is 0 to \(maxDurationDays) days")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    public static func clientID(_ id: String?) throws(ParleyError) -> String? {
        guard let id else { return nil }
        guard !id.isEmpty, id.utf8.count <= maxClientIDLength, !id.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidArgument, "a client id is 1–\(maxClientIDLength) printable bytes")
        }
        return id
    }

    /// Bot accounts one user may own.
    public static let maxBotsPerOwner = 20
    public static let maxInviteUses = 1_000_000

    /// Checks the limits of an invite or a sign-up code: 1 to a million uses, an expiry
    /// in the future and within `maxDurationDays`.
    public static func invitation(maxUses: Int?, expiresIn: Duration?) throws(ParleyError) {
        if let maxUses, !(1...maxInviteUses).contains(maxUses) {
            throw ParleyError(.invalidArgument, "an invite or code has 1 to \(maxInviteUses) uses")
        }
        if let expiresIn, expiresIn <= .zero { throw ParleyError(.invalidArgument, "an expiry must be in the future") }
        if let expiresIn, expiresIn > maxDuration {
            throw ParleyError(.invalidArgument, "an invite or code expires within \(maxDurationDays) days")
        }
    }

    /// The most handles one user watches (IRC's MONITOR).
    public static let maxPresenceWatches = 100

    /// How long an invitation sent to one user (IRC's INVITE) lets them join.
    public static let personalInviteLifetime: Duration = .seconds(24 * 60 * 60)

    /// The largest member limit a group may set.
    public static let maxMemberLimit = 100_000
    public static let maxGroupKeyLength = 32

    /// A group key: 1–32 printable bytes without spaces or commas (IRC splits on them);
    /// empty removes the key.
    public static func groupKey(_ key: String) throws(ParleyError) -> String {
        guard
            key.isEmpty || (key.utf8.count <= maxGroupKeyLength && !key.unicodeScalars.contains { isControl($0) || $0 == " " || $0 == "," })
        else {
            throw ParleyError(.invalidArgument, "a group key is 1–\(maxGroupKeyLength) printable bytes, without spaces or commas")
        }
        return key
    }

    public static let maxReasonLength = 200
    /// The longest server ban with an end: a year.
    public static let maxBanSeconds: Int64 = 366 * 86400
    /// The longest a group may set its retention to, on a server that keeps messages for good.
    public static let maxRetentionDays = 36_500

    /// Why someone left, kicked or quit: trimmed, printable, at most `maxReasonLength`
    /// bytes; nil when empty.
    public static func reason(_ text: String?) throws(ParleyError) -> String? {
        guard let trimmed = text?.trimmingSpaces(), !trimmed.isEmpty else { return nil }
        guard trimmed.utf8.count <= maxReasonLength, !trimmed.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidArgument, "a reason is at most \(maxReasonLength) printable bytes")
        }
        return trimmed
    }

    public static let maxTopicLength = 300
    public static let maxAwayLength = 200
    /// Different emoji on one message.
    public static let maxReactionsPerMessage = 20
    /// Members one message may mention by handle.
    public static let maxMentions = 50

    /// Trims and checks a group topic: at most 300 characters on one line (empty clears it).
    public static func topic(_ topic: String) throws(ParleyError) -> String? {
        let trimmed = topic.trimmingSpaces()
        guard trimmed.count <= maxTopicLength, !trimmed.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidText, "a topic is at most \(maxTopicLength) characters on one line")
        }
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Trims and checks an away message: at most 200 characters on one line; empty
    /// gives "away".
    public static func awayMessage(_ message: String?) throws(ParleyError) -> String {
        let trimmed = (message ?? "").trimmingSpaces()
        guard trimmed.count <= maxAwayLength, !trimmed.unicodeScalars.contains(where: isControl) else {
            throw ParleyError(.invalidText, "an away message is at most \(maxAwayLength) characters on one line")
        }
        return trimmed.isEmpty ? "away" : trimmed
    }

    /// Checks a reaction: one emoji (a single character of at most 32 bytes that is
    /// an emoji, with its modifiers and joiners).
    public static func emoji(_ emoji: String) throws(ParleyError) -> String {
        guard emoji.count == 1, emoji.utf8.count <= 32, let first = emoji.unicodeScalars.first,
            emoji.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
                || (first.properties.isEmoji && first.value > 0x7F)
        else {
            throw ParleyError(.invalidArgument, "a reaction is one emoji, like 👍")
        }
        return emoji
    }

    /// The most bytes a message's client-only tags take, keys and values together (what
    /// IRCv3 leaves clients of a line's 4,096 tag bytes).
    public static let maxClientTagBytes = 4094
    /// The most client-only tags one message or TAGMSG carries.
    public static let maxClientTags = 32

    /// Checks client-only tags (IRCv3 message-tags): each key starts with `+` and holds
    /// letters, digits, `-`, `/` and `.`; no value holds a control character; at most
    /// 32 tags in 4,094 bytes. Empty gives nil.
    public static func clientTags(_ tags: [String: String]?) throws(ParleyError) -> [String: String]? {
        guard let tags, !tags.isEmpty else { return nil }
        var bytes = 0
        for (key, value) in tags {
            let name = key.unicodeScalars.dropFirst()
            guard key.hasPrefix("+"), !name.isEmpty, name.count <= 255,
                name.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789-/.".unicodeScalars.contains($0)) }),
                !value.unicodeScalars.contains(where: isControl)
            else {
                throw ParleyError(
                    .invalidArgument, "a client tag is +name=value: a name of letters, digits, -, / and ., a value on one line")
            }
            bytes += key.utf8.count + value.utf8.count + 2  // strings in memory: no overflow
        }
        guard tags.count <= maxClientTags, bytes <= maxClientTagBytes else {
            throw ParleyError(.invalidArgument, "at most \(maxClientTags) client tags in \(maxClientTagBytes) bytes")
        }
        return tags
    }

    /// C0, DEL and C1 control characters.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// What a user handle is made of: a group handle's characters, `_` and `.`.
    public static func isUserHandleScalar(_ scalar: Unicode.Scalar) -> Bool {
        isHandleScalar(scalar) || scalar == "_" || scalar == "."
    }

    private static func isHandleScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }
}

extension Duration {
    /// The duration in seconds, with the fraction.
    public var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
