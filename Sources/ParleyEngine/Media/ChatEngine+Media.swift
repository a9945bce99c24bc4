public import Foundation
public import ParleyCore
import ParleyStore

extension ChatEngine {
    /// Starts an upload by `user`. With `kind` image or video, other bytes are refused
    /// (with `file` or nil, any bytes are taken; see `MediaUpload`);
    /// with `recipient`, the upload is refused at once when `user` could not send there,
    /// so a refused send leaves no upload behind. `size`, when announced, is checked
    /// against the limits before any byte is read.
    public func beginUpload(by user: User, expecting kind: MediaKind?, for recipient: Recipient?, size: Int64? = nil) async throws
        -> MediaUpload
    {
        guard let blobs else { throw ParleyError(.unavailable, "this server takes no media") }
        // A file announced may be a video, under the video limit: the bytes will tell.
        let strict = kind == .file ? nil : kind
        if let size, size > configuration.mediaLimits.maxBytes(strict) { throw configuration.mediaLimits.tooLarge(strict) }
        if size == 0 { throw ParleyError(.emptyFile, "the file is empty") }
        switch recipient {
        case .chat(let chat): _ = try await membership(of: user, in: chat)
        case .user(let peer): try await requirePeer(peer, of: user)
        case nil: break
        }
        return try MediaUpload(engine: self, blobs: blobs, user: user, expected: kind)
    }

    /// The media and its file, if `user` may read it; otherwise `unknown_media`, so
    /// ids of media one may not see cannot be probed.
    public func openMedia(_ id: String, for user: User) async throws -> (media: MediaInfo, file: URL) {
        let unknown = ParleyError(.unknownMedia, "no media \(id.prefix(12))… that you can see")
        guard MediaInfo.isValidID(id), let blobs else { throw unknown }
        guard let media = try await store.media(id: id), try await canRead(media: id, user: user.id),
            let file = blobs.url(of: id)
        else { throw unknown }
        return (media, file)
    }

    /// Who may download media: its uploader, anyone when it is someone's avatar, and
    /// members of a chat where it was sent, unless they cleared that part of the chat.
    func canRead(media id: String, user: UserID) async throws -> Bool {
        if try await store.hasUploaded(media: id, user: user) { return true }
        if try await store.isAvatar(media: id) { return true }
        for (chat, seq) in try await store.newestMessages(carrying: id, in: try await store.chatIDs(of: user)) {
            if let membership = try await store.membership(of: user, in: chat), seq > membership.clearedSeq { return true }
        }
        return false
    }

    /// Removes uploads that no message or avatar took up within the grace period (a
    /// client that crashed between upload and send). Returns how many went.
    @discardableResult
    public func sweepMedia() async throws -> Int {
        guard let blobs else { return 0 }
        let cutoff = now.addingTimeInterval(-configuration.unusedMediaGrace.seconds)
        let ids = try await store.forgetUnusedMedia(recordedBefore: cutoff)
        for id in ids { blobs.remove(id) }
        return ids.count
    }
}
