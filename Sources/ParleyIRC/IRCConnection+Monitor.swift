import ParleyCore
import ParleyEngine

/// IRCv3 MONITOR: the engine's presence watches. A user's watch list is kept with their
/// account (a guest's goes with it), so every IRC connection of theirs shares it.
extension IRCConnection {
    /// MONITOR + nicks, - nicks, C, L, S.
    func monitor(_ message: IRCMessage) async throws {
        let action = try parameter(message, 0)
        let nicks = message.params.count > 1 ? message.params[1].split(separator: ",").map(String.init).filter { !$0.isEmpty } : []
        switch action {
        case "+":
            view.willMonitor(nicks)
            let watched: [WatchedPresence]
            do {
                watched = view.monitor(try await session.watchPresence(of: nicks))
            } catch {
                view.monitor([])
                throw error
            }
            report(watched)
            // What did not fit: the limit, then the nicks left out.
            let kept = Set(watched.map { $0.handle.lowercased() })
            let refused = nicks.filter { !kept.contains($0.lowercased()) && (try? Limits.userHandle($0)) != nil }
            if !refused.isEmpty {
                reply(IRCNumeric.monListFull, [String(Limits.maxPresenceWatches), refused.joined(separator: ","), "Monitor list is full"])
            }
            // A nick that cannot be one is offline for good.
            let invalid = nicks.filter { (try? Limits.userHandle($0)) == nil }
            if !invalid.isEmpty { reply(IRCNumeric.monOffline, [invalid.joined(separator: ",")]) }
        case "-":
            try await session.unwatchPresence(of: nicks)
            view.unmonitor(nicks)
        case "C", "c":
            try await session.unwatchPresence(of: nil)
            view.unmonitor(nil)
        case "L", "l":
            let watched = try await session.watchedPresence()
            for chunk in Self.chunks(watched.map(\.handle)) { reply(IRCNumeric.monList, [chunk]) }
            reply(IRCNumeric.endOfMonList, ["End of MONITOR list"])
        case "S", "s":
            report(view.monitor(try await session.watchedPresence()))
        default:
            reply(IRCNumeric.unknownCommand, ["MONITOR", "Unknown MONITOR subcommand \(action)"])
        }
    }

    /// 730 for the online ones, 731 for the rest.
    private func report(_ watched: [WatchedPresence]) {
        let online = watched.compactMap { $0.online ? $0.user.map(IRCView.prefix) : nil }
        let offline = watched.filter { !$0.online }.map(\.handle)
        for chunk in Self.chunks(online) { reply(IRCNumeric.monOnline, [chunk]) }
        for chunk in Self.chunks(offline) { reply(IRCNumeric.monOffline, [chunk]) }
    }

    /// Comma-joined lists that fit in a line.
    static func chunks(_ items: [String]) -> [String] {
        var chunks: [String] = []
        var current = ""
        for item in items {
            if !current.isEmpty, current.utf8.count + item.utf8.count + 1 > 400 {
                chunks.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : ",") + item
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
