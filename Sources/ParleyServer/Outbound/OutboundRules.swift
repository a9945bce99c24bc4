public import Foundation
import NIOPosix

/// Where the server may call out at a user's word (outgoing hooks; push endpoints and
/// the like use the same rules): the operator's allowed hosts, checked on the URL as
/// typed, and then on every address its host resolves to, the call going to the
/// address that was checked, so a name that resolves elsewhere the second time (DNS
/// rebinding) gets nowhere.
///
/// - a public address of a host the list allows (`*`, `*.example.com`, a name);
/// - a private or link-local address only for a host the list names exactly;
/// - this machine only with `loopback`;
/// - never an unspecified, broadcast, multicast or reserved address.
///
/// ```swift
/// let rules = OutboundRules(hosts: ["*"], loopback: false)
/// rules.refusal(of: URL(string: "http://0x7f000001/x")!)  // nil: the name is read as text,
/// try await rules.resolve(URL(string: "http://0x7f000001/x")!)  // …and refused once resolved
/// ```
public struct OutboundRules: Sendable {
    public var hosts: [String]
    public var loopback: Bool

    public init(hosts: [String], loopback: Bool) {
        self.hosts = hosts.map { $0.lowercased() }
        self.loopback = loopback
    }

    /// Why `url` may not be called, from its text alone (nil: it may be, if its host's
    /// addresses pass too): http or https, a host of proper labels, a port 1–65535, and a
    /// host the list allows.
    public func refusal(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return "it is not http or https" }
        guard let host = Self.host(of: url) else { return "its host is not a host name or address" }
        if let port = url.port, !(1...65535).contains(port) { return "its port is not 1–65535" }
        if Self.isLocalName(host) && !loopback { return "it names this machine" }
        // With loopback allowed, any host may turn out to be this machine: its addresses decide.
        guard listed(host) || loopback else { return "the server's operator has not allowed \(host) (--hook-allow)" }
        // An address written plainly is judged at once.
        if let kind = Self.literalKind(host), !permits(kind, host: host) { return Self.forbiddenAddress }
        return nil
    }

    static let forbiddenAddress = "its host resolves to an address this server does not call"

    /// Whether a call to an address of `kind` for `host` is allowed.
    func permits(_ kind: IPAddressKind, host: String) -> Bool {
        switch kind {
        case .global: listed(host)
        case .loopback: loopback
        case .privateNetwork, .linkLocal: hosts.contains(host)
        case .unusable: false
        }
    }

    /// The kind of a host written as a plain IPv4 or IPv6 address (nil for a name or
    /// any other spelling, which the resolver reads).
    static func literalKind(_ host: String) -> IPAddressKind? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return IPAddressKind(ipv4: withUnsafeBytes(of: v4) { Array($0) }) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return IPAddressKind(ipv6: withUnsafeBytes(of: v6) { Array($0) }) }
        return nil
    }

    /// The address to connect to for `url`: its host resolved, every address checked
    /// against the rules (a refusal names no address, so it tells nothing of what is
    /// there). Throws `OutboundRefusal`.
    public func resolve(_ url: URL) async throws -> String {
        if let reason = refusal(of: url) { throw OutboundRefusal(reason: reason) }
        guard let host = Self.host(of: url) else { throw OutboundRefusal(reason: "its host is not a host name or address") }
        let addresses = try await Self.addresses(of: host, port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))
        guard let first = addresses.first else { throw OutboundRefusal(reason: "its host has no address") }
        for address in addresses where !permits(address.kind, host: host) {
            throw OutboundRefusal(reason: Self.forbiddenAddress)
        }
        return first.text
    }

    /// The URL's host, lowercased, without an IPv6 literal's brackets; nil when it is
    /// empty or has an empty label (`.example.com`, `a..b`).
    static func host(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.contains(":") { return host }
        let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
        let labels = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253, labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 }) else { return nil }
        return trimmed
    }

    /// Whether the operator's list allows `host`'s public addresses.
    func listed(_ host: String) -> Bool {
        hosts.contains { Self.entry($0, allows: host) }
    }

    static func isLocalName(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost")
    }

    /// Whether a `--hook-allow` entry allows a host: `*` any, `*.example.com` the
    /// domain's names, else the name itself.
    static func entry(_ entry: String, allows host: String) -> Bool {
        if entry == host || entry == "*" { return true }
        return entry.hasPrefix("*.") && host.hasSuffix(entry.dropFirst(1))
    }

    struct Resolved {
        var text: String
        var kind: IPAddressKind
    }

    /// Every address `host` resolves to, as the system resolver reads it (so `0x7f.1`,
    /// `2130706433` and names in /etc/hosts resolve as they would for any program).
    static func addresses(of host: String, port: Int) async throws -> [Resolved] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else {
                throw OutboundRefusal(reason: "its host could not be resolved")
            }
            defer { freeaddrinfo(list) }
            var found: [Resolved] = []
            var next: UnsafeMutablePointer<addrinfo>? = list
            while let info = next {
                next = info.pointee.ai_next
                guard let raw = info.pointee.ai_addr else { continue }
                switch Int32(raw.pointee.sa_family) {
                case AF_INET:
                    let bytes = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
                    }
                    found.append(Resolved(text: Self.text(bytes, family: AF_INET), kind: IPAddressKind(ipv4: bytes)))
                case AF_INET6:
                    let bytes = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
                    }
                    found.append(Resolved(text: Self.text(bytes, family: AF_INET6), kind: IPAddressKind(ipv6: bytes)))
                default: continue
                }
            }
            return found
        }
    }
}

extension OutboundRules {
    /// An address's usual text (`93.184.216.34`, `2606:2800::1`).
    static func text(_ bytes: [UInt8], family: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a call was not made: shown to the group's admins as is.
public struct OutboundRefusal: Error, Sendable {
    public var reason: String
}
