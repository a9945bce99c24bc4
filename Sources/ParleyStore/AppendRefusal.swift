package import ParleyCore

/// Why a message was not appended, when each store's insert found its chat or its
/// sender's membership missing (the check is in the insert itself, so nothing can change
/// between the check and the write). One refusal for both stores.
package enum AppendRefusal {
    package static func error(chatExists: Bool) -> ParleyError {
        chatExists ? ParleyError(.notMember, "you are not a member of this chat") : ParleyError(.unknownChat, "no such chat")
    }
}
