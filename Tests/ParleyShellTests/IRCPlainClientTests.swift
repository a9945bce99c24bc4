import Foundation
import ParleyTesting
import Testing

/// What a plain IRC client (no message-tags, no message-redaction: irssi, WeeChat's
/// defaults) shows of what the shell does to messages: an edit as a new line saying which
/// it corrects, a deletion as a notice, a reaction as an action line, a reply with the
/// head of what it answers.
@Suite(.timeLimit(.minutes(10))) struct IRCPlainClientTests {
    @Test func editsDeletionsReactionsAndRepliesReadSensiblyWithoutTags() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: ["server-time"]))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        // alice's messages are 2 and 3 in #swift (1 was sent before bob came).
        #expect(try await world.alice.run("/send #swift teh plan is simple\n/send #swift second thought").status == 0)
        let original = try #require(await irc.wait(containing: "PRIVMSG #swift :teh plan is simple"))
        #expect(await irc.wait(containing: "PRIVMSG #swift :second thought") != nil)
        let sentTime = try #require(original.split(separator: " ").first.map { String($0.dropFirst("@time=".count)) })
        let clock = String(sentTime.dropFirst(11).prefix(8)) + " UTC"

        #expect(try await world.alice.run("/edit #swift 2 the plan is simple").status == 0)
        let edit = try #require(await irc.wait(containing: ":alice!alice@parley PRIVMSG #swift :[edit of "))
        #expect(edit.hasSuffix("[edit of \(clock)] the plan is simple"), "\(edit)")
        let editTime = try #require(edit.split(separator: " ").first.map { String($0.dropFirst("@time=".count)) })
        #expect(editTime >= sentTime, "the correction is stamped when it was made, not under the original")

        #expect(try await world.alice.run("/react #swift 2 👍").status == 0)
        #expect(
            await irc.wait(containing: ":alice!alice@parley PRIVMSG #swift :\u{1}ACTION reacted 👍 to alice: \"the plan is simple\"\u{1}")
                != nil)

        #expect(try await world.alice.run("/reply #swift 2 agreed, simple").status == 0)
        #expect(await irc.wait(containing: "PRIVMSG #swift :[re alice: \"the plan is simple\"] agreed, simple") != nil)

        #expect(try await world.alice.run("/delete #swift 3").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley NOTICE #swift :[deleted their message of ") != nil)
        #expect(!irc.lines.contains { $0.contains("TAGMSG") || $0.contains("REDACT") }, "\(irc.lines)")
    }
}
