import Crypto
import Foundation
public import ParleyCore
import ParleyStore

/// Media links that work in a browser without a session token, for clients that cannot
/// send one (IRC): `/v1/media/ID?u=USER&e=EXPIRY&s=SIGNATURE`, an HMAC over the media,
/// the user and the expiry with a key only the servers hold. Only that user can open it,
/// and only until it expires; a download still checks that they may see the media.
extension ChatEngine {
    /// How long a signed media link works.
    public static let mediaLinkLifetime: Duration = .seconds(7 * 24 * 3600)

    /// The path and query of a link to media `id` for `user`; nil when this server takes
    /// no media.
    public func signedMediaPath(_ id: String, for user: UserID) -> String? {
        guard MediaInfo.isValidID(id), let blobs, let key = try? blobs.linkKey() else { return nil }
        let expires = Int64(now.timeIntervalSince1970) + Int64(Self.mediaLinkLifetime.seconds)
        let signature = Self.mediaSignature(key: key, id: id, user: user.rawValue, expires: expires)
        return "/v1/media/\(id)?u=\(user.rawValue)&e=\(expires)&s=\(signature)"
    }

    /// The user a signed link was made for, if its signature holds and it has not
    /// expired; `invalid_token` otherwise.
    public func user(mediaLink id: String, user: String?, expires: String?, signature: String?, address: String) async throws -> User {
        let refused = ParleyError(.invalidToken, "this media link is not valid or has expired")
        guard let user, let expires, let signature, let userID = Int64(user), let expiry = Int64(expires),
            let blobs, let key = try? blobs.linkKey()
        else { throw refused }
        let expected = Self.mediaSignature(key: key, id: id, user: userID, expires: expiry)
        // Compared in time that does not depend on where they differ.
        guard expected.utf8.count == signature.utf8.count,
            zip(expected.utf8, signature.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0,
            Double(expiry) > now.timeIntervalSince1970, let found = try await store.user(id: UserID(userID))
        else { throw refused }
        try await requireAdmitted(found, address: address)
        return found
    }

    static func mediaSignature(key: Data, id: String, user: Int64, expires: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id)|\(user)|\(expires)".utf8), using: SymmetricKey(data: key))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
