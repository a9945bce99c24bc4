import Foundation
import ParleyCore
import Testing

@testable import ParleyIRC

/// The gateway's view, in process: which lines an engine event becomes for a client with
/// the capabilities it took, without a server or a socket.
@Suite struct IRCViewTests {
    let alice = UserRef(id: UserID(1), handle: "alice", displayName: "Alice")
    let bob = UserRef(id: UserID(2), handle: "bob", displayName: "Bob")
    let guest = UserRef(id: UserID(3), handle: "gina", displayName: "gina (guest)")
    let sent = Date(timeIntervalSince1970: 1_764_390_000)  // 2025-11-29 04:20:00 UTC

    var swift: Chat {
        Chat(id: ChatID(7), kind: .group, handle: "swift", title: nil, isPublic: true, participants: [], createdAt: sent)
    }

    func view(_ capabilities: [String]) -> IRCView {
        let view = IRCView(serverName: "parley")
        view.signedIn(as: bob)
        let offered = capabilities.compactMap(IRCCapability.init(rawValue:))
        #expect(offered.count == capabilities.count, "capabilities the gateway offers: \(capabilities)")
        view.enable(offered)
        return view
    }

    func message(_ seq: Int64, _ text: String, replyTo: ReplyQuote? = nil, editedAt: Date? = nil, deletedAt: Date? = nil) -> Message {
        Message(
            id: MessageID(seq), chatID: ChatID(7), seq: seq, sender: alice, kind: .text, text: text, media: nil, sentAt: sent,
            clientID: nil, replyTo: replyTo, editedAt: editedAt, deletedAt: deletedAt)
    }

    func serialized(_ lines: [IRCMessage]) -> [String] { lines.map(\.serialized) }

    @Test func aGroupMessageCarriesTheTagsEachClientTook() {
        let event = ChatEvent.message(MessageEvent(chat: swift, message: message(3, "hello there")))
        #expect(serialized(view([]).lines(for: event)) == [":alice!alice@parley PRIVMSG #swift :hello there"])
        let tagged = serialized(view(["server-time", "message-tags"]).lines(for: event))
        #expect(tagged == ["@msgid=7-3;time=2025-11-29T04:20:00.000Z :alice!alice@parley PRIVMSG #swift :hello there"])
    }

    @Test func anEditIsANewLineStampedWhenMadeNamingTheLineItCorrects() {
        let edited = sent.addingTimeInterval(90)
        let event = ChatEvent.messageEdited(MessageEvent(chat: swift, message: message(3, "hello, there", editedAt: edited)))
        let plain = serialized(view(["server-time"]).lines(for: event))
        #expect(plain == ["@time=2025-11-29T04:21:30.000Z :alice!alice@parley PRIVMSG #swift :[edit of 04:20:00 UTC] hello, there"])
        let tagged = view(["message-tags"]).lines(for: event)
        #expect(tagged.first?.tags["+draft/reply"] == "7-3")
    }

    @Test func aDeletionIsANoticeWithoutRedactionAndREDACTWithIt() {
        let tombstone = message(3, "", deletedAt: sent.addingTimeInterval(60))
        let byAdmin = ChatEvent.messageDeleted(MessageEvent(chat: swift, message: tombstone, by: bob, reason: "spam"))
        #expect(
            serialized(view([]).lines(for: byAdmin)) == [":bob!bob@parley NOTICE #swift :[deleted alice's message of 04:20:00 UTC: spam]"])
        let own = ChatEvent.messageDeleted(MessageEvent(chat: swift, message: tombstone))
        #expect(serialized(view([]).lines(for: own)) == [":alice!alice@parley NOTICE #swift :[deleted their message of 04:20:00 UTC]"])
        #expect(serialized(view(["draft/message-redaction"]).lines(for: own)) == [":alice!alice@parley REDACT #swift 7-3"])
    }

    @Test func reactionsAndRepliesAreTextForClientsWithoutTheirTags() {
        let quote = ReplyQuote(seq: 3, sender: alice, text: "the plan is simple", deleted: false)
        let reaction = ChatEvent.reactionChanged(
            ReactionChange(chat: swift, seq: 3, user: alice, emoji: "👍", added: true, reactions: [], to: quote))
        let action = ":alice!alice@parley PRIVMSG #swift :\u{1}ACTION reacted 👍 to alice: \"the plan is simple\"\u{1}"
        #expect(serialized(view([]).lines(for: reaction)) == [action])
        // WeeChat: message-tags, and still no drawing of reactions.
        let weechat = serialized(view(["message-tags"]).lines(for: reaction))
        #expect(weechat == ["@+draft/react=👍;+draft/reply=7-3 :alice!alice@parley TAGMSG #swift", action])
        #expect(view(["message-tags", "draft/chathistory"]).lines(for: reaction).map(\.command) == ["TAGMSG"])

        let reply = ChatEvent.message(MessageEvent(chat: swift, message: message(4, "agreed", replyTo: quote)))
        #expect(
            serialized(view(["away-notify"]).lines(for: reply))
                == [":alice!alice@parley PRIVMSG #swift :[re alice: \"the plan is simple\"] agreed"])
        // A client that took no capability (a script, a bare bot) and a bot get the text
        // as it was sent, as does the one who wrote it.
        #expect(serialized(view([]).lines(for: reply)) == [":alice!alice@parley PRIVMSG #swift agreed"])
        let bot = IRCView(serverName: "parley")
        bot.signedIn(as: UserRef(id: UserID(4), handle: "helper", displayName: "Helper", isBot: true))
        bot.enable([.awayNotify])
        #expect(bot.lines(for: reply).first?.params.last == "agreed")
        let author = IRCView(serverName: "parley")
        author.signedIn(as: alice)
        author.enable([.awayNotify])
        #expect(author.lines(for: reply).first?.params.last == "agreed")
        // With message-tags the reply is its tag, the text as sent, WeeChat's too.
        for capabilities in [["message-tags"], ["message-tags", "draft/message-redaction"]] {
            let tagged = view(capabilities).lines(for: reply)
            #expect(tagged.first?.params.last == "agreed" && tagged.first?.tags["+draft/reply"] == "7-3")
        }
    }

    /// A thread's message reads, for a person's client without tags, with the thread it
    /// is in (the channel that follows it, and its title); with message-tags it answers
    /// the root, its text as sent; a bot and its author read the text alone.
    @Test func aThreadsMessageNamesItsThreadForClientsWithoutTags() {
        var inThread = message(5, "after lunch")
        inThread.thread = 3
        inThread.threadTitle = "deploy friday"
        let event = ChatEvent.message(MessageEvent(chat: swift, message: inThread))
        #expect(
            serialized(view(["away-notify"]).lines(for: event)) == [
                ":alice!alice@parley PRIVMSG #swift :[#swift/3 \"deploy friday\"] after lunch"
            ])
        let tagged = view(["message-tags"]).lines(for: event)
        #expect(tagged.first?.params.last == "after lunch" && tagged.first?.tags["+draft/reply"] == "7-3")
        let bot = IRCView(serverName: "parley")
        bot.signedIn(as: UserRef(id: UserID(4), handle: "helper", displayName: "Helper", isBot: true))
        bot.enable([.awayNotify])
        #expect(bot.lines(for: event).first?.params.last == "after lunch")
        // Answering a message in the thread: the reply tag names that message.
        inThread.replyTo = ReplyQuote(seq: 4, sender: bob, text: "yes", deleted: false)
        inThread.threadTitle = nil
        let answer = ChatEvent.message(MessageEvent(chat: swift, message: inThread))
        #expect(view(["message-tags"]).lines(for: answer).first?.tags["+draft/reply"] == "7-4")
        #expect(view(["away-notify"]).lines(for: answer).first?.params.last == "[#swift/3] [re bob: \"yes\"] after lunch")
    }

    /// The channels a connection is in are kept once, in the view: what its commands
    /// change (JOIN, PART) and what events change (another of the user's clients leaving,
    /// a kick, the group's deletion) is what both read.
    @Test func theChannelsAClientIsInFollowItsCommandsAndItsEvents() {
        let bobs = view(["message-tags"])
        let typing = ChatEvent.typing(Typing(chatID: swift.id, user: alice))
        #expect(bobs.enter(swift, as: "#swift"))
        #expect(!bobs.enter(swift, as: "#swift"), "entered once")
        #expect(bobs.joined("#SWIFT")?.id == swift.id)
        #expect(serialized(bobs.lines(for: typing)) == ["@+typing=active :alice!alice@parley TAGMSG #swift"])

        // bob leaves from his shell: this client is out of the channel too.
        let left = bobs.lines(for: .memberLeft(MemberChange(chat: swift, user: bob)))
        #expect(serialized(left) == [":bob!bob@parley PART #swift"])
        #expect(bobs.joined("#swift") == nil)
        // …and joins again from it: this client is told, and is in the channel once its
        // own JOIN has had the names (the gateway's join burst).
        #expect(serialized(bobs.lines(for: .memberJoined(MemberChange(chat: swift, user: bob)))) == [":bob!bob@parley JOIN #swift"])
        #expect(bobs.joined("#swift") == nil)
        #expect(bobs.enter(swift, as: "#swift"))
        #expect(bobs.lines(for: typing).first?.params == ["#swift"])

        // Kicked: out.
        _ = bobs.lines(for: .memberKicked(MemberChange(chat: swift, user: bob, by: alice)))
        #expect(bobs.joined("#swift") == nil)

        // A group deleted while the client is in it is a PART of its own, once.
        bobs.enter(swift, as: "#swift")
        let deleted = ChatEvent.chatDeleted(ChatDeleted(chatID: swift.id))
        #expect(serialized(bobs.lines(for: deleted)) == [":bob!bob@parley PART #swift :This group was deleted"])
        #expect(bobs.joined("#swift") == nil)
        #expect(bobs.lines(for: deleted).isEmpty)
    }

    @Test func anAccountGoneOfflineStaysInTheListAndAGuestQuits() {
        let gone = ChatEvent.presenceChanged(PresenceChange(user: alice, online: false, viewing: nil, reason: "lunch"))
        #expect(view([]).lines(for: gone).isEmpty, "no QUIT takes an account out of a nick list")
        #expect(serialized(view(["away-notify"]).lines(for: gone)) == [":alice!alice@parley AWAY lunch"])
        let back = ChatEvent.presenceChanged(PresenceChange(user: alice, online: true, viewing: nil))
        #expect(serialized(view(["away-notify"]).lines(for: back)) == [":alice!alice@parley AWAY"])
        let guestGone = ChatEvent.presenceChanged(PresenceChange(user: guest, online: false, viewing: nil))
        #expect(serialized(view([]).lines(for: guestGone)) == [":gina!gina@parley QUIT Offline"])
    }
}
