import Foundation
import ParleyTesting
import Testing

/// Refusals on the IRC gateway say what was wrong with the right numeric, never with an
/// internal type's name, and change nothing.
@Suite(.timeLimit(.minutes(10))) struct IRCRefusalTests {
    @Test func refusalsNameNoInternalTypeAndAControlCharacterNamesNoChannel() throws {
        let world = try IRCGatewayTests.world()
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try irc.signIn("bob", password: "builder-123"))
        try irc.send("JOIN #swift")
        #expect(irc.wait(containing: " 366 bob #swift ") != nil)

        try irc.send("JOIN " + (1...11).map { "#g\($0)" }.joined(separator: ","))
        #expect(irc.wait(containing: " 407 bob ") != nil)
        try irc.send("PRIVMSG " + (1...11).map { "n\($0)" }.joined(separator: ",") + " :hi")
        #expect(irc.wait(containing: " 407 bob ") != nil)
        try irc.send("KICK #swift " + (1...50).map { "n\($0)" }.joined(separator: ","))
        #expect(irc.wait(containing: " 407 bob ") != nil)
        try irc.send("CAP")
        #expect(irc.wait(containing: " 461 bob CAP ") != nil)
        // A NUL after a channel's name is no way into that channel.
        try irc.send("PRIVMSG #swift\u{0} :smuggled")
        #expect(irc.wait(containing: " 403 bob #swift :") != nil)
        try irc.send("PRIVMSG #swift\u{0}evil :smuggled too")
        #expect(irc.wait(containing: " 403 bob #swiftevil :") != nil)
        try irc.send("TOPIC #swift\u{1} :taken over")
        #expect(irc.wait(containing: " 403 bob ") != nil)
        try irc.send("PING done")
        #expect(irc.wait(containing: "PONG parley done") != nil)
        #expect(!irc.lines.contains { $0.contains("internal") || $0.contains("IRCRefusal") }, "\(irc.lines)")

        let history = try world.alice.run("/history #swift 10")
        #expect(!history.stdout.contains("smuggled") && !history.stdout.contains("taken over"), "\(history.stdout)")
        #expect(history.stdout.contains("before bob came"))
    }

    @Test func tenWrongPasswordsFromOneAddressDoNotLockTheOwnerOutFromAnother() throws {
        let world = try IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        for _ in 0..<10 {
            let guesser = try IRCTestClient(port: port, from: "127.0.0.3")
            #expect(try !guesser.signIn("bob", password: "not-his-password"))
        }
        // The guessing address is held back, even with the right password…
        let held = try IRCTestClient(port: port, from: "127.0.0.3")
        #expect(try !held.signIn("bob", password: "builder-123"))
        #expect(held.lines.contains { $0.contains(" 904 ") && $0.contains("rate_limited") }, "\(held.lines)")
        // …while bob, from his own address, signs in through IRC and the shell.
        let owner = try IRCTestClient(port: port, from: "127.0.0.4")
        #expect(try owner.signIn("bob", password: "builder-123"))
        #expect(try world.bob.run("/login bob@example.com --password builder-123").status == 0)
    }
}
