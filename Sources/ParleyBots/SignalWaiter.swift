import Foundation

/// Waits for one of some signals (SIGTERM, SIGINT), which no longer end the process:
/// a program hosting bots stops them first.
///
/// ```swift
/// let stop = SignalWaiter(signals: [SIGTERM, SIGINT])
/// _ = await stop.wait()
/// await host.shutdown()
/// ```
public final class SignalWaiter {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    public init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    public func wait() async -> Int32 {
        for await number in stream { return number }
        return 0
    }
}
