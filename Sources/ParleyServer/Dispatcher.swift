import Foundation
import Logging
import ParleyCore
import ParleyEngine
import ParleyProtocol

/// Turns one request frame into a call on the socket's engine session and the reply
/// frame. Thin on purpose: the rules live in the engine.
struct Dispatcher: Sendable {
    let session: EngineSession
    let epoch: String
    let logger: Logger
    // Shared by every socket: each session's own pair was 400 bytes of an idle one.
    private static let encoder = Wire.encoder()
    private static let decoder = RequestDecoder()
    private var encoder: JSONEncoder { Self.encoder }
    private var decoder: RequestDecoder { Self.decoder }
    /// What every op runs against: this socket's session, and the server's positions.
    private let call: OpCall

    init(session: EngineSession, epoch: String, logger: Logger) {
        self.session = session
        self.epoch = epoch
        self.logger = logger
        call = OpCall(
            service: session,
            session: { signedIn, complete in
                SessionResult(signedIn: signedIn, epoch: epoch, position: session.engine.eventPosition, complete: complete)
            },
            resume: { token, after in
                let (resumed, complete) = try await session.resume(token: token, after: after)
                return (resumed, complete)
            })
    }

    /// The op a frame names, or the error reply to send instead.
    func head(of frame: Data) -> Result<(id: Int64, op: Op), Rejection> {
        decoder.head(of: frame)
    }

    func failure(_ id: Int64?, _ error: ParleyError, op: Op? = nil) -> Data {
        (try? encoder.encode(Reply<Empty>.failure(id, redacted(error, op: op)))) ?? Data(#"{"ok":false}"#.utf8)
    }

    /// What a request's log lines carry: the op, the user (or `none`) and the address.
    func metadata(_ op: Op?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "user": "\(session.userID.map { String($0.rawValue) } ?? "none")", "address": "\(session.address)",
        ]
        if let op { metadata["op"] = "\(op.rawValue)" }
        return metadata
    }

    /// An internal error's detail (a database message, a path) goes to the log only;
    /// the client gets a reference to quote.
    private func redacted(_ error: ParleyError, op: Op?) -> ParleyError {
        guard error.code == .internalError else { return error }
        return Self.internalError(logged: error.message, logger: logger, metadata: metadata(op))
    }

    /// `internal` with a fresh reference, the detail logged under it.
    static func internalError(logged detail: String, logger: Logger, metadata: Logger.Metadata = [:]) -> ParleyError {
        let reference = String(UInt32.random(in: .min ... .max), radix: 16)
        var metadata = metadata
        metadata["reference"] = "\(reference)"
        logger.error("internal error \(reference): \(detail)", metadata: metadata)
        return ParleyError(.internalError, "the server failed to do this (reference \(reference))")
    }

    /// Performs `op` through its declaration (`Op.declaration`) and returns the reply
    /// frame, its error code if it failed, and the user when it signed the socket in.
    func perform(_ op: Op, id: Int64, frame: Data) async -> (reply: Data, error: ErrorCode?, signedIn: User?) {
        let reply: Data
        let signedIn: User?
        do {
            (reply, signedIn) = try await op.declaration.reply(to: id, frame: frame, call: call, decoder: decoder, encoder: encoder)
        } catch let error as ParleyError {
            var metadata = metadata(op)
            metadata["code"] = "\(error.code)"
            if Self.accountOps.contains(op) || error.code == .rateLimited {
                logger.info("\(op.rawValue) refused: \(error.code)", metadata: metadata)
            } else {
                logger.debug("request refused", metadata: metadata)
            }
            return (failure(id, error, op: op), error.code, nil)
        } catch {
            return (failure(id, ParleyError(.internalError, String(describing: error)), op: op), .internalError, nil)
        }
        logger.debug("request", metadata: metadata(op))
        guard reply.count <= Wire.maxServerFrameBytes else {
            let mib = Wire.maxServerFrameBytes >> 20
            let error = ParleyError(.replyTooLarge, "the answer is more than the \(mib) MiB one reply may carry; ask for fewer")
            return (failure(id, error, op: op), error.code, nil)
        }
        if let signedIn {
            let what = op == .register ? "signed up" : op == .resume ? "resumed" : "signed in"
            logger.info("\(what) @\(signedIn.handle)", metadata: metadata(op))
        }
        return (reply, nil, signedIn)
    }

    /// Ops whose refusals an operator wants to see (guessing, sign-up floods).
    private static let accountOps: Set<Op> = [.register, .signIn, .signInCode, .signInToken, .requestCode, .resume, .changePassword]
}
