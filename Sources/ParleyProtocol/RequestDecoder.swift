public import Foundation
public import ParleyCore

/// Reads a request frame in two steps: the head (`id` and `op`), so a frame that is
/// no request at all is refused before any op runs, then the op's arguments as the
/// type the op takes. The head is usually found by `FrameHead` without a decode, so
/// the frame is decoded once. Every error is a `ParleyError` with a stable code (`bad_frame`,
/// `unknown_op`, `invalid_argument`); no frame, however malformed, traps.
///
/// ```swift
/// let decoder = RequestDecoder()
/// guard case .success(let (id, op)) = decoder.head(of: frame) else { ... }
/// let args = try decoder.arguments(Args.Send.self, from: frame)
/// ```
public struct RequestDecoder: Sendable {
    private let decoder = Wire.decoder()

    public init() {}

    /// The op a frame names, or why it is refused (with the frame's id when one could
    /// be read).
    public func head(of frame: Data) -> Result<(id: Int64, op: Op), Rejection> {
        let scanned = frame.withUnsafeBytes { FrameHead.scan($0) }
        if let scanned, let op = Op(rawValue: scanned.op) { return .success((scanned.id, op)) }
        guard let head = try? decoder.decode(RequestHead.self, from: frame) else {
            let id = (try? decoder.decode(IDOnly.self, from: frame))?.id
            return .failure(Rejection(id: id, error: ParleyError(.badFrame, "a request is a JSON object with a numeric id and an op")))
        }
        guard let op = Op(rawValue: head.op) else {
            let shown = head.op.count > 40 ? head.op.prefix(40) + "…" : Substring(head.op)
            return .failure(Rejection(id: head.id, error: ParleyError(.unknownOp, "unknown op \"\(shown)\"")))
        }
        return .success((head.id, op))
    }

    /// The frame's `args` as `A`; an op that takes none may leave them out.
    public func arguments<A: Decodable>(_ type: A.Type, from frame: Data) throws(ParleyError) -> A {
        if let flat = type as? any FlatDecodable.Type,
            let values = frame.withUnsafeBytes({ FlatArgs.scan($0, keys: flat.flatKeys) }),
            let args = flat.init(flat: values) as? A
        {
            return args
        }
        do {
            if let given = try decoder.decode(ArgsEnvelope<A>.self, from: frame).args { return given }
        } catch let error as DecodingError {
            // Not JSON at all (the head was found without reading the whole frame).
            if (try? JSONSerialization.jsonObject(with: frame, options: [.fragmentsAllowed])) == nil {
                throw ParleyError(.badFrame, "a request is a JSON object with a numeric id and an op")
            }
            throw ParleyError(.invalidArgument, "bad args: \(Self.describe(error))")
        } catch {
            throw ParleyError(.invalidArgument, "bad args")
        }
        if let empty = Empty() as? A { return empty }
        throw ParleyError(.invalidArgument, "this op needs args")
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing \(key.stringValue.prefix(40))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".").prefix(100)): \(context.debugDescription.prefix(200))"
        @unknown default: "\(error)"
        }
    }
}

/// A frame refused before any op ran.
public struct Rejection: Error, Sendable {
    public var id: Int64?
    public var error: ParleyError
}

/// The arguments of a request, absent when the op takes none.
private struct ArgsEnvelope<Args: Decodable>: Decodable {
    var args: Args?
}

/// Just the id of a frame that is otherwise not a request, to address the refusal.
private struct IDOnly: Decodable {
    var id: Int64
}
