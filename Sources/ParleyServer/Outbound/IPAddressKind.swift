/// What an IP address is for, as the server decides whether it may call it: an outgoing
/// hook, a push endpoint, anything the server calls at a user's word.
public enum IPAddressKind: Sendable, Equatable {
    /// Reachable on the internet.
    case global
    /// This machine: 127.0.0.0/8, ::1.
    case loopback
    /// A private network: 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7.
    case privateNetwork
    /// The link only, cloud metadata services among them: 169.254/16, fe80::/10.
    case linkLocal
    /// No host, a broadcast, a multicast group or a range kept for other uses.
    case unusable

    /// The kind of an IPv4 address.
    public init(ipv4 a: [UInt8]) {
        precondition(a.count == 4)
        switch (a[0], a[1]) {
        case (127, _): self = .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127): self = .privateNetwork
        case (169, 254): self = .linkLocal
        case (0, _), (224...255, _),
            (192, 0) where a[2] == 0, (198, 18...19):
            self = .unusable
        default: self = .global
        }
    }

    /// The kind of an IPv6 address; one that carries an IPv4 address (mapped,
    /// compatible, NAT64, 6to4) is that address's kind.
    public init(ipv6 a: [UInt8]) {
        precondition(a.count == 16)
        let zeroes = { (range: Range<Int>) in a[range].allSatisfy { $0 == 0 } }
        if zeroes(0..<15) && a[15] == 1 {
            self = .loopback
        } else if zeroes(0..<16) {
            self = .unusable
        } else if zeroes(0..<10) && a[10] == 0xFF && a[11] == 0xFF {
            self = IPAddressKind(ipv4: Array(a[12..<16]))  // ::ffff:a.b.c.d
        } else if zeroes(0..<12) {
            self = IPAddressKind(ipv4: Array(a[12..<16]))  // ::a.b.c.d, deprecated but routed by some
        } else if a[0] == 0x00, a[1] == 0x64, a[2] == 0xFF, a[3] == 0x9B, zeroes(4..<12) {
            self = IPAddressKind(ipv4: Array(a[12..<16]))  // 64:ff9b::/96, NAT64
        } else if a[0] == 0x20, a[1] == 0x02 {
            self = IPAddressKind(ipv4: Array(a[2..<6]))  // 2002::/16, 6to4
        } else if a[0] & 0xFE == 0xFC {
            self = .privateNetwork
        } else if a[0] == 0xFE, a[1] & 0xC0 == 0x80 {
            self = .linkLocal
        } else if a[0] == 0xFF {
            self = .unusable
        } else {
            self = .global
        }
    }
}
