public import Foundation
public import ParleyCore

/// Uploaded media, who may see it, and avatars.
public protocol MediaStore: Sendable {
    /// Records an upload: the media (once per content) and who uploaded it.
    func recordMedia(_ media: MediaInfo, uploader: UserID, at time: Date) async throws
    func media(id: String) async throws -> MediaInfo?

    /// Whether the media is someone's avatar.
    func isAvatar(media id: String) async throws -> Bool

    /// The newest message carrying the media in each of `chats` that has one: chat and
    /// sequence number.
    func newestMessages(carrying media: String, in chats: [ChatID]) async throws -> [ChatID: Int64]

    /// Whether `user` uploaded the media themselves.
    func hasUploaded(media id: String, user: UserID) async throws -> Bool
    func setAvatar(_ media: String?, of user: UserID) async throws -> User

    /// Forgets media recorded before `time` that no message and no avatar uses, and
    /// returns their ids so their bytes can go too.
    func forgetUnusedMedia(recordedBefore time: Date) async throws -> [String]
}
