import Foundation
public import ParleyCore

/// How an event is kept between nodes (`PostgresEventBus`) and across restarts
/// (`SQLiteEventJournal`): an encoding of the engine's own, versioned, not any client's
/// wire, so a change to the wire is not a change to stored data. `{"v":1,"event":…}`,
/// the event as `ChatEvent`'s `Codable` writes it with dates as exact seconds.
public enum EventEncoding {
    /// The version this build writes; it reads only its own.
    public static let version = 1

    private struct Envelope: Codable {
        var v: Int
        var event: ChatEvent
    }

    private struct Version: Decodable {
        var v: Int
    }

    public static func encode(_ event: ChatEvent) -> [UInt8]? {
        (try? JSONEncoder().encode(Envelope(v: version, event: event))).map { Array($0) }
    }

    /// The event, or nil for bytes of another version (a newer node's) or of no
    /// version at all (an older build kept wire frames: its reader falls back to them).
    public static func decode(_ bytes: [UInt8]) -> ChatEvent? {
        let data = Data(bytes)
        guard (try? JSONDecoder().decode(Version.self, from: data))?.v == version else { return nil }
        return (try? JSONDecoder().decode(Envelope.self, from: data))?.event
    }
}
