import Foundation
import ParleyCore
import ParleyShell
import Testing

@Suite(.timeLimit(.minutes(10))) struct SanitizerTests {
    static let hostile = [
        "clear \u{1B}[2J screen", "title \u{1B}]0;pwned\u{7} set", "csi \u{9B}31m c1", "nel \u{85} next",
        "bidi \u{202E}txt.exe", "isolate \u{2066}x\u{2069}", "bs \u{8}\u{8} del \u{7F}",
    ]

    /// True when no C0 (other than newline), DEL, C1 or bidi control survives.
    static func isHarmless(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || [0x200E, 0x200F, 0x061C].contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value)
        }
    }

    @Test func hostileTextPrintsAsVisibleHarmlessText() {
        let evil = UserRef(id: UserID(2), handle: "ev\u{1B}[1mil", displayName: "Eve \u{202E}", isBot: false)
        let me = UserRef(id: UserID(1), handle: "me", displayName: "Me")
        let group = Chat(
            id: ChatID(1), kind: .group, handle: "g\u{1B}]0;x\u{7}", title: "t\u{9B}itle", isPublic: true, participants: [],
            createdAt: Date())
        let direct = Chat(
            id: ChatID(2), kind: .direct, handle: nil, title: nil, isPublic: false, participants: [me, evil], createdAt: Date())
        for text in Self.hostile {
            for chat in [group, direct] {
                let message = Message(
                    id: MessageID(1), chatID: chat.id, seq: 1, sender: evil, kind: .text, text: text, media: nil, sentAt: Date(),
                    clientID: nil)
                let line = Format.message(message, in: chat, me: me.id, colour: true)
                // Only our own colour sequences remain; strip them and nothing else may be left.
                let withoutOurColours = line.replacingOccurrences(of: #"\u{1B}\[\d*m"#, with: "", options: .regularExpression)
                #expect(Self.isHarmless(withoutOurColours), "\(line.debugDescription)")
                let summary = Format.chatSummary(ChatSummary(chat: chat, lastMessage: message, unread: 1, lastActivity: Date()), me: me.id)
                #expect(Self.isHarmless(summary))
            }
        }
        #expect(Sanitizer.line("a\u{1B}[2Jb") == "a^[[2Jb")
        #expect(Sanitizer.line("x\u{202E}y") == "x<U+202E>y")
        #expect(Sanitizer.line("c1\u{9B}") == "c1<U+009B>")
        #expect(Sanitizer.message("two\nlines\ttab") == "two\nlines    tab")
        #expect(
            Format.profile(
                User(
                    id: UserID(2), handle: "e\u{7}", displayName: "\u{1B}]0;t\u{7}", email: nil, isBot: false, avatar: nil,
                    createdAt: Date())) == "@e^G ^[]0;t^G")
    }

    @Test func eventsAreSanitizedToo() {
        let evil = UserRef(id: UserID(2), handle: "eve", displayName: "x", isBot: false)
        let group = Chat(id: ChatID(1), kind: .group, handle: "g\u{1B}[2J", title: nil, isPublic: true, participants: [], createdAt: Date())
        let output = Output(style: .plain, flushEachWrite: false)
        let joined = output.render(.memberJoined(MemberChange(chat: group, user: evil)), me: UserID(1)) ?? ""
        #expect(joined == "* @eve joined #g^[[2J")
    }

    @Test func theEngineRefusesControlCharactersAtTheSource() {
        #expect(throws: ParleyError.self) { try Limits.messageText("hi \u{1B}[2J") }
        #expect(throws: ParleyError.self) { try Limits.displayName("Eve \u{9B}") }
        #expect(throws: ParleyError.self) { try Limits.groupTitle("t\u{7}") }
        #expect((try? Limits.messageText("tab\tand\nnewline")) == "tab\tand\nnewline")
    }
}
