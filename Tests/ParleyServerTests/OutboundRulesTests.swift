import Foundation
import ParleyServer
import Testing

/// Where the server may call out: every address kind read right, URLs checked by their
/// text, and names checked by what they resolve to.
@Suite(.timeLimit(.minutes(10))) struct OutboundRulesTests {
    static func v4(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0)! } }

    @Test func addressKinds() {
        let cases: [(String, IPAddressKind)] = [
            ("127.0.0.1", .loopback), ("127.255.1.2", .loopback), ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork),
            ("172.31.255.255", .privateNetwork), ("172.32.0.1", .global), ("192.168.1.1", .privateNetwork),
            ("100.64.0.1", .privateNetwork), ("169.254.169.254", .linkLocal), ("0.0.0.0", .unusable), ("0.1.2.3", .unusable),
            ("224.0.0.1", .unusable), ("255.255.255.255", .unusable), ("93.184.216.34", .global), ("8.8.8.8", .global),
        ]
        for (text, kind) in cases { #expect(IPAddressKind(ipv4: Self.v4(text)) == kind, "\(text)") }
        func v6(_ words: [UInt16]) -> [UInt8] { words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        let six: [([UInt16], IPAddressKind)] = [
            ([0, 0, 0, 0, 0, 0, 0, 1], .loopback), ([0, 0, 0, 0, 0, 0, 0, 0], .unusable),
            ([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 1], .loopback), ([0, 0, 0, 0, 0, 0, 0x7F00, 1], .loopback),
            ([0, 0, 0, 0, 0, 0xFFFF, 0xA9FE, 0xA9FE], .linkLocal), ([0x64, 0xFF9B, 0, 0, 0, 0, 0x0A00, 1], .privateNetwork),
            ([0x2002, 0x7F00, 1, 0, 0, 0, 0, 1], .loopback), ([0xFD00, 0xEC2, 0, 0, 0, 0, 0, 0x254], .privateNetwork),
            ([0xFE80, 0, 0, 0, 0, 0, 0, 1], .linkLocal), ([0xFF02, 0, 0, 0, 0, 0, 0, 1], .unusable),
            ([0x2606, 0x2800, 0x220, 1, 0x248, 0x1893, 0x25C8, 0x1946], .global),
        ]
        for (words, kind) in six { #expect(IPAddressKind(ipv6: v6(words)) == kind, "\(words)") }
    }

    @Test func urlsAreCheckedByTheirText() {
        let any = OutboundRules(hosts: ["*"], loopback: false)
        for url in [
            "ftp://example.com/x", "http://example.com:0/x", "http://example.com:99999/x", "http://.example.com/x", "http://a..b/x",
            "http://localhost:8080/x", "http://app.localhost/x",
        ] {
            #expect(any.refusal(of: URL(string: url)!) != nil, "\(url)")
        }
        #expect(any.refusal(of: URL(string: "https://hooks.example.com/x")!) == nil)
        let some = OutboundRules(hosts: ["*.example.com", "ci.internal"], loopback: false)
        #expect(some.refusal(of: URL(string: "https://a.example.com/x")!) == nil)
        #expect(some.refusal(of: URL(string: "https://ci.internal/x")!) == nil)
        #expect(some.refusal(of: URL(string: "https://example.org/x")!) != nil)
    }

    @Test func namesAreCheckedByWhatTheyResolveTo() async throws {
        let any = OutboundRules(hosts: ["*"], loopback: false)
        for host in [
            "127.0.0.1", "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0", "0x7f.1", "[::1]", "[::ffff:127.0.0.1]",
            "[::ffff:7f00:1]", "[0:0:0:0:0:0:0:1]", "0xa9fea9fe", "10.0.0.1", "[fd00:ec2::254]",
        ] {
            await #expect(throws: OutboundRefusal.self, "\(host)") { _ = try await any.resolve(URL(string: "http://\(host):8080/x")!) }
        }
        // A public address passes and is what the call connects to; a private one only
        // when the operator names it; loopback only when allowed.
        #expect(try await any.resolve(URL(string: "http://93.184.216.34/x")!) == "93.184.216.34")
        #expect(try await OutboundRules(hosts: ["10.0.0.1"], loopback: false).resolve(URL(string: "http://10.0.0.1/x")!) == "10.0.0.1")
        #expect(try await OutboundRules(hosts: [], loopback: true).resolve(URL(string: "http://127.0.0.1:9/x")!) == "127.0.0.1")
        await #expect(throws: OutboundRefusal.self) {
            _ = try await OutboundRules(hosts: [], loopback: true).resolve(URL(string: "http://93.184.216.34/x")!)
        }
    }
}
