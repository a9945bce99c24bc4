import Foundation
import ParleyCore
import Testing

@testable import ParleyIRC

/// Channel modes, in process: what a MODE line asks of the group, what 324 says a group
/// has, and the echo of what was applied.
@Suite struct IRCModeTests {
    func read(_ letters: String, _ arguments: String...) -> IRCModeRequest {
        IRCModeRequest(letters, arguments: arguments, target: "#swift")
    }

    @Test func rolesTakeTheirNicksInOrder() {
        let request = read("+ov-v", "alice", "bob", "carol")
        #expect(
            request.steps == [
                .role("o", adding: true, nick: "alice"), .role("v", adding: true, nick: "bob"), .role("v", adding: false, nick: "carol"),
            ])
        #expect(request.rules.isEmpty)
        // A role without its nick is skipped, as IRC servers skip it.
        #expect(read("+o").steps.isEmpty)
    }

    @Test func rulesBecomeOneGroupChange() {
        let request = read("+mt-is")
        #expect(request.rules == GroupRulesChange(anyoneSetsTopic: false, isPublic: true, moderated: true, unlisted: false))
        #expect(
            request.steps == [
                .rule("m", adding: true, parameter: nil), .rule("t", adding: true, parameter: nil),
                .rule("i", adding: false, parameter: nil), .rule("s", adding: false, parameter: nil),
            ])
        // The last word on a letter wins.
        #expect(read("+m-m").rules.moderated == false)
        #expect(read("+i").rules.isPublic == false)
        #expect(read("+s").rules.unlisted == true)
        #expect(read("-t").rules.anyoneSetsTopic == true)
    }

    @Test func aKeyIsCheckedAndNeverEchoedWhenRemoved() {
        #expect(read("+k", "sesame").rules.key == "sesame")
        #expect(read("+k", "sesame").steps == [.rule("k", adding: true, parameter: "sesame")])
        let removed = read("-k", "whatever")
        #expect(removed.rules.key == "")
        #expect(removed.steps == [.rule("k", adding: false, parameter: "*")])
        // -k takes its parameter even when wrong, so the next mode gets the right one.
        #expect(read("-k+o", "wrong", "alice").steps.last == .role("o", adding: true, nick: "alice"))
        let spaced = read("+k", "two words")
        #expect(spaced.rules.key == nil)
        #expect(spaced.steps == [.refusal(IRCNumeric.invalidKey, ["#swift", "Key is not well-formed"])])
        #expect(read("+k").steps.isEmpty)
    }

    @Test func aLimitIsANumberInRange() {
        #expect(read("+l", "25").rules.memberLimit == 25)
        #expect(read("-l").rules.memberLimit == 0)
        for bad in ["0", "-3", "ten", "99999999999999999999", String(Limits.maxMemberLimit + 1)] {
            let request = read("+l", bad)
            #expect(request.rules.memberLimit == nil, "\(bad)")
            #expect(
                request.steps == [.refusal(IRCNumeric.invalidModeParam, ["#swift", "l", bad, "A limit is 1 to \(Limits.maxMemberLimit)"])])
        }
    }

    @Test func bansNameANickNotAPattern() {
        #expect(read("+b").steps == [.listBans])
        #expect(read("+b", "mallory").steps == [.ban(adding: true, mask: "mallory", nick: "mallory")])
        #expect(read("-b", "mallory!*@*").steps == [.ban(adding: false, mask: "mallory!*@*", nick: "mallory")])
        #expect(read("+b", "mallory!*").steps == [.ban(adding: true, mask: "mallory!*", nick: "mallory")])
        for pattern in ["*!*@evil.example", "mal*", "mallory!user@host", "!*@*"] {
            let steps = read("+b", pattern).steps
            #expect(
                steps == [
                    .refusal(IRCNumeric.invalidModeParam, ["#swift", "b", pattern, "Parley bans a nick (nick or nick!*@*), not a pattern"])
                ])
        }
    }

    @Test func unknownAndFixedModesAreRefusedByName() {
        #expect(read("+z").steps == [.refusal(IRCNumeric.unknownMode, ["z", "is not a mode Parley has"])])
        #expect(read("-n").steps == [.refusal(IRCNumeric.unknownMode, ["n", "is always set: only members post"])])
        #expect(read("+n").steps.isEmpty)
        // The rest of the line still counts.
        let mixed = read("+zm")
        #expect(mixed.rules.moderated == true)
        #expect(mixed.steps.count == 2)
    }

    @Test func whatAGroupHasIsListedWithItsParameters() {
        var chat = Chat(
            id: ChatID(7), kind: .group, handle: "swift", title: nil, isPublic: true, participants: [], createdAt: Date(),
            anyoneSetsTopic: true)
        #expect(IRCModeRequest.modes(of: chat) == ["+n"])
        chat.anyoneSetsTopic = false
        chat.moderated = true
        chat.isPublic = false
        chat.unlisted = true
        chat.keyed = true
        chat.memberLimit = 12
        // The key itself is never shown.
        #expect(IRCModeRequest.modes(of: chat) == ["+ntmiskl", "*", "12"])
    }

    @Test func theEchoWritesASignOnlyWhereItChanges() {
        var echo = IRCModeEcho()
        echo.note("o", adding: true, "alice")
        echo.note("v", adding: true, "bob")
        echo.note("m", adding: false)
        echo.note("k", adding: false, "*")
        echo.note("l", adding: true, "5")
        #expect(echo.signs == "+ov-mk+l")
        #expect(echo.parameters == ["alice", "bob", "*", "5"])
    }
}
