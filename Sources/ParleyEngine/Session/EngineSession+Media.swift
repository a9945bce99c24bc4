public import Foundation
public import ParleyCore
import ParleyStore
import Synchronization

extension EngineSession {
    public func uploadMedia(from file: URL, kind: MediaKind?, for recipient: Recipient?, progress: TransferProgress?) async throws
        -> MediaInfo
    {
        let user = try requireUser()
        let source = try LocalFile(reading: file)
        let upload = try await engine.beginUpload(by: user, expecting: kind, for: recipient, size: source.size)
        try source.forEachChunk { chunk throws(ParleyError) in
            try upload.append(chunk)
            progress?(upload.size, source.size)
        }
        return try await upload.finish()
    }

    public func sendMedia(
        to recipient: Recipient, media id: String, caption: String, name: String?, clientID: String?, via: String?
    ) async throws -> Message {
        let user = try requireUser()
        let caption = try Limits.caption(caption)
        let clientID = try Limits.clientID(clientID)
        let via = try Provenance.pluginName(via).map(Provenance.plugin)
        let name = try MediaInfo.checkedName(name)
        var media = try await engine.openMedia(id, for: user).media
        media.name = name
        return try await deliver(
            to: recipient, as: user,
            NewMessage(
                chatID: ChatID(0), sender: user.ref, kind: MessageKind(carrying: media.kind), text: caption,
                media: media, clientID: clientID, via: via, sentAt: engine.now))
    }

    @discardableResult
    public func downloadMedia(_ id: String, to destination: URL, replace: Bool, progress: TransferProgress?) async throws -> Int64 {
        let user = try requireUser()
        let (_, file) = try await engine.openMedia(id, for: user)
        let target = try LocalFile.destination(destination, replace: replace)
        let source = try LocalFile(reading: file)
        let copy = try AtomicFile(temporaryIn: target.deletingLastPathComponent())
        var done: Int64 = 0
        try source.forEachChunk { chunk throws(ParleyError) in
            try copy.write(chunk)
            done += Int64(chunk.count)
            progress?(done, source.size)
        }
        guard try copy.commit(to: target, replace: replace) else {
            throw ParleyError(.fileExists, "\(target.path) already exists (--force replaces it)")
        }
        return done
    }

    public func setAvatar(_ media: String?) async throws -> User {
        let user = try requireUser()
        if let media {
            // Only one's own upload: an image seen in a private chat must not become
            // public by being made an avatar, which everyone may download.
            guard MediaInfo.isValidID(media), try await store.hasUploaded(media: media, user: user.id) else {
                throw ParleyError(.unknownMedia, "an avatar is an image you uploaded yourself")
            }
            let kind = try await engine.openMedia(media, for: user).media.kind
            guard kind == .image else { throw ParleyError(.mediaMismatch, "an avatar is an image, not \(kind.withArticle)") }
        }
        let updated = try await store.setAvatar(media, of: user.id)
        state.withLock { $0.user = updated }
        return updated
    }
}
