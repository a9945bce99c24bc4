import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// IRC's TAGMSG: client-only tags without a message, sent as the message's send path
/// would tell its chat, and never stored.
extension EngineSession {
    /// Client-only tags without a message (IRC's TAGMSG), to a chat's members or to a
    /// user: never stored, and a direct chat is not opened for them. Returns the notice
    /// as its receivers get it.
    @discardableResult
    public func sendTags(_ tags: [String: String], to recipient: Recipient) async throws -> TagNotice {
        guard let tags = try Limits.clientTags(tags) else {
            throw ParleyError(.invalidArgument, "a TAGMSG carries at least one client tag")
        }
        let user = try requireUser()
        switch recipient {
        case .chat(let chat):
            let (entry, _, _) = try await requireMember(chat, confirmed: false)
            let others = entry.roles.keys.filter { $0 != user.id }
            let notice = TagNotice(id: Self.tagNoticeID(), chatID: chat, user: user.ref, tags: tags)
            await engine.bus.publish(.tagged(notice), to: others, except: origin)
            return notice
        case .user(let peer):
            guard peer != user.id, try await store.user(id: peer) != nil else {
                throw ParleyError(.unknownUser, "no user with id \(peer) to send tags to")
            }
            let notice = TagNotice(id: Self.tagNoticeID(), chatID: try await directChat(with: peer)?.id, user: user.ref, tags: tags)
            await engine.bus.publish(.tagged(notice), to: [peer], except: origin)
            return notice
        }
    }

    /// `t` and 16 random hex digits: unlike a message's `CHAT-SEQ`, it names nothing kept.
    static func tagNoticeID() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "t" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
