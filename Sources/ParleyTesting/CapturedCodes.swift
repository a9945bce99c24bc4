public import ParleyEngine
import Synchronization

/// A `CodeSender` that keeps the codes it is given, so a test can type them in.
public final class CapturedCodes: CodeSender {
    private let codes = Mutex<[(phone: String, code: String)]>([])

    public init() {}

    public func send(code: String, to phone: String) async throws {
        codes.withLock { $0.append((phone, code)) }
    }

    /// The newest code sent to `phone`.
    public func last(for phone: String) -> String? {
        codes.withLock { $0.last { $0.phone == phone }?.code }
    }

    public var count: Int { codes.withLock { $0.count } }
}
