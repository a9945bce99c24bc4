import Foundation
public import ParleyCore

/// The first look at a request frame: `{"id": 7, "op": "send", "args": {...}}`.
public struct RequestHead: Decodable, Sendable {
    public var id: Int64
    public var op: String
}

/// A request with its arguments decoded as `Args`.
public struct Request<Args: Codable & Sendable>: Codable, Sendable {
    public var id: Int64
    public var op: String
    public var args: Args

    public init(id: Int64, op: Op, args: Args) {
        self.id = id
        self.op = op.rawValue
        self.args = args
    }
}

/// `{"id": 7, "ok": true, "result": ...}` or `{"id": 7, "ok": false, "error": {...}}`.
/// `id` is absent when the request could not be read far enough to find it.
public struct Reply<Result: Codable & Sendable>: Codable, Sendable {
    public var id: Int64?
    public var ok: Bool
    public var result: Result?
    public var error: ParleyError?

    public static func success(_ id: Int64, _ result: Result) -> Self { Self(id: id, ok: true, result: result, error: nil) }
    public static func failure(_ id: Int64?, _ error: ParleyError) -> Self { Self(id: id, ok: false, result: nil, error: error) }
}

/// Any frame from the server, read once to route it: a pushed event (decoded whole)
/// or the reply to request `id` (its result is decoded by the request that waits for it).
public enum ServerFrame: Decodable, Sendable {
    case event(EventFrame)
    case reply(id: Int64?)

    private enum CodingKeys: String, CodingKey {
        case event, id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.event) {
            self = .event(try EventFrame(from: decoder))
        } else {
            self = .reply(id: try container.decodeIfPresent(Int64.self, forKey: .id))
        }
    }
}

/// A pushed event: `{"event": "message", "pos": 118, "data": {...}}`.
public struct EventFrame: Codable, Sendable {
    public var event: ChatEvent
    public var pos: UInt64

    public init(event: ChatEvent, pos: UInt64) {
        self.event = event
        self.pos = pos
    }

    private enum CodingKeys: String, CodingKey {
        case event, pos, data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pos = try container.decode(UInt64.self, forKey: .pos)
        event = try ChatEvent.decode(type: try container.decode(String.self, forKey: .event), from: container, forKey: .data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event.type, forKey: .event)
        try container.encode(pos, forKey: .pos)
        try event.encodeData(into: &container, forKey: .data)
    }
}

/// A result with nothing in it: `{}`.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}

extension EventFrame {
    private static let encoder = Wire.encoder()

    /// The frame's JSON: written by hand for a message (`WireWriter`), by the encoder
    /// for any other event. What a socket is sent and what a database keeps for resuming.
    public var bytes: [UInt8]? {
        WireWriter.eventFrame(self) ?? (try? Self.encoder.encode(self)).map { Array($0) }
    }

    /// A frame read back from its JSON (as a database keeps it), or nil.
    public static func decoded(from json: [UInt8]) -> EventFrame? {
        try? Wire.decoder().decode(EventFrame.self, from: Data(json))
    }
}
