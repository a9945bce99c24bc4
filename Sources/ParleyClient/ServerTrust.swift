import Foundation
public import NIOSSL
public import ParleyCore

/// How a client checks a `wss://` or `https://` server: its certificate must chain to
/// the system's trust store, or, with `caFile`, to the certificates in that PEM file (a
/// private CA, or a server's self-signed certificate). The host name is checked too.
public struct ServerTrust: Sendable, Hashable {
    public var caFile: String?

    public init(caFile: String? = nil) {
        self.caFile = caFile
    }

    /// Reads `caFile` now, so a wrong path or a file without certificates is an error
    /// at start rather than at the first connection.
    public init(checking caFile: String?) throws(ParleyError) {
        self.caFile = caFile
        if caFile != nil { _ = try configuration() }
    }

    /// The TLS configuration for a client, with `caFile`'s certificates read.
    public func configuration() throws(ParleyError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw ParleyError(.fileError, "cannot read PEM certificates from --ca-file \(caFile): \(error)")
            }
            guard !certificates.isEmpty else { throw ParleyError(.fileError, "--ca-file \(caFile) holds no PEM certificate") }
            tls.trustRoots = .certificates(certificates)
        }
        return tls
    }

    /// Why a connection failed, in words a person can act on.
    static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("cannotUseIPAddressInSNI") {
            return "a wss:// address needs the server's host name, as its certificate names it, not an IP address"
        }
        if error is NIOSSLError || error is BoringSSLError || text.contains("SSL") {
            if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate") {
                return "the server's certificate is not trusted (for a private CA or a self-signed certificate, give it with --ca-file)"
            }
            if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG") {
                return "the server does not speak TLS there (try ws:// instead of wss://)"
            }
            return "TLS failed: \(text)"
        }
        return text
    }
}
