import Foundation
import ParleyTesting
import Testing

/// Edits made from IRC, on both stores: `EDIT` from a client with draft/message-edit,
/// and `s/old/new/` from any client; what a plain client, a capable one and the shell
/// see of them; the refusals.
@Suite(.timeLimit(.minutes(10))) struct IRCEditTests {
    @Test(arguments: StoreKind.all) func anIRCClientEditsByEDITOrByACorrectionLine(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store, arguments: ["--irc-port", "0"])
        defer { world.remove() }
        let made = try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team")
        #expect(made.status == 0, "\(made.stderr)")
        let joined = try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team")
        #expect(joined.status == 0, "\(joined.stderr)")
        func connect(_ handle: String, _ password: String, _ capabilities: [String]) async throws -> IRCTestClient {
            try await world.irc(handle, password, capabilities: capabilities, in: "#team")
        }
        let alice = try await connect("alice", "wonderland-1", ["message-tags", "echo-message", "draft/message-edit", "server-time"])
        let plain = try await connect("bob", "builder-123", ["server-time"])
        let capable = try await connect("bob", "builder-123", ["message-tags", "draft/message-edit"])

        try alice.send("PRIVMSG #team :teh plan")
        let sent = try #require(await alice.wait(containing: "PRIVMSG #team :teh plan"))
        let msgid = try #require(sent.firstMatch(of: /msgid=([0-9]+-[0-9]+)/).map { String($0.1) })
        let stamp = try #require(sent.firstMatch(of: /time=[0-9-]+T([0-9:]+)\./).map { String($0.1) })
        try alice.send("@draft/target-msgid=\(msgid);draft/edit-text=the\\splan EDIT #team")
        let echoed = try #require(await alice.wait(containing: " EDIT #team"))
        #expect(echoed.contains("draft/target-msgid=\(msgid)") && echoed.contains("draft/edit-text=the\\splan"), "\(echoed)")
        #expect(await plain.wait(containing: ":alice!alice@parley PRIVMSG #team :[edit of \(stamp) UTC] the plan") != nil)
        let relayed = try #require(await capable.wait(containing: " EDIT #team"))
        #expect(relayed.contains(":alice!alice@parley EDIT #team") && relayed.contains("draft/edit-text=the\\splan"), "\(relayed)")

        // Refused: another's message, a msgid of no message here, no text.
        try capable.send("@draft/target-msgid=\(msgid);draft/edit-text=mine\\snow EDIT #team")
        #expect(await capable.wait(containing: "FAIL EDIT EDIT_FORBIDDEN #team \(msgid) ") != nil)
        try capable.send("@draft/target-msgid=999-1;draft/edit-text=x EDIT #team")
        #expect(await capable.wait(containing: "FAIL EDIT UNKNOWN_MSGID #team 999-1 ") != nil)
        try capable.send("@draft/target-msgid=\(msgid) EDIT #team")
        #expect(await capable.wait(containing: "FAIL EDIT INVALID_PARAMS #team ") != nil)

        // A plain client's correction line edits its last line there; one that matches
        // nothing is a line like any other.
        let bare = try await connect("alice", "wonderland-1", [])
        try bare.send("PRIVMSG #team :second lnie")
        #expect(await plain.wait(containing: "PRIVMSG #team :second lnie") != nil)
        try bare.send("PRIVMSG #team :s/lnie/line/")
        #expect(await plain.wait(containing: "PRIVMSG #team :[edit of ") != nil)
        // Its own client, which shows the correction as typed, hears that it took.
        #expect(await bare.wait(containing: ":alice!alice@parley PRIVMSG #team :[edit of ") != nil)
        try bare.send("PRIVMSG #team :s/not there/x/")
        let next = try #require(await plain.wait { $0.contains("PRIVMSG #team :") })
        #expect(next.hasSuffix("PRIVMSG #team :s/not there/x/"), "\(next)")
        #expect(!plain.lines.contains { $0.contains(":s/lnie/line/") }, "the correction itself is not a line")

        let history = try await world["bob"].run("/history #team")
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.lines.contains { $0.hasSuffix("<alice> the plan (edited)") }, "\(history.lines)")
        #expect(history.lines.contains { $0.hasSuffix("<alice> second line (edited)") }, "\(history.lines)")
        #expect(history.lines.contains { $0.hasSuffix("<alice> s/not there/x/") }, "\(history.lines)")
        #expect(!history.stdout.contains("teh plan") && !history.stdout.contains("lnie"), "\(history.lines)")
    }
}
