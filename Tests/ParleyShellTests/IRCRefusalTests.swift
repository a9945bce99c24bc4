import Foundation
import ParleyTesting
import Testing

/// Refusals on the IRC gateway say what was wrong with the right numeric, never with an
/// internal type's name, and change nothing.
@Suite(.timeLimit(.minutes(10))) struct IRCRefusalTests {
    @Test func refusalsNameNoInternalTypeAndAControlCharacterNamesNoChannel() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)

        try irc.send("JOIN " + (1...11).map { "#g\($0)" }.joined(separator: ","))
        #expect(await irc.wait(containing: " 407 bob ") != nil)
        try irc.send("PRIVMSG " + (1...11).map { "n\($0)" }.joined(separator: ",") + " :hi")
        #expect(await irc.wait(containing: " 407 bob ") != nil)
        try irc.send("KICK #swift " + (1...50).map { "n\($0)" }.joined(separator: ","))
        #expect(await irc.wait(containing: " 407 bob ") != nil)
        try irc.send("CAP")
        #expect(await irc.wait(containing: " 461 bob CAP ") != nil)
        // A NUL after a channel's name is no way into that channel.
        try irc.send("PRIVMSG #swift\u{0} :smuggled")
        #expect(await irc.wait(containing: " 403 bob #swift :") != nil)
        try irc.send("PRIVMSG #swift\u{0}evil :smuggled too")
        #expect(await irc.wait(containing: " 403 bob #swiftevil :") != nil)
        try irc.send("TOPIC #swift\u{1} :taken over")
        #expect(await irc.wait(containing: " 403 bob ") != nil)
        try irc.send("PING done")
        #expect(await irc.wait(containing: "PONG parley done") != nil)
        #expect(!irc.lines.contains { $0.contains("internal") || $0.contains("IRCRefusal") }, "\(irc.lines)")

        let history = try await world.alice.run("/history #swift 10")
        #expect(!history.stdout.contains("smuggled") && !history.stdout.contains("taken over"), "\(history.stdout)")
        #expect(history.stdout.contains("before bob came"))
    }

    @Test func tenWrongPasswordsFromOneAddressDoNotLockTheOwnerOutFromAnother() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        for _ in 0..<10 {
            let guesser = try IRCTestClient(port: port, from: "127.0.0.3")
            #expect(try await !guesser.signIn("bob", password: "not-his-password"))
        }
        // The guessing address is held back, even with the right password…
        let held = try IRCTestClient(port: port, from: "127.0.0.3")
        #expect(try await !held.signIn("bob", password: "builder-123"))
        #expect(held.lines.contains { $0.contains(" 904 ") && $0.contains("rate_limited") }, "\(held.lines)")
        // …while bob, from his own address, signs in through IRC and the shell.
        let owner = try IRCTestClient(port: port, from: "127.0.0.4")
        #expect(try await owner.signIn("bob", password: "builder-123"))
        #expect(try await world.bob.run("/login bob@example.com --password builder-123").status == 0)
    }

    @Test func namesThatPassForAnotherAreRefused() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: ["setname"]))
        for name in ["Alice", "@alice", "alice (guest)", "Bob (bot)", "Ev\u{202E}il", "zero\u{200B}width", "\u{3164}"] {
            try irc.send("SETNAME :\(name)")
            let refused = try #require(await irc.wait(containing: "FAIL SETNAME INVALID_REALNAME"), "\(name) should be refused")
            #expect(refused.contains("invalid_name") || refused.contains("display name"), "\(refused)")
        }
        try irc.send("SETNAME :Bob the Builder")
        #expect(await irc.wait(containing: "SETNAME :Bob the Builder") != nil)
        let whois = try await world.alice.run("/whois @bob")
        #expect(whois.stdout.contains("Bob the Builder"), "\(whois.stdout)")
        // The shell refuses them too, with their code.
        let shell = try await world.bob.run("/profile --name \"@alice\"")
        #expect(shell.status != 0 && shell.stderr.contains("invalid_name"), "\(shell.stderr)")
    }

    @Test func theServersNameAndServicesAreNoGuestsNick() async throws {
        let world = try await IRCGatewayTests.guestWorld()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        for nick in ["parley", "NickServ", "chanserv"] {
            let guest = try IRCTestClient(port: port)
            try guest.send("NICK \(nick)")
            try guest.send("USER \(nick) 0 * :\(nick)")
            #expect(await guest.wait(containing: " 432 * \(nick) ") != nil, "\(nick): \(guest.lines)")
        }
        let guest = try IRCTestClient(port: port)
        #expect(try await guest.joinAsGuest("visitor", realname: "Visitor", capabilities: []))
        try guest.send("NICK ChanServ")
        #expect(await guest.wait(containing: " 432 visitor ChanServ ") != nil)
    }
}
