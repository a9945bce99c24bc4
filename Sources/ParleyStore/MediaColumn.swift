import Foundation
package import ParleyCore

/// How a message's media is kept in its row (in every store): `ID TYPE SIZE WIDTH HEIGHT`,
/// then ` NAME` when the message names its file, in one column. Media is named by its
/// content, so these never change and need no join; the id comes first so
/// `substr(media, 1, 64)` finds the messages carrying it. The name goes last, so its
/// spaces need no escaping (`MediaInfo.checkedName` keeps control characters out).
package enum MediaColumn {
    @inlinable
    package static func encode(_ media: MediaInfo?) -> String? {
        guard let media else { return nil }
        let fields = "\(media.id) \(media.type) \(media.size) \(media.width ?? 0) \(media.height ?? 0)"
        guard let name = media.name else { return fields }
        return fields + " " + name
    }

    package static func decode(_ column: String?) -> MediaInfo? {
        guard let column else { return nil }
        let parts = column.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count >= 5, let size = Int64(parts[2]), let width = Int(parts[3]), let height = Int(parts[4]) else { return nil }
        let type = String(parts[1])
        return MediaInfo(
            id: String(parts[0]), kind: MediaKind(type: type), type: type, size: size,
            width: width == 0 ? nil : width, height: height == 0 ? nil : height, name: parts.count == 6 ? String(parts[5]) : nil)
    }
}
