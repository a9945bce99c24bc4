public import Foundation
public import ParleyCore

/// One op, declared once: its wire name, the types of its arguments and result, and how
/// its arguments call the `ChatService` verb. The server dispatches a request through it
/// (`Op.declaration`), and the remote client calls it, so neither keeps a list of its own.
///
/// ```swift
/// static let setTopic = OpDeclaration(.setTopic) { (call, args: Args.Topic) in
///     try await call.service.setTopic(args.topic, in: args.chat)
/// }
/// let chat = try await link.call(OpDeclarations.setTopic, Args.Topic(chat: id, topic: "Hi"))
/// ```
public struct OpDeclaration<Arguments: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    public let op: Op
    /// Runs the verb for a request's arguments, on the server.
    public let perform: @Sendable (OpCall, Arguments) async throws -> Result
    /// A request frame in, its reply frame out: made here, where the types are known, so
    /// that the server's dispatch runs code specialized for them rather than generic
    /// code that looks types up on every request.
    let answer: @Sendable (Int64, Data, OpCall, RequestDecoder, JSONEncoder) async throws -> (reply: Data, signedIn: User?)

    public init(_ op: Op, perform: @escaping @Sendable (OpCall, Arguments) async throws -> Result) {
        self.op = op
        self.perform = perform
        let signsIn = Result.self == SessionResult.self
        let writable = Result.self is any WireWritable.Type
        answer = { id, frame, call, decoder, encoder in
            let args = try decoder.arguments(Arguments.self, from: frame)
            let result = try await perform(call, args)
            let signedIn = signsIn ? (result as? SessionResult)?.user : nil
            if writable, let writable = result as? any WireWritable {
                return (Data(WireWriter.reply(id, writable)), signedIn)
            }
            return (try encoder.encode(Reply.success(id, result)), signedIn)
        }
    }
}

/// What an op runs against on the server: the socket's session, and the two things only
/// the server knows, since event positions are its own.
public struct OpCall: Sendable {
    public let service: any ChatService
    /// The reply to a sign-in: the session with the server's epoch and current position.
    public let session: @Sendable (SignedIn, _ complete: Bool) -> SessionResult
    /// Signs in with an earlier token; missed events after `after` come first. Says
    /// whether every one of them was still kept.
    public let resume: @Sendable (_ token: String, _ after: EventPosition?) async throws -> (SignedIn, complete: Bool)

    public init(
        service: any ChatService, session: @escaping @Sendable (SignedIn, _ complete: Bool) -> SessionResult,
        resume: @escaping @Sendable (_ token: String, _ after: EventPosition?) async throws -> (SignedIn, complete: Bool)
    ) {
        self.service = service
        self.session = session
        self.resume = resume
    }
}

/// An op whatever its types, as the server's dispatch sees it.
public protocol AnyOpDeclaration: Sendable {
    var op: Op { get }
    /// Decodes a request frame's arguments, performs the op and encodes the reply frame;
    /// also returns the user when the op signed the socket in.
    func reply(to id: Int64, frame: Data, call: OpCall, decoder: RequestDecoder, encoder: JSONEncoder) async throws
        -> (reply: Data, signedIn: User?)
}

extension OpDeclaration: AnyOpDeclaration {
    public func reply(to id: Int64, frame: Data, call: OpCall, decoder: RequestDecoder, encoder: JSONEncoder) async throws
        -> (reply: Data, signedIn: User?)
    {
        try await answer(id, frame, call, decoder, encoder)
    }
}
