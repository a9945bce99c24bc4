import Foundation
public import NIOSSL
public import ParleyCore

extension ParleyServer {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port (reported to `onRunning`).
        public var port = 7878
        /// A socket with no pong for this long is closed and its user shown offline.
        public var pingTimeout: Duration = .seconds(15)
        /// A socket that has not signed in by then is closed.
        public var signInTimeout: Duration = .seconds(10)
        /// Frames larger than this close the socket with code 1009.
        public var maxFrameSize = 64 * 1024
        /// Requests per second per socket (a burst of twice as many is allowed); 0: no limit.
        public var requestsPerSecond = 500
        /// Requests per second an account may make over all its sockets on this node,
        /// in bursts of twice that (nil: two sockets' worth; 0: no account limit).
        public var requestsPerAccount: Int?
        public var maxSocketsPerUser = 32
        /// Events for sockets go out at most this often per event loop while the sockets
        /// get more than one an interval: each write then carries several, at the cost of
        /// at most this much delay. Quieter traffic goes out at once (`DeliveryPace`).
        public var eventWriteInterval: Duration = .milliseconds(1)
        /// Threads that serve the sockets (NIO event loops; each socket's requests run
        /// on its own). One fewer than the cores, at least one: the core left over
        /// writes the messages (SQLite's writer has a thread of its own), and fewer
        /// threads than cores keeps hand-offs cheap (see docs/performance.md).
        public var eventLoops = Self.defaultEventLoops
        public static var defaultEventLoops: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }
        /// The counts of event loops a server takes; one outside is brought to the nearest.
        public static let eventLoopRange = 1...256
        /// A connection that has not finished its HTTP request head (or WebSocket
        /// upgrade) by then is closed; an HTTP connection idle this long between
        /// requests too.
        public var handshakeTimeout: Duration = .seconds(5)
        /// Open connections at most (WebSocket and HTTP); past it a new one is answered
        /// 503 and closed.
        public var maxConnections = 10_000
        /// Reverse proxies in front of the server, by address: a WebSocket they pass on
        /// is the client's named in its `X-Forwarded-For` (the last address there, the
        /// one the proxy added), for the per-address limits, sign-in throttles and the
        /// log. From anyone else the header is ignored.
        public var trustedProxies: Set<String> = []
        /// The largest body an incoming webhook takes; larger ones are refused with 413.
        public var maxHookBytes = 512 * 1024
        /// Event bytes a socket may leave unread: past them, a socket that reads none
        /// for `slowReaderTimeout` is closed with 4008 (its user resumes from their
        /// position when they reconnect); past 16 times as many (64 MiB at least), at once.
        public var maxUnwrittenBytes = 4 << 20
        public var slowReaderTimeout: Duration = .seconds(10)
        /// The longest a socket waits, after its close frame, for the client to read what
        /// came before it and the frame itself; then it is closed all the same.
        public var closeLimit: Duration = .seconds(30)
        /// How often expired sessions and codes are purged and unused uploads swept.
        public var upkeepInterval: Duration = .seconds(600)
        /// With a certificate and key: `wss://` and `https://` on the same port, and
        /// nothing in the clear.
        public var tls: TLSConfiguration?
        /// The SQLite file, whose size (and its log's) `/metrics` shows.
        public var databasePath: String?

        public init(host: String = "127.0.0.1", port: Int = 7878) {
            self.host = host
            self.port = port
        }

        /// Serves TLS with the certificate chain and private key in these PEM files.
        public mutating func useTLS(certificateFile: String, keyFile: String) throws(ParleyError) {
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
            } catch {
                throw ParleyError(.fileError, "cannot read a PEM certificate from \(certificateFile): \(error)")
            }
            guard !chain.isEmpty else { throw ParleyError(.fileError, "\(certificateFile) holds no PEM certificate") }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
            } catch {
                throw ParleyError(.fileError, "cannot read a PEM private key from \(keyFile): \(error)")
            }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            tls.minimumTLSVersion = .tlsv12
            self.tls = tls
        }

        /// `ws` or `wss`, as clients address the socket.
        public var socketScheme: String { tls == nil ? "ws" : "wss" }
    }
}
