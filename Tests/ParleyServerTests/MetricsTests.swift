import Foundation
import ParleyClient
import ParleyCore
import ParleyTesting
import Testing

/// `/metrics` after real traffic, read as Prometheus reads it.
@Suite(.timeLimit(.minutes(10))) struct MetricsTests {
    /// One sample: `name{labels} value`.
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses the text format strictly: every line is a `# HELP`, a `# TYPE` or a
    /// sample of a family that has both; anything else is recorded as an issue.
    static func parse(_ text: String) -> (samples: [Sample], types: [String: String], help: [String: String]) {
        var (samples, types, help) = ([Sample](), [String: String](), [String: String]())
        for line in text.split(separator: "\n") {
            if let match = line.wholeMatch(of: /# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)/) {
                help[String(match.1)] = String(match.2)
            } else if let match = line.wholeMatch(of: /# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)/) {
                types[String(match.1)] = String(match.2)
            } else if let match = line.wholeMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/), let value = Double(match.3) {
                var labels: [String: String] = [:]
                for pair in (match.2.map { String($0.dropFirst().dropLast()) } ?? "").split(separator: ",") {
                    guard let pairMatch = pair.wholeMatch(of: /([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/) else {
                        Issue.record("bad label \(pair) in \(line)")
                        continue
                    }
                    labels[String(pairMatch.1)] = String(pairMatch.2)
                }
                samples.append(Sample(name: String(match.1), labels: labels, value: value))
            } else {
                Issue.record("not Prometheus text: \(line)")
            }
        }
        for sample in samples {
            let family = types[sample.name] != nil ? sample.name : sample.name.replacing(/_(bucket|sum|count)$/, with: "")
            #expect(types[family] != nil && help[family] != nil, "\(sample.name) has no # TYPE or # HELP")
        }
        return (samples, types, help)
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test func metricsAreValidPrometheusTextAndCountTheTraffic() async throws {
        let server = try await TestServer.start()
        let (alice, _, _) = try await client(server, "alice")
        let (bob, bobEvents, _) = try await client(server, "bob")
        let group = try await alice.createGroup(handle: "counted", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "counted")
        for index in 1...5 { _ = try await alice.sendMessage(to: .chat(group.id), text: "message \(index)", clientID: nil) }
        // A refused send is timed and counted by its code, and not as sent.
        await #expect(throws: ParleyError.self) { _ = try await alice.sendMessage(to: .chat(ChatID(999)), text: "nowhere", clientID: nil) }
        #expect(await bobEvents.wait { _ in bobEvents.messages.contains { $0.text == "message 5" } })

        #expect(try await RawHTTP.request(port: server.port, method: "GET", path: "/healthz").text == "ok\n")
        let text = try await RawHTTP.request(port: server.port, method: "GET", path: "/metrics").text
        let (samples, types, _) = Self.parse(text)
        #expect(Self.value(samples, "parley_messages_sent_total") == 5)
        #expect(Self.value(samples, "parley_requests_total", ["op": "send"]) == 6)
        #expect(
            Self.value(samples, "parley_request_duration_seconds_count", ["op": "send"]) == 6,
            "the send-latency histogram counts every send")
        #expect(samples.contains { $0.name == "parley_request_errors_total" && $0.value == 1 && $0.labels["code"] != nil })
        #expect(Self.value(samples, "parley_connections", ["state": "signed_in"]) == 2)
        #expect(Self.value(samples, "parley_connections", ["state": "anonymous"]) == 0)
        #expect(Self.value(samples, "parley_commit_batch_messages_sum") == 5, "every committed message is in a batch")
        #expect((Self.value(samples, "parley_commit_duration_seconds_count") ?? 0) >= 1)
        #expect((Self.value(samples, "parley_delivery_duration_seconds_count") ?? 0) >= 5)
        #expect((Self.value(samples, "parley_database_bytes", ["file": "database"]) ?? 0) > 0)
        #expect((Self.value(samples, "parley_database_bytes", ["file": "search"]) ?? 0) > 0, "the search index's file")
        #expect(Self.value(samples, "parley_event_backlog_events") != nil)

        // Every histogram's buckets are cumulative and end in +Inf, which equals its count.
        let histograms = types.filter { $0.value == "histogram" }.keys
        #expect(histograms.count >= 5, "\(histograms)")
        for family in histograms {
            let series = Dictionary(grouping: samples.filter { $0.name == family + "_bucket" }) { $0.labels.filter { $0.key != "le" } }
            for (labels, buckets) in series {
                let ordered = buckets.sorted { (Double($0.labels["le"] ?? "") ?? .infinity) < (Double($1.labels["le"] ?? "") ?? .infinity) }
                #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0.value <= $1.value }, "\(family) \(labels) is not cumulative")
                #expect(ordered.last?.labels["le"] == "+Inf")
                #expect(ordered.last?.value == Self.value(samples, family + "_count", labels), "\(family) \(labels)")
            }
        }
        await alice.close()
        await bob.close()
        await server.stop()
    }
}
