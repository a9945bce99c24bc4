public import Foundation
public import ParleyCore

/// The media routes beside the WebSocket (docs/protocol.md, "Media"):
///
/// - `PUT /v1/media?kind=image|video[&chat=ID|&user=ID]` with the bytes as the body
///   and `Authorization: Bearer TOKEN`: `201` and the `MediaInfo` as JSON.
/// - `GET /v1/media/ID` with the same header: the bytes, with `Range` support.
///
/// A refusal is `{"ok": false, "error": {"code": ..., "message": ...}}` with the status
/// `status(for:)` gives.
public enum MediaHTTP {
    public static let uploadPath = "/v1/media"
    public static func downloadPath(_ id: String) -> String { "/v1/media/\(id)" }

    /// The HTTP status that goes with an error code.
    public static func status(for code: ErrorCode) -> Int {
        switch code {
        case .notSignedIn, .invalidToken, .badSignature: 401
        case .notMember, .forbidden, .banned, .moderated, .privateGroup, .tooLate, .accountSuspended, .serverBanned: 403
        case .unknownMedia, .unknownChat, .unknownUser, .unknownHook, .unknownGroup, .unknownMessage, .unknownOp, .unknownBotToken,
            .unknownPath:
            404
        case .fileTooLarge, .bodyTooLarge: 413
        case .unsupportedMedia, .mediaMismatch: 415
        case .rateLimited: 429
        case .unavailable: 503
        case .internalError, .fileError: 500
        default: 400
        }
    }

    /// The body of a refusal, the same bytes for the same refusal (keys sorted).
    public static func errorBody(_ error: ParleyError) -> Data {
        let encoder = Wire.encoder()
        encoder.outputFormatting.insert(.sortedKeys)
        return (try? encoder.encode(Reply<Empty>.failure(nil, error))) ?? Data()
    }

    /// The error in a refusal's body, or a generic one for the status.
    public static func error(status: Int, body: Data) -> ParleyError {
        if let reply = try? Wire.decoder().decode(Reply<Empty>.self, from: body), let error = reply.error { return error }
        return ParleyError(status == 401 ? .invalidToken : .unavailable, "the server answered HTTP \(status)")
    }

    /// A single byte range from a `Range` header, resolved against the file size:
    /// `bytes=0-99`, `bytes=100-`, `bytes=-100`. nil when the header asks for something
    /// this server does not serve (several ranges, other units): the whole file then.
    public enum ByteRange: Equatable, Sendable {
        case satisfiable(ClosedRange<Int64>)
        case unsatisfiable
    }

    public static func byteRange(_ header: String, size: Int64) -> ByteRange? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let first = spec[0].trimmingCharacters(in: .whitespaces)
        let last = spec[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return size == 0 ? .unsatisfiable : nil }
            return size == 0 ? .unsatisfiable : .satisfiable(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int64(first), start >= 0 else { return nil }
        let end = last.isEmpty ? size - 1 : Int64(last)
        guard let end, end >= start else { return end == nil ? nil : .unsatisfiable }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start...min(end, size - 1))
    }
}
