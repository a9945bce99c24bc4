import ParleyCore

/// A channel MODE line read into what it asks, before anything is checked against the
/// group: which roles and bans to change, which group rules, and what to refuse. Each
/// mode is a group setting in the engine (docs/irc.md): +o and +v are roles, +b bans a
/// nick, +m moderates, +t is the topic rule, +i and +s make the group private, +k is
/// its key, +l its member limit; +n is always on.
struct IRCModeRequest: Equatable {
    enum Step: Equatable {
        /// +o/-o, +v/-v on a nick.
        case role(Character, adding: Bool, nick: String)
        /// +b without a mask: the ban list.
        case listBans
        /// +b/-b on the nick a mask names.
        case ban(adding: Bool, mask: String, nick: String)
        /// A rule letter that goes into `rules`, with the parameter the echo shows.
        case rule(Character, adding: Bool, parameter: String?)
        /// A numeric to answer with (its parameters after the user's nick), nothing done.
        case refusal(String, [String])
    }

    var steps: [Step] = []
    /// The group rules the line sets, applied at once after the steps.
    var rules = GroupRulesChange()

    /// Reads `letters` (`+mt-i`, `+o`) with the parameters after them, for `target`.
    /// A mode that needs a parameter and has none is skipped, as IRC servers do.
    init(_ letters: String, arguments: some Sequence<String>, target: String) {
        var arguments = arguments.makeIterator()
        var adding = true
        for letter in letters {
            switch letter {
            case "+": adding = true
            case "-": adding = false
            case "o", "v":
                guard let nick = arguments.next() else { continue }
                steps.append(.role(letter, adding: adding, nick: nick))
            case "b":
                guard let mask = arguments.next() else {
                    steps.append(.listBans)
                    continue
                }
                guard let nick = Self.nick(fromMask: mask) else {
                    steps.append(
                        .refusal(IRCNumeric.invalidModeParam, [target, "b", mask, "Parley bans a nick (nick or nick!*@*), not a pattern"]))
                    continue
                }
                steps.append(.ban(adding: adding, mask: mask, nick: nick))
            case "m": setRule(letter, adding) { $0.moderated = adding }
            case "t": setRule(letter, adding) { $0.anyoneSetsTopic = !adding }
            case "i": setRule(letter, adding) { $0.isPublic = !adding }
            case "s": setRule(letter, adding) { $0.unlisted = adding }
            case "n":
                if !adding { steps.append(.refusal(IRCNumeric.unknownMode, ["n", "is always set: only members post"])) }
            case "k" where adding:
                guard let key = arguments.next() else { continue }
                guard !key.isEmpty, (try? Limits.groupKey(key)) != nil else {
                    steps.append(.refusal(IRCNumeric.invalidKey, [target, "Key is not well-formed"]))
                    continue
                }
                setRule(letter, adding, key) { $0.key = key }
            case "k":
                // -k takes the key as its parameter, whatever it says.
                _ = arguments.next()
                setRule(letter, adding, "*") { $0.key = "" }
            case "l" where adding:
                guard let text = arguments.next() else { continue }
                guard let limit = Int(text), (1...Limits.maxMemberLimit).contains(limit) else {
                    steps.append(.refusal(IRCNumeric.invalidModeParam, [target, "l", text, "A limit is 1 to \(Limits.maxMemberLimit)"]))
                    continue
                }
                setRule(letter, adding, String(limit)) { $0.memberLimit = limit }
            case "l":
                setRule(letter, adding) { $0.memberLimit = 0 }
            default:
                steps.append(.refusal(IRCNumeric.unknownMode, [String(letter), "is not a mode Parley has"]))
            }
        }
    }

    private mutating func setRule(_ letter: Character, _ adding: Bool, _ parameter: String? = nil, _ set: (inout GroupRulesChange) -> Void)
    {
        set(&rules)
        steps.append(.rule(letter, adding: adding, parameter: parameter))
    }

    /// The nick a ban mask names: `nick`, `nick!*@*` or `nick!*`; nil for a pattern.
    static func nick(fromMask mask: String) -> String? {
        let nick = String(mask.prefix { $0 != "!" })
        let rest = mask.dropFirst(nick.count)
        guard rest.isEmpty || rest == "!*@*" || rest == "!*", (try? Limits.userHandle(nick)) != nil else { return nil }
        return nick
    }

    /// The modes a group has, as 324 gives them: letters, then their parameters.
    static func modes(of chat: Chat) -> [String] {
        var letters = "+n"
        var parameters: [String] = []
        if !chat.anyoneSetsTopic { letters += "t" }
        if chat.moderated { letters += "m" }
        if !chat.isPublic { letters += "i" }
        if chat.unlisted { letters += "s" }
        if chat.keyed {
            letters += "k"
            parameters.append("*")
        }
        if let limit = chat.memberLimit {
            letters += "l"
            parameters.append(String(limit))
        }
        return [letters] + parameters
    }
}

/// The MODE line that says what was applied: `+ov-m alice bob`, the sign written only
/// where it changes.
struct IRCModeEcho {
    /// The modes that differ between two states of a group, as a MODE line's sign letters
    /// and parameters; nil when none does.
    static func changes(from before: Chat, to after: Chat) -> [String]? {
        var echo = IRCModeEcho()
        func flag(_ letter: Character, _ old: Bool, _ new: Bool) { if old != new { echo.note(letter, adding: new) } }
        flag("t", !before.anyoneSetsTopic, !after.anyoneSetsTopic)
        flag("m", before.moderated, after.moderated)
        flag("i", !before.isPublic, !after.isPublic)
        flag("s", before.unlisted, after.unlisted)
        if before.keyed != after.keyed { echo.note("k", adding: after.keyed, "*") }
        if before.memberLimit != after.memberLimit {
            if let limit = after.memberLimit { echo.note("l", adding: true, String(limit)) } else { echo.note("l", adding: false) }
        }
        return echo.signs.isEmpty ? nil : [echo.signs] + echo.parameters
    }

    private(set) var signs = ""
    private(set) var parameters: [String] = []
    private var lastSign: Character?

    mutating func note(_ letter: Character, adding: Bool, _ parameter: String? = nil) {
        let sign: Character = adding ? "+" : "-"
        if sign != lastSign {
            signs.append(sign)
            lastSign = sign
        }
        signs.append(letter)
        if let parameter { parameters.append(parameter) }
    }
}
