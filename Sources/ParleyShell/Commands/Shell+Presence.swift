import Foundation
import ParleyCore

/// Away, activity and sessions.
extension Shell {
    func away(_ input: inout CommandInput) async throws {
        let text = try input.text()
        try await service.setAway(text.isEmpty ? nil : text)
        output.result(
            "away", ["You are away" + (text.isEmpty ? "" : ": \(Sanitizer.line(text))") + " (until /back or your next message)"],
            json: ["away": text.isEmpty ? "away" : text])
    }

    func back(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        try await service.back()
        output.result("back", ["You are back"], json: ["away": Optional<String>.none])
    }

    func whois(_ input: inout CommandInput) async throws {
        let handle = try input.required("@HANDLE")
        try noMoreArguments(input)
        let user = try await user(handle)
        let activity = try await service.activity(of: user.id)
        var lines = [Format.profile(user) + " — joined \(Format.day(user.createdAt))"]
        if activity.online {
            lines.append("  online now" + (activity.away.map { ", away: \(Sanitizer.line($0))" } ?? ""))
        } else {
            if let away = activity.away { lines.append("  away: \(Sanitizer.line(away))") }
            lines.append("  last seen " + (activity.lastSeen.map(Format.moment) ?? (activity.hidden ? "hidden" : "unknown")))
        }
        if let signIn = activity.lastSignIn { lines.append("  last signed in \(Format.moment(signIn))") }
        output.result("whois", lines, json: activity)
    }

    func privacy(_ input: inout CommandInput) async throws {
        let usage = "/privacy last-seen hide|show"
        guard try input.word()?.lowercased() == "last-seen", let choice = try input.word()?.lowercased(), ["hide", "show"].contains(choice)
        else { throw ParleyError(.usage, "\(usage)") }
        try noMoreArguments(input)
        try await service.hideActivity(choice == "hide")
        let line =
            choice == "hide"
            ? "Others no longer see when you were last around, and you no longer see theirs"
            : "Others see when you were last around again"
        output.result("privacy", [line], json: ["hidden": choice == "hide"])
    }

    /// The user's own bound on IRC playback: shown, set, turned off or back to the server's.
    func playback(_ input: inout CommandInput) async throws {
        if let word = try input.word()?.lowercased() {
            try noMoreArguments(input)
            let limit: Int?
            switch word {
            case "off", "none": limit = 0
            case "default": limit = nil
            default:
                guard let count = Int(word) else { throw ParleyError(.usage, "/playback [off|COUNT|default]") }
                limit = count
            }
            try await service.setIRCPlayback(limit)
        }
        let limit = try await service.ircPlayback()
        let line =
            switch limit {
            case nil: "IRC clients without history are played back what you missed, as far as the server's bound goes"
            case 0: "IRC clients are played back nothing when they connect"
            case let count?: "IRC clients without history are played back at most \(count) missed messages of each chat"
            }
        output.result("playback", [line], json: ["limit": limit])
    }

    func sessions(_ input: inout CommandInput) async throws {
        if let verb = try input.word() {
            guard verb.lowercased() == "revoke", let id = try input.word() else {
                throw ParleyError(.usage, "/sessions  |  /sessions revoke ID")
            }
            try noMoreArguments(input)
            try await service.revokeSession(id)
            return output.result("sessions", ["Ended session \(Sanitizer.line(id))"], json: ["revoked": id])
        }
        let sessions = try await service.sessions()
        let lines = sessions.map { session in
            "\(session.id)  \(Sanitizer.line(session.client))  from \(Sanitizer.line(session.address))"
                + "  started \(Format.moment(session.startedAt))  active \(Format.moment(session.lastActiveAt))"
                + (session.current ? "  (this one)" : "")
        }
        output.result("sessions", lines, json: sessions)
    }
}
