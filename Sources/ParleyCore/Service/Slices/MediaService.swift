public import Foundation

/// Uploads, downloads, media messages, avatars.
public protocol MediaService: AnyObject, Sendable {
    /// Uploads an image, video or any other file from a local file and returns it,
    /// ready for `sendMedia` or `setAvatar`. With `kind` image or video, other bytes are
    /// refused; with `file` (or nil) any bytes are taken, and the bytes decide the kind.
    /// With `recipient`, the upload is refused at once if the user could not send
    /// there. Nothing is stored for a refused file.
    func uploadMedia(from file: URL, kind: MediaKind?, for recipient: Recipient?, progress: TransferProgress?) async throws -> MediaInfo

    /// Sends uploaded media as an `image`, `video` or `file` message with an optional
    /// caption, and for a file the name it goes by (`MediaInfo.name`). `via` as for
    /// `sendMessage`: the plugin that sends it for its user.
    func sendMedia(to recipient: Recipient, media: String, caption: String, name: String?, clientID: String?, via: String?) async throws
        -> Message

    /// Writes the media's original bytes to `file` (never a half-written file there;
    /// an existing file only with `replace`) and returns how many bytes it wrote.
    @discardableResult
    func downloadMedia(_ id: String, to file: URL, replace: Bool, progress: TransferProgress?) async throws -> Int64

    /// Sets the user's avatar to an uploaded image (nil removes it).
    func setAvatar(_ media: String?) async throws -> User
}
