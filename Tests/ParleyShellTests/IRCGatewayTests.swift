import Foundation
import ParleyTesting
import Testing

/// `parley serve --irc-port`: an IRC client and Parley's shell in the same groups,
/// through the real binary and real TCP.
@Suite(.timeLimit(.minutes(10))) struct IRCGatewayTests {
    /// A server with the gateway, and alice (owner of #swift, with a topic) and bob
    /// signed up through the shell.
    struct World {
        var server: ServeProcess
        var alice: ParleyBinary
        var bob: ParleyBinary
        var folder: URL

        func remove() {
            server.stop()
            alice.remove()
            bob.remove()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The IRC test client reads only while it waits for a line, so it misses the
    /// server's PINGs while a shell runs: a ping timeout long enough that no load trips
    /// it, except for the test of the ping timeout itself.
    static func world(pingTimeout: Int = 600, arguments: [String] = []) async throws -> World {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-irc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--irc-port", "0", "--ping-timeout", String(pingTimeout)] + arguments)
        let alice = ParleyBinary(serverURL: server.url)
        let bob = ParleyBinary(serverURL: server.url)
        let made = try await alice.run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #swift Swift on Linux
            /topic #swift all things Swift
            /send #swift before bob came
            """)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123").status == 0)
        return World(server: server, alice: alice, bob: bob, folder: folder)
    }

    @Test func aShellUserAndAnIRCClientSeeEachOthersMessagesInAGroup() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: ["server-time", "message-tags", "echo-message"]))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: ":bob!bob@parley JOIN #swift") != nil)
        #expect(await irc.wait(containing: " 332 bob #swift :all things Swift") != nil)
        let names = try #require(await irc.wait(containing: " 353 bob = #swift :"))
        #expect(names.hasSuffix(":@alice bob"))
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)

        // The shell speaks; the IRC client hears it as a PRIVMSG with its time and id.
        #expect(try await alice.run("/send #swift hello irc").status == 0)
        let heard = try #require(await irc.wait(containing: "PRIVMSG #swift :hello irc"))
        #expect(heard.hasPrefix("@msgid=") && heard.contains(";time=") && heard.contains(" :alice!alice@parley PRIVMSG"))

        // The IRC client speaks: echoed once stored, and in the shell's history.
        try irc.send("PRIVMSG #swift :hello shell")
        #expect(await irc.wait(containing: ":bob!bob@parley PRIVMSG #swift :hello shell") != nil)
        let history = try await alice.run("/history #swift 5")
        #expect(history.lines.contains { $0.hasSuffix("<bob> hello shell") }, "\(history.lines)")

        // A topic set in the shell, and a kick, reach the IRC client as lines.
        #expect(try await alice.run("/topic #swift Swift 6.2").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley TOPIC #swift :Swift 6.2") != nil)
        #expect(try await alice.run("/kick @bob #swift").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley KICK #swift bob") != nil)
        try irc.send("PRIVMSG #swift :still here?")
        #expect(await irc.wait(containing: " 404 bob #swift ") != nil, "a kicked user can no longer send to the channel")
    }

    @Test func aDirectMessageCrossesBothWays() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: ["echo-message"]))
        try irc.send("PRIVMSG alice :psst, from irc")
        #expect(await irc.wait(containing: "PRIVMSG alice :psst, from irc") != nil)
        let history = try await alice.run("/history @bob 5")
        #expect(history.lines.contains { $0.hasSuffix("<bob> psst, from irc") }, "\(history.lines)")
        #expect(try await alice.run("/msg @bob and back from the shell").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley PRIVMSG bob :and back from the shell") != nil)
    }

    @Test func wrongCredentialsGetTheirNumericsAndNoSession() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let server = world.server
        let port = try #require(server.ircPort)
        let sasl = try IRCTestClient(port: port)
        #expect(try await !sasl.signIn("bob", password: "not-his-password"))
        #expect(sasl.lines.contains { $0.contains(" 904 ") })

        let pass = try IRCTestClient(port: port)
        try pass.send("PASS wrong-password")
        try pass.send("NICK bob")
        try pass.send("USER bob 0 * :Bob")
        #expect(await pass.wait(containing: " 464 ") != nil)
        #expect(await pass.wait(containing: "ERROR :Closing link") != nil)

        let right = try IRCTestClient(port: port)
        try right.send("PASS bob:builder-123")
        try right.send("NICK whoever")
        try right.send("USER bob 0 * :Bob")
        #expect(await right.wait(containing: ":whoever!whoever@parley NICK bob") != nil, "the nick is the handle")
        #expect(await right.wait(containing: " 001 bob ") != nil)
        try right.send("FROBNICATE now")
        #expect(await right.wait(containing: " 421 bob FROBNICATE ") != nil)

        // Hostile lines get their numerics, store nothing, and the connection goes on.
        try right.send("JOIN #swift")
        #expect(await right.wait(containing: " 366 bob #swift ") != nil)
        try right.send("PRIVMSG #swift :" + String(repeating: "x", count: 600))
        #expect(await right.wait(containing: " 417 bob ") != nil)
        try right.send("PRIVMSG #swift :" + String(repeating: "y", count: 20_000))
        #expect(await right.wait(containing: " 417 bob ") != nil)
        try right.send("JOIN " + (1...11).map { "#g\($0)" }.joined(separator: ","))
        #expect(await right.wait(containing: " 407 bob ") != nil)
        try right.send("PING :still-there")
        #expect(await right.wait(containing: "PONG parley still-there") != nil)
        let history = try await world.alice.run("/history #swift 5")
        #expect(!history.stdout.contains("xxxx") && !history.stdout.contains("yyyy"))
    }

    /// An IRC client that goes silent (no line, no PONG) is closed within the ping
    /// timeout, and its user goes offline, as a WebSocket's does.
    @Test func aSilentIRCConnectionGoesOfflineWithinThePingTimeout() async throws {
        let world = try await Self.world(pingTimeout: 15)
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        let bobOnline = { try await world.alice.run("/online #swift").lines.contains { $0.hasPrefix("@bob") } }
        #expect(try await Self.eventually { try await bobOnline() })
        // Silent from now on: the server's PINGs go unanswered.
        #expect(try await Self.eventually { try await !bobOnline() })
        #expect(await irc.wait(containing: "ERROR :Closing link: ping timeout") != nil)
    }

    /// `--irc-guests`: a client without credentials under a free nick talks as a guest,
    /// makes a channel by joining it, is shown as a guest to shell users, cannot take an
    /// account's nick, and frees its own nick when it leaves; its words stay in history.
    /// A server that lets IRC clients in as guests, and alice signed up through the shell.
    struct GuestWorld {
        var server: ServeProcess
        var alice: ParleyBinary
        var folder: URL

        func remove() {
            server.stop()
            alice.remove()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func guestWorld() async throws -> GuestWorld {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-irc-\(UUID().uuidString)")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"),
            arguments: ["--irc-port", "0", "--irc-guests", "--min-password-length", "6", "--ping-timeout", "600"])
        let world = GuestWorld(server: server, alice: ParleyBinary(serverURL: server.url), folder: folder)
        // --min-password-length: six bytes are enough on this server.
        #expect(try await world.alice.run("/register alice@example.com --handle alice --password secret").status == 0)
        return world
    }

    @Test func guestsTalkUnderAFreeNickAndLeaveTheirWordsBehind() async throws {
        let world = try await Self.guestWorld()
        defer { world.remove() }
        let alice = world.alice
        let port = try #require(world.server.ircPort)

        let taken = try IRCTestClient(port: port)
        try taken.send("NICK Alice")
        try taken.send("USER a 0 * :A")
        #expect(await taken.wait(containing: " 433 * Alice ") != nil, "an account's nick is not a guest's")

        let guest = try IRCTestClient(port: port)
        #expect(try await guest.joinAsGuest("visitor", realname: "V", capabilities: ["echo-message"]))
        try guest.send("JOIN #lobby")
        #expect(await guest.wait(containing: " 353 visitor = #lobby @visitor") != nil, "joining a channel nobody made makes it")
        #expect(try await alice.run("/join #lobby").status == 0)
        #expect(await guest.wait(containing: ":alice!alice@parley JOIN #lobby") != nil)
        try guest.send("PRIVMSG #lobby :hello from a guest")
        #expect(await guest.wait(containing: ":visitor!visitor@parley PRIVMSG #lobby :hello from a guest") != nil)
        let members = try await alice.run("/members #lobby")
        #expect(members.stdout.contains("visitor (guest)"), "\(members.stdout)")

        let second = try IRCTestClient(port: port)
        try second.send("NICK visitor")
        try second.send("USER v 0 * :V")
        #expect(await second.wait(containing: " 433 * visitor ") != nil, "a connected guest's nick is taken")
        try second.send("NICK visitor2")
        #expect(await second.wait(containing: " 001 visitor2 ") != nil)

        try guest.send("QUIT :bye")
        #expect(await guest.wait(containing: "ERROR ") != nil)
        // Its nick is free again once it is gone.
        #expect(
            try await Self.eventually {
                let next = try IRCTestClient(port: port)
                try next.send("NICK visitor")
                try next.send("USER v 0 * :V")
                return await next.wait(for: { $0.contains(" 001 ") || $0.contains(" 433 ") })?.contains(" 001 visitor ") == true
            })
        let history = try await alice.run("/history #lobby 5")
        #expect(history.lines.contains { $0.contains("hello from a guest") }, "\(history.lines)")
    }

    /// A group's text is serialized once for each combination of the capabilities its
    /// line depends on: each client gets the tags it asked for and no other's, and
    /// clients that differ only in other capabilities get the same line.
    @Test func eachClientHearsAGroupsTextWithTheTagsItAskedFor() async throws {
        let world = try await Self.guestWorld()
        defer { world.remove() }
        let alice = world.alice
        let port = try #require(world.server.ircPort)
        let asked: [(nick: String, capabilities: [String])] = [
            ("tagged", ["server-time", "message-tags"]),
            ("plain", ["away-notify"]),
            ("alsotagged", ["message-tags", "away-notify", "server-time"]),
            ("accounted", ["account-tag"]),
        ]
        var clients: [String: IRCTestClient] = [:]
        for (nick, capabilities) in asked {
            let client = try IRCTestClient(port: port)
            #expect(try await client.joinAsGuest(nick, realname: nick, capabilities: capabilities))
            try client.send("JOIN #lobby")
            #expect(await client.wait(containing: " 366 \(nick) #lobby ") != nil)
            clients[nick] = client
        }
        #expect(try await alice.run("/join #lobby").status == 0)
        #expect(try await alice.run("/send #lobby shaped alike").status == 0)
        var heard: [String: String] = [:]
        for (nick, client) in clients { heard[nick] = await client.wait(containing: "PRIVMSG #lobby :shaped alike") }

        let line = ":alice!alice@parley PRIVMSG #lobby :shaped alike"
        #expect(heard["plain"] == line)
        let tagged = try #require(heard["tagged"])
        let tags = try #require(tagged.split(separator: " ").first).dropFirst().split(separator: ";").map(String.init)
        #expect(tags.contains { $0.hasPrefix("time=") } && tags.contains { $0.hasPrefix("msgid=") })
        #expect(!tags.contains { $0.hasPrefix("account=") })
        #expect(tagged.hasSuffix(" " + line))
        #expect(heard["alsotagged"] == tagged, "the same capabilities that shape a line, the same line")
        #expect(heard["accounted"] == "@account=alice " + line)
    }

    /// INVITE is an invitation the invitee uses by joining (a private group too), listed
    /// by a bare INVITE; the topic comes with who set it; OPER takes a server admin's
    /// credentials; KICK takes several nicks; a guest's nick change reaches the others.
    @Test func invitationsTopicSettersOperatorsKicksAndNickChanges() async throws {
        let world = try await Self.world(arguments: ["--irc-guests", "--admin", "@alice"])
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let port = try #require(server.ircPort)
        #expect(try await alice.run("/rules #swift visibility=private").status == 0)
        let bob = try IRCTestClient(port: port)
        #expect(try await bob.signIn("bob", password: "builder-123"))
        try bob.send("JOIN #swift")
        #expect(await bob.wait(containing: " 473 bob #swift ") != nil, "a private group")

        let aliceIRC = try IRCTestClient(port: port)
        #expect(try await aliceIRC.signIn("alice", password: "wonderland-1"))
        try aliceIRC.send("INVITE bob #swift")
        #expect(await aliceIRC.wait(containing: " 341 alice bob #swift") != nil)
        #expect(await bob.wait(containing: ":alice!alice@parley INVITE bob #swift") != nil)
        try bob.send("INVITE")
        #expect(await bob.wait(containing: " 336 bob #swift") != nil)
        #expect(await bob.wait(containing: " 337 bob ") != nil)
        try bob.send("JOIN #swift")
        #expect(await bob.wait(containing: " 332 bob #swift :all things Swift") != nil)
        let setter = try #require(await bob.wait(containing: " 333 bob #swift "))
        #expect(setter.contains(" 333 bob #swift alice "), "\(setter)")
        #expect(await aliceIRC.wait(containing: ":bob!bob@parley JOIN #swift") != nil)
        try aliceIRC.send("INVITE bob #swift")
        #expect(await aliceIRC.wait(containing: " 443 alice bob #swift ") != nil, "already a member")

        try bob.send("OPER alice not-her-password")
        #expect(await bob.wait(containing: " 464 bob ") != nil)
        try bob.send("OPER bob builder-123")
        #expect(await bob.wait(containing: " 491 bob ") != nil, "bob is not one of the server's admins")
        try bob.send("OPER alice wonderland-1")
        #expect(await bob.wait(containing: " 381 bob ") != nil)
        try bob.send("MODE bob")
        #expect(await bob.wait(containing: " 221 bob +io") != nil)

        // Two guests in a channel bob makes; one changes nick, then bob kicks both at once.
        try bob.send("JOIN #lobby")
        #expect(await bob.wait(containing: " 366 bob #lobby ") != nil)
        var guests: [IRCTestClient] = []
        for nick in ["visitor", "tourist"] {
            let guest = try IRCTestClient(port: port)
            try guest.send("NICK \(nick)")
            try guest.send("USER g 0 * :G")
            #expect(await guest.wait(containing: " 001 \(nick) ") != nil)
            try guest.send("JOIN #lobby")
            #expect(await bob.wait(containing: ":\(nick)!\(nick)@parley JOIN #lobby") != nil)
            guests.append(guest)
        }
        try guests[0].send("NICK Visitor")
        #expect(await guests[0].wait(containing: ":visitor!visitor@parley NICK Visitor") != nil)
        #expect(await bob.wait(containing: ":visitor!visitor@parley NICK Visitor") != nil)
        #expect(await guests[1].wait(containing: ":visitor!visitor@parley NICK Visitor") != nil)
        try bob.send("KICK #lobby Visitor,tourist :out you go")
        #expect(await bob.wait(containing: "KICK #lobby Visitor :out you go") != nil)
        #expect(await bob.wait(containing: "KICK #lobby tourist :out you go") != nil)
        #expect(await guests[1].wait(containing: "KICK #lobby tourist :out you go") != nil)
    }

    /// draft/read-marker: MARKREAD moves the same read marker as the shell's, so the
    /// unread count the shell shows agrees with what the IRC client has read.
    @Test func readMarkersAreTheShellsReadMarkers() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice, bob) = (world.server, world.alice, world.bob)
        #expect(try await bob.run("/join #swift").status == 0)
        for text in ["one", "two"] { #expect(try await alice.run("/send #swift \(text)").status == 0) }
        #expect(try await bob.run("/chats").stdout.contains("#swift (2 unread)"))

        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(
            try await irc.signIn(
                "bob", password: "builder-123", capabilities: ["draft/read-marker", "server-time", "batch", "draft/chathistory"]))
        #expect(await irc.wait(containing: " MARKREAD #swift timestamp=") != nil, "bob has read up to when he joined")
        try irc.send("CHATHISTORY LATEST #swift * 2")
        let one = try #require(await irc.wait(containing: "PRIVMSG #swift one"))
        let tags = try #require(one.split(separator: " ").first).dropFirst().split(separator: ";")
        let time = try #require(tags.first { $0.hasPrefix("time=") }).dropFirst("time=".count)
        try irc.send("MARKREAD #swift timestamp=\(time)")
        #expect(await irc.wait(containing: "MARKREAD #swift timestamp=\(time)") != nil)
        #expect(try await bob.run("/chats").stdout.contains("#swift (1 unread)"), "read up to \"one\"")
        try irc.send("MARKREAD #swift timestamp=2001-01-01T00:00:00.000Z")
        #expect(await irc.wait(containing: "MARKREAD #swift timestamp=\(time)") != nil, "never backwards")
        try irc.send("MARKREAD #swift timestamp=yesterday")
        #expect(await irc.wait(containing: "FAIL MARKREAD INVALID_PARAMS #swift") != nil)
    }

    /// An edit reaches IRC clients as a marked new line tied to the original, a deletion
    /// as REDACT (draft/message-redaction) both ways, a reaction taken back as
    /// +draft/unreact.
    @Test func editsDeletionsAndReactionsTakenBackReachIRC() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(
            try await irc.signIn("bob", password: "builder-123", capabilities: ["message-tags", "echo-message", "draft/message-redaction"]))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        #expect(try await alice.run("/send #swift teh plan").status == 0)
        let sent = try #require(await irc.wait(containing: "PRIVMSG #swift :teh plan"))
        let msgid = try #require(sent.split(separator: " ").first?.dropFirst().split(separator: ";").first { $0.hasPrefix("msgid=") })
            .dropFirst("msgid=".count)
        let seq = try #require(msgid.split(separator: "-").last)
        #expect(try await alice.run("/edit #swift \(seq) the plan").status == 0)
        let edit = try #require(await irc.wait(containing: "PRIVMSG #swift :[edit of "))
        #expect(edit.hasSuffix(" UTC] the plan"), "\(edit)")
        #expect(edit.contains("+draft/reply=\(msgid)"), "\(edit)")
        #expect(try await alice.run("/react #swift \(seq) 👍\n/unreact #swift \(seq) 👍").status == 0)
        let unreact = try #require(await irc.wait(containing: "+draft/unreact="))
        #expect(unreact.contains("+draft/unreact=👍") && unreact.contains("TAGMSG #swift"), "\(unreact)")
        try irc.send("REDACT #swift \(msgid)")
        #expect(await irc.wait(containing: "FAIL REDACT REDACT_FORBIDDEN #swift \(msgid) ") != nil, "only alice, or an owner or admin")
        #expect(try await alice.run("/delete #swift \(seq)").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley REDACT #swift \(msgid)") != nil)

        try irc.send("PRIVMSG #swift :oops, wrong window")
        let mine = try #require(await irc.wait(containing: "PRIVMSG #swift :oops, wrong window"))
        let mineID = try #require(mine.split(separator: " ").first?.dropFirst().split(separator: ";").first { $0.hasPrefix("msgid=") })
            .dropFirst("msgid=".count)
        try irc.send("REDACT #swift \(mineID) :wrong window")
        #expect(await irc.wait(containing: "REDACT #swift \(mineID) :wrong window") != nil)
        let history = try await alice.run("/history #swift 5")
        #expect(!history.stdout.contains("oops, wrong window"), "\(history.stdout)")
        try irc.send("REDACT #swift 999999-1")
        #expect(await irc.wait(containing: "FAIL REDACT UNKNOWN_MSGID #swift 999999-1 ") != nil, "a msgid from another chat")
    }

    /// An image reaches an IRC user as its caption and a link that opens in a browser
    /// for them: signed and expiring, refused once tampered with.
    @Test func anImageReachesIRCAsASignedLink() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        try FileManager.default.createDirectory(at: alice.data, withIntermediateDirectories: true)
        let picture = alice.data.appendingPathComponent("dot.png")
        let png = SampleMedia.png(width: 4, height: 3) { x, y in [UInt8(x * 60), UInt8(y * 80), 200, 255] }
        try png.write(to: picture)
        #expect(try await alice.run("/image #swift \(picture.path) a dot").status == 0)
        let line = try #require(await irc.wait(containing: "PRIVMSG #swift :[image] a dot http://127.0.0.1:\(server.port)/v1/media/"))
        let link = try #require(line.split(separator: " ").last.map(String.init))
        let path = String(link.dropFirst("http://127.0.0.1:\(server.port)".count))
        let fetched = try await RawHTTP.request(port: server.port, method: "GET", path: path)
        #expect(fetched.status == 200 && fetched.body == Array(png), "\(fetched.status)")
        let forged = try await RawHTTP.request(port: server.port, method: "GET", path: path.replacingOccurrences(of: "u=", with: "u=1"))
        #expect(forged.status == 401 || forged.status == 403, "\(forged.status) \(forged.text)")

        // A file reads with its name, and its link downloads it rather than showing it.
        let notes = alice.data.appendingPathComponent("my notes.txt")
        try Data("<b>not html</b>\n".utf8).write(to: notes)
        #expect(try await alice.run("/file #swift \"\(notes.path)\" read me").status == 0)
        let fileLine = try #require(await irc.wait(containing: "PRIVMSG #swift :[file my notes.txt] read me http://127.0.0.1:"))
        let fileLink = try #require(fileLine.split(separator: " ").last.map(String.init))
        let file = try await RawHTTP.request(
            port: server.port, method: "GET", path: String(fileLink.dropFirst("http://127.0.0.1:\(server.port)".count)))
        #expect(file.status == 200 && file.text == "<b>not html</b>\n")
        #expect(file.headers["content-disposition"]?.hasPrefix("attachment") == true)
    }

    /// MONITOR watches nicks, taken or not, sharing a channel or not: someone coming
    /// online under one and going shows as 730 and 731; the list is kept with the account.
    @Test func monitorFollowsWhoComesOnlineAnywhere() async throws {
        let world = try await Self.world(arguments: ["--irc-guests"])
        defer { world.remove() }
        let server = world.server
        let port = try #require(server.ircPort)
        let bob = try IRCTestClient(port: port)
        #expect(try await bob.signIn("bob", password: "builder-123"))
        // Nobody holds these nicks yet, and nobody shares a channel with bob.
        try bob.send("MONITOR + carol,nobody,bad*nick")
        #expect(await bob.wait(containing: " 731 bob carol,nobody") != nil)
        #expect(await bob.wait(containing: " 731 bob bad*nick") != nil, "a nick that cannot be one")
        // A guest taking a watched nick comes online under it, and goes.
        let guest = try IRCTestClient(port: port)
        try guest.send("NICK nobody")
        try guest.send("USER n 0 * :N")
        #expect(await bob.wait(containing: " 730 bob nobody!nobody@parley") != nil)
        try guest.send("QUIT :bye")
        #expect(await bob.wait(containing: " 731 bob nobody") != nil)
        try bob.send("MONITOR - nobody")
        try bob.send("MONITOR L")
        #expect(await bob.wait(containing: " 732 bob carol") != nil)
        #expect(await bob.wait(containing: " 733 bob ") != nil)
        // The list stays with bob's account: another connection of his sees it.
        let again = try IRCTestClient(port: port)
        #expect(try await again.signIn("bob", password: "builder-123"))
        try again.send("MONITOR S")
        #expect(await again.wait(containing: " 731 bob carol") != nil)
        try again.send("MONITOR C")
        try again.send("MONITOR L")
        #expect(await again.wait(for: { $0.contains(" 732 ") || $0.contains(" 733 ") })?.contains(" 733 bob ") == true)
    }

    /// Two nodes on one PostgreSQL, each with the gateway: an IRC user on node A and a
    /// shell user on node B share a group and a direct chat.
    @Test func anIRCUserOnOneNodeTalksWithAShellUserOnAnother() async throws {
        let database = try TestPostgres.newDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-irc-nodes-\(UUID().uuidString)")
        let media = folder.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var nodes: [ServeProcess] = []
        for name in ["a", "b"] {
            nodes.append(
                try await ServeProcess.start(
                    data: folder.appendingPathComponent(name),
                    arguments: [
                        "--postgres", database, "--media", media.path, "--irc-port", "0", "--ping-timeout", "600", "--admin", "alice",
                    ]))
        }
        defer { for node in nodes { node.stop() } }
        let alice = ParleyBinary(serverURL: nodes[1].url)
        let bob = ParleyBinary(serverURL: nodes[0].url)
        defer {
            alice.remove()
            bob.remove()
        }
        let made = try await alice.run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #swift Swift on Linux
            """)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123").status == 0)

        let irc = try IRCTestClient(port: try #require(nodes[0].ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 353 bob = #swift :@alice bob") != nil, "the names come from the shared database")
        #expect(try await alice.run("/send #swift hello from node B").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley PRIVMSG #swift :hello from node B") != nil)
        try irc.send("PRIVMSG #swift :hello from node A")
        try irc.send("PRIVMSG alice :a direct word from A")
        try irc.send("PING :sent")
        #expect(await irc.wait(containing: "PONG parley sent") != nil)
        let group = try await alice.run("/history #swift 5")
        #expect(group.stdout.contains("hello from node A"), "\(group.stdout)")
        let direct = try await alice.run("/history @bob 5")
        #expect(direct.stdout.contains("a direct word from A"), "\(direct.stdout)")
        #expect(try await alice.run("/send @bob and back from B").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley PRIVMSG bob :and back from B") != nil)

        // Across nodes a message's client-only tags go with it (they are not stored, so
        // the bus carries that event), and a plain message's event is the one written
        // with the message.
        let tagger = try IRCTestClient(port: try #require(nodes[0].ircPort))
        #expect(try await tagger.signIn("bob", password: "builder-123", capabilities: ["message-tags"]))
        try tagger.send("JOIN #swift")
        #expect(await tagger.wait(containing: " 366 bob #swift ") != nil)
        let listener = try IRCTestClient(port: try #require(nodes[1].ircPort))
        #expect(try await listener.signIn("alice", password: "wonderland-1", capabilities: ["message-tags"]))
        try listener.send("JOIN #swift")
        #expect(await listener.wait(containing: " 366 alice #swift ") != nil)
        try tagger.send("@+example.org/mood=happy PRIVMSG #swift :tagged from A")
        try tagger.send("PRIVMSG #swift :plain from A")
        let tagged = try #require(await listener.wait(containing: "PRIVMSG #swift :tagged from A"))
        #expect(tagged.contains("+example.org/mood=happy"), "\(tagged)")
        let plain = try #require(await listener.wait(containing: "PRIVMSG #swift :plain from A"))
        #expect(plain.contains(":bob!bob@parley ") && !plain.contains("mood"), "\(plain)")

        // An operator's WALLOPS on node B reaches a +w client on node A.
        try tagger.send("MODE bob +w")
        #expect(await tagger.wait(containing: "MODE bob +w") != nil)
        try listener.send("OPER alice wonderland-1")
        #expect(await listener.wait(containing: " 381 alice ") != nil)
        try listener.send("WALLOPS :restart at noon")
        #expect(await tagger.wait(containing: ":alice!alice@parley WALLOPS :restart at noon") != nil)
    }

    /// Channel modes are group settings: set in the shell, they bind an IRC client; set
    /// by MODE, the shell sees them.
    @Test func channelModesAreGroupSettingsEveryClientShares() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        #expect(try await alice.run("/rules #swift posting=voiced").status == 0)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: ["echo-message"]))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        try irc.send("MODE #swift")
        #expect(await irc.wait(containing: " 324 bob #swift +ntm") != nil)
        try irc.send("PRIVMSG #swift :may I speak?")
        #expect(await irc.wait(containing: " 404 bob #swift ") != nil, "a moderated group")
        #expect(try await alice.run("/voice @bob #swift").status == 0)
        #expect(await irc.wait(containing: ":alice!alice@parley MODE #swift +v bob") != nil)
        try irc.send("PRIVMSG #swift :thanks a lot")
        #expect(await irc.wait(containing: ":bob!bob@parley PRIVMSG #swift :thanks a lot") != nil)

        // An op bans a nick nobody holds yet, and sets a key and a limit, over IRC.
        #expect(try await alice.run("/op @bob #swift").status == 0)
        #expect(await irc.wait(containing: "MODE #swift +o bob") != nil)
        try irc.send("MODE #swift +bkl mallory!*@* sesame 10")
        #expect(await irc.wait(containing: ":bob!bob@parley MODE #swift +bkl mallory!*@* sesame 10") != nil)
        let bans = try await alice.run("/bans #swift")
        #expect(bans.lines.contains("@mallory"), "\(bans.lines)")
        let rules = try await alice.run("/rules #swift")
        #expect(rules.stdout.contains("limit: 10, key: set"), "\(rules.stdout)")
        let carol = ParleyBinary(serverURL: server.url)
        defer { carol.remove() }
        #expect(try await carol.run("/register carol@example.com --handle carol --password carol-pass-1").status == 0)
        let refused = try await carol.run("/join #swift")
        #expect(refused.status != 0 && refused.stderr.contains("bad_key"), "\(refused.stderr)")
        #expect(try await carol.run("/join #swift sesame").status == 0)
    }

    /// `CHATHISTORY` fills an IRC client's buffer from Parley's history, in a batch with
    /// each message's time and id; a reply and a reaction made in the shell arrive as
    /// tags, and ones made over IRC show in the shell.
    @Test func chathistoryAndRepliesCrossBetweenTheShellAndIRC() async throws {
        let world = try await Self.world()
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        let capabilities = ["batch", "draft/chathistory", "server-time", "message-tags"]
        #expect(try await irc.signIn("bob", password: "builder-123", capabilities: capabilities))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 bob #swift ") != nil)
        try irc.send("CHATHISTORY LATEST #swift * 10")
        let start = try #require(await irc.wait(containing: " chathistory #swift"))
        let id = try #require(start.split(separator: " ").first { $0.hasPrefix("+") }).dropFirst()
        let earlier = try #require(await irc.wait(containing: "PRIVMSG #swift :before bob came"))
        #expect(earlier.contains("batch=\(id)") && earlier.contains("time=") && earlier.contains("msgid="), "\(earlier)")
        #expect(await irc.wait(containing: "BATCH -\(id)") != nil)
        let msgid = try #require(earlier.split(separator: ";").first { $0.hasPrefix("msgid=") || $0.hasPrefix("@msgid=") })
            .split(separator: "=").last.map(String.init)
        let seq = try #require(msgid?.split(separator: "-").last.map(String.init))

        // A reply from the shell carries the message it answers.
        #expect(try await alice.run("/reply #swift \(seq) still here").status == 0)
        let reply = try #require(await irc.wait(containing: "PRIVMSG #swift :still here"))
        #expect(reply.contains("+draft/reply=\(try #require(msgid))"), "\(reply)")
        // A reply over IRC goes into the thread of what it answers, as the shell shows.
        try irc.send("@+draft/reply=\(try #require(msgid)) PRIVMSG #swift :answering you")
        try irc.send("PING :after-reply")
        #expect(await irc.wait(containing: "PONG parley after-reply") != nil)
        let history = try await alice.run("/history #swift/\(seq) 1")
        #expect(history.stdout.contains("#swift/\(seq) <bob> answering you"), "\(history.stdout)")
        let threads = try await alice.run("/threads #swift")
        #expect(
            threads.stdout.contains("#swift/\(seq): 1 reply") && threads.stdout.contains("↳ @alice: before bob came"), "\(threads.stdout)")

        // A reaction from the shell arrives as +draft/react on a TAGMSG; one over IRC
        // shows in the shell.
        let original = try #require(msgid)
        #expect(try await alice.run("/react #swift \(seq) 👍").status == 0)
        let reacted = try #require(await irc.wait(containing: " TAGMSG #swift"))
        #expect(reacted.contains("+draft/react=👍") && reacted.contains("+draft/reply=\(original)"), "\(reacted)")
        try irc.send("@+draft/react=🎉;+draft/reply=\(original) TAGMSG #swift")
        try irc.send("PING :after-react")
        #expect(await irc.wait(containing: "PONG parley after-react") != nil)
        let reactions = try await alice.run("/history #swift 3")
        #expect(reactions.stdout.contains("🎉 1") && reactions.stdout.contains("👍 1"), "\(reactions.stdout)")
    }

    /// A guest that says it is a bot (+B) is marked so in its messages, WHOIS and WHO (and
    /// WHOX); SETNAME is the display name the shell shows; client-only tags travel with a
    /// message and on their own (TAGMSG); one labeled line to several nicks reaches each,
    /// and a label used again is a new message; a message to oneself comes back.
    @Test func botsWhoxSetnameClientTagsAndLabels() async throws {
        let world = try await Self.world(arguments: ["--irc-guests"])
        defer { world.remove() }
        let (server, alice) = (world.server, world.alice)
        let port = try #require(server.ircPort)
        let bob = try IRCTestClient(port: port)
        let caps = ["message-tags", "echo-message", "setname", "labeled-response", "batch"]
        #expect(try await bob.signIn("bob", password: "builder-123", capabilities: caps))
        try bob.send("JOIN #swift")
        #expect(await bob.wait(containing: " 366 bob #swift ") != nil)

        let helper = try IRCTestClient(port: port)
        #expect(try await helper.joinAsGuest("helper", realname: "Helpful Bot", capabilities: ["message-tags"]))
        #expect(await helper.wait(containing: "BOT=B") != nil)
        try helper.send("MODE helper +B")
        #expect(await helper.wait(containing: ":helper!helper@parley MODE helper +B") != nil)
        try helper.send("JOIN #swift")
        #expect(await helper.wait(containing: " 366 helper #swift ") != nil)
        try helper.send("PRIVMSG #swift :beep boop")
        let beep = try #require(await bob.wait(containing: "PRIVMSG #swift :beep boop"))
        #expect(beep.hasPrefix("@bot;msgid="), "\(beep)")
        try bob.send("WHOIS helper")
        #expect(await bob.wait(containing: " 335 bob helper :") != nil)
        try bob.send("WHO #swift %tnfa,42")
        #expect(await bob.wait(containing: " 354 bob 42 alice H@ alice") != nil)
        #expect(await bob.wait(containing: " 354 bob 42 helper HB 0") != nil, "a guest has no account: 0")
        #expect(await bob.wait(containing: " 315 bob #swift ") != nil)
        try bob.send("MODE bob +B")
        #expect(await bob.wait(containing: "NOTICE bob :forbidden: ") != nil, "a person's account is not made a bot")

        // SETNAME is the display name every client shows.
        try bob.send("SETNAME :Bob the Builder")
        #expect(await bob.wait(containing: ":bob!bob@parley SETNAME :Bob the Builder") != nil)
        let members = try await alice.run("/members #swift")
        #expect(members.stdout.contains("Bob the Builder"), "\(members.stdout)")

        // Client-only tags, with a message and without one.
        try bob.send("@+example=yes PRIVMSG #swift :tagged text")
        let tagged = try #require(await helper.wait(containing: "PRIVMSG #swift :tagged text"))
        #expect(tagged.contains("+example=yes"), "\(tagged)")
        try bob.send("@+only=tags TAGMSG #swift")
        let tagmsg = try #require(await helper.wait(containing: "TAGMSG #swift"))
        #expect(tagmsg.hasPrefix("@+only=tags;msgid=t"), "\(tagmsg)")

        // One labeled line to two nicks reaches both; the same label again is a new line.
        try bob.send("@label=1 PRIVMSG alice,helper :to both")
        #expect(await helper.wait(containing: ":bob!bob@parley PRIVMSG helper :to both") != nil)
        try bob.send("@label=1 PRIVMSG alice :and again")
        try bob.send("PRIVMSG bob :a note to myself")
        #expect(await bob.wait(containing: ":bob!bob@parley PRIVMSG bob :a note to myself") != nil)
        let history = try await alice.run("/history @bob 5")
        #expect(history.lines.contains { $0.hasSuffix("> to both") }, "\(history.lines)")
        #expect(history.lines.contains { $0.hasSuffix("> and again") }, "\(history.lines)")

        // Someone away is G in a channel's WHO.
        try bob.send("AWAY :lunch")
        #expect(await bob.wait(containing: " 306 bob ") != nil)
        try helper.send("WHO #swift")
        #expect(await helper.wait(for: { $0.contains(" 352 helper #swift ") && $0.contains(" bob G ") }) != nil)
        #expect(await helper.wait(containing: " 315 helper #swift ") != nil)
    }

    /// Polls `condition` until it holds; false after 120 s (a guard against a hang).
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(500))
        }
        return false
    }
}
