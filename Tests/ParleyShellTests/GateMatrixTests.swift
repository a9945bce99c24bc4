import Foundation
import ParleyEngine
import ParleyTesting
import Testing

/// The rules × doors matrix: every rule the gate and the engine's verbs hold (`GateRule`)
/// at every way in (`Door`), each cell either a request through the binary that must be
/// refused with its code, or the reason the door can't be asked it. A door or a rule
/// added in code without its cells here fails `everyDoorHasEveryRule`; a refusal that
/// lets something through fails `everyDoorRefuses`, on both stores.
@Suite(.timeLimit(.minutes(15))) struct GateMatrixTests {
    enum Cell {
        /// Refused with this code (over IRC: the numeric or text the gateway gives it).
        case refused(String)
        /// The door can't be asked this, and why.
        case notAsked(String)
    }

    static let noAddress = "no client address: the server itself makes the call"
    static let hookNotSigned = "a hook's call carries no session: a removed hook is no longer called"
    static let hookNoRole = "posting through a hook needs no role, only the maker's membership (making one is refused forbidden)"
    static let embeddedNoOperators = "an embedded database has no operators (no --admin) to suspend or ban"
    static let embeddedLocal = "a local process: no address, no token, no rate (the file's permissions are the gate)"
    static let noProvenance = "an upload carries no provenance: the send that shows it is the WebSocket's or the API's cell"

    /// The matrix itself. Codes are the wire's; an IRC cell names what the gateway turns
    /// the same refusal into (docs/server.md, "Rules at every door").
    static let matrix: [Door: [GateRule: Cell]] = [
        .webSocket: [
            .signedOut: .refused("not_signed_in"), .revokedToken: .refused("invalid_token"), .suspended: .refused("account_suspended"),
            .bannedAccount: .refused("server_banned"), .bannedRange: .refused("server_banned"), .notMember: .refused("not_member"),
            .notAdmin: .refused("forbidden"), .overRate: .refused("close 4029"), .tooLarge: .refused("text_too_long"),
            .forgedProvenance: .refused("invalid_via"),
        ],
        .irc: [
            .signedOut: .refused(" 451 "), .revokedToken: .refused("ERROR :Closing link: "), .suspended: .refused("account_suspended"),
            .bannedAccount: .refused("server_banned"), .bannedRange: .refused("server_banned"), .notMember: .refused(" 404 "),
            .notAdmin: .refused(" 482 "), .overRate: .refused("ERROR :Closing link: Excess Flood"), .tooLarge: .refused(" 417 "),
            .forgedProvenance: .notAsked(
                "a line has no field for it: client tags stay the client's and the message shows the sender (DoorRulesScriptTests)"),
        ],
        .httpAPI: [
            .signedOut: .refused("not_signed_in"), .revokedToken: .refused("invalid_token"), .suspended: .refused("account_suspended"),
            .bannedAccount: .refused("server_banned"), .bannedRange: .refused("server_banned"), .notMember: .refused("not_member"),
            .notAdmin: .refused("forbidden"), .overRate: .refused("rate_limited"), .tooLarge: .refused("text_too_long"),
            .forgedProvenance: .refused("invalid_via"),
        ],
        .media: [
            .signedOut: .refused("not_signed_in"), .revokedToken: .refused("invalid_token"), .suspended: .refused("account_suspended"),
            .bannedAccount: .refused("server_banned"), .bannedRange: .refused("server_banned"),
            // An outsider can't tell a file of a chat they're not in from one that doesn't exist.
            .notMember: .refused("unknown_media"),
            .notAdmin: .notAsked("files are read by membership; no upload or download needs a role"),
            .overRate: .refused("rate_limited"), .tooLarge: .refused("file_too_large"), .forgedProvenance: .notAsked(noProvenance),
        ],
        .incomingHook: [
            // The URL is the credential: a wrong one and a revoked one read alike.
            .signedOut: .refused("unknown_hook"), .revokedToken: .refused("unknown_hook"),
            .suspended: .refused("account_suspended"), .bannedAccount: .refused("server_banned"),
            .bannedRange: .refused("server_banned"),
            // A maker who left: the hook is dead, and the poster (who holds a URL) isn't told who.
            .notMember: .refused("unknown_hook"),
            .notAdmin: .notAsked(hookNoRole), .overRate: .refused("rate_limited"), .tooLarge: .refused("body_too_large"),
            .forgedProvenance: .notAsked("the server sets a hook's provenance; a payload's username shows inside the hook's label"),
        ],
        .outgoingHookAnswer: [
            .signedOut: .notAsked(hookNotSigned), .revokedToken: .notAsked(hookNotSigned),
            // What the maker would be told; the hook's failure says it in /hooks.
            .suspended: .refused("account_suspended"), .bannedAccount: .refused("server_banned"),
            .bannedRange: .notAsked(noAddress), .notMember: .refused("not_member"), .notAdmin: .notAsked(hookNoRole),
            .overRate: .notAsked("calls are bounded as they go out (32 under way on a node, 4 per hook), not as they answer"),
            .tooLarge: .notAsked("an answer is read up to a bound and cut to a message's length, marked, as a hook's post is"),
            .forgedProvenance: .notAsked("an answer is only its text: posted as the hook's, any other field ignored"),
        ],
        .embedded: [
            .signedOut: .refused("not_signed_in"), .revokedToken: .notAsked(embeddedLocal), .suspended: .notAsked(embeddedNoOperators),
            .bannedAccount: .notAsked(embeddedNoOperators), .bannedRange: .notAsked(embeddedLocal), .notMember: .refused("not_member"),
            .notAdmin: .refused("forbidden"), .overRate: .notAsked(embeddedLocal), .tooLarge: .refused("text_too_long"),
            .forgedProvenance: .notAsked(
                "the shell has no way to name one; a plugin's label is made from its file's name, in the one form a send may carry"),
        ],
    ]

    /// The matrix as a table, doors down and rules across (printed, and in the notes).
    static var table: String {
        var lines = ["| door | " + GateRule.allCases.map(\.rawValue).joined(separator: " | ") + " |"]
        lines.append("|" + String(repeating: " --- |", count: GateRule.allCases.count + 1))
        for door in Door.allCases {
            let cells = GateRule.allCases.map { rule -> String in
                switch matrix[door]?[rule] {
                case .refused(let code): "`\(code.trimmingCharacters(in: .whitespaces))`"
                case .notAsked: "—"
                case nil: "MISSING"
                }
            }
            lines.append("| \(door.rawValue) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func everyDoorHasEveryRule() {
        for door in Door.allCases {
            for rule in GateRule.allCases {
                #expect(Self.matrix[door]?[rule] != nil, "no cell for \(rule.rawValue) at the \(door.rawValue) door")
            }
        }
        print(Self.table)
    }

    @Test(arguments: StoreKind.all) func everyDoorRefuses(_ store: StoreKind) async throws {
        let world = try await GateFixture(store: store)
        defer { world.remove() }
        try await world.setUp()
        // Rules that need no change of standing first, then each standing in turn, then
        // the rates (they leave accounts owing).
        let order: [GateRule] = [
            .signedOut, .revokedToken, .notAdmin, .tooLarge, .forgedProvenance, .suspended, .bannedAccount, .bannedRange, .notMember,
            .overRate,
        ]
        #expect(Set(order) == Set(GateRule.allCases))
        for rule in order {
            try await world.enter(rule)
            for door in Door.allCases {
                guard case .refused(let code) = Self.matrix[door]?[rule] else { continue }
                let seen = try await world.probe(door, rule)
                if ProcessInfo.processInfo.environment["GATE_MATRIX_SHOW"] != nil {
                    print("[\(rule.rawValue) @ \(door.rawValue)] \(seen.prefix(300))")
                }
                #expect(seen.contains(code), "\(rule.rawValue) at the \(door.rawValue) door: wanted \(code), saw \(seen.prefix(400))")
            }
            try await world.leave(rule)
        }
        // Nothing a refused request carried landed anywhere.
        let history = try await world.everyHistory()
        #expect(!history.contains(GateFixture.refusedMark), "\(history)")
    }
}
