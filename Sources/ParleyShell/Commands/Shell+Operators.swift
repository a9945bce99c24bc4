import Foundation
import ParleyCore

/// The server operators' commands: `/suspend`, `/reinstate`, `/suspensions`,
/// `/ban-server`, `/unban-server`, `/server-bans`, `/redact`, `/kill`, `/wallops`; and
/// `/audit`, which a
/// group's owner and admins may read for their group.
extension Shell {
    func suspend(_ input: inout CommandInput) async throws {
        guard let handle = try input.word() else { throw ParleyError(.usage, "/suspend @H REASON") }
        let reason = try input.text()
        guard !reason.isEmpty else { throw ParleyError(.usage, "/suspend @H REASON (say why: they are told)") }
        let suspension = try await service.suspend(handle: handle, reason: reason)
        output.result(
            "suspend", ["Suspended @\(suspension.user.handle): \(Sanitizer.line(suspension.reason)) (its sessions ended)"], json: suspension
        )
    }

    /// IRC's KILL: the account's sessions end, and it may sign in again.
    func kill(_ input: inout CommandInput) async throws {
        guard let handle = try input.word() else { throw ParleyError(.usage, "/kill @H [REASON]") }
        let reason = try input.text()
        try await service.disconnect(handle: handle, reason: reason.isEmpty ? nil : reason)
        let name = handle.hasPrefix("@") ? handle : "@" + handle
        output.result("kill", ["Disconnected \(Sanitizer.line(name)) (it may sign in again)"], json: ["handle": name])
    }

    /// IRC's WALLOPS: a notice to everyone connected.
    func wallops(_ input: inout CommandInput) async throws {
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, "/wallops TEXT") }
        try await service.wallops(text)
        output.result("wallops", ["Sent to everyone connected"], json: ["text": text])
    }

    func reinstate(_ input: inout CommandInput) async throws {
        guard let handle = try input.word() else { throw ParleyError(.usage, "/reinstate @H") }
        try noMoreArguments(input)
        let freed = try await service.reinstate(handle: handle)
        output.result("reinstate", ["Reinstated " + freed.map { "@\($0.handle)" }.joined(separator: ", ")], json: freed)
    }

    func suspensions(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let all = try await service.suspensions()
        let lines =
            all.isEmpty
            ? ["No account is suspended"]
            : all.map { suspension in
                "@\(suspension.user.handle)  since \(Format.time(suspension.at)) by @\(suspension.by)  \(Sanitizer.line(suspension.reason))"
            }
        output.result("suspensions", lines, json: all)
    }

    func banServer(_ input: inout CommandInput) async throws {
        let usage = "/ban-server @H|PATTERN|CIDR [--for 7d] [REASON]"
        let options = try input.options(values: ["for"])
        guard let target = options.positional.first else { throw ParleyError(.usage, usage) }
        var duration: Duration?
        if let text = options.values["for"] {
            guard let length = DurationText.banLength(text) else {
                throw ParleyError(.usage, "--for takes a time like 30m, 12h or 7d (a year at most)")
            }
            duration = length
        }
        let reason = options.positional.dropFirst().joined(separator: " ")
        let ban = try await service.banServer(target, reason: reason.isEmpty ? nil : reason, duration: duration)
        output.result("ban-server", ["Banned " + Self.describe(ban)], json: ban)
    }

    func unbanServer(_ input: inout CommandInput) async throws {
        guard let target = try input.word() else { throw ParleyError(.usage, "/unban-server ID|@H|PATTERN|CIDR") }
        try noMoreArguments(input)
        let lifted = try await service.unbanServer(target)
        output.result("unban-server", ["Lifted the ban on " + Self.describe(lifted)], json: lifted)
    }

    func serverBans(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let bans = try await service.serverBans()
        output.result("server-bans", bans.isEmpty ? ["No server bans"] : bans.map { "\($0.id)  " + Self.describe($0) }, json: bans)
    }

    func redact(_ input: inout CommandInput) async throws {
        let usage = "/redact @H [--since WHEN] [--until WHEN] [REASON]"
        let options = try input.options(values: ["since", "until"])
        guard let handle = options.positional.first else { throw ParleyError(.usage, usage) }
        let now = Date()
        let from = try options.values["since"].map { text throws(ParleyError) in try Self.pastTime(text, now: now) }
        let to = try options.values["until"].map { text throws(ParleyError) in try Self.pastTime(text, now: now) }
        let reason = options.positional.dropFirst().joined(separator: " ")
        let done = try await service.redact(handle: handle, from: from, to: to, reason: reason.isEmpty ? nil : reason)
        let media = done.media > 0 ? " (\(done.media) with media, withdrawn)" : ""
        output.result("redact", ["Deleted \(done.messages) messages of @\(done.user.handle)\(media)"], json: done)
    }

    func audit(_ input: inout CommandInput) async throws {
        let usage = "/audit [#G] [@ACTOR] [--before ID] [N]"
        let options = try input.options(values: ["before"])
        var (chat, actor, limit): (ChatID?, String?, Int) = (nil, nil, 50)
        for word in options.positional {
            if word.hasPrefix("#") {
                guard let found = try await target(word).chat else { throw ParleyError(.usage, usage) }
                chat = found.id
            } else if word.hasPrefix("@") {
                actor = word
            } else if let number = Int(word), number > 0 {
                limit = min(number, AuditEntry.maxPage)
            } else {
                throw ParleyError(.usage, usage)
            }
        }
        let before = try options.values["before"].map { text throws(ParleyError) in
            guard let id = Int64(text) else { throw ParleyError(.usage, "--before takes an entry's number") }
            return id
        }
        let entries = try await service.audit(chat: chat, actor: actor, before: before, limit: limit)
        guard !entries.isEmpty else {
            output.result("audit", ["Nothing in the audit log" + (chat == nil ? "" : " for that group")], json: entries)
            return
        }
        let lines = entries.map { entry in
            var line =
                "\(entry.id)  \(Self.reminderClock(entry.at))  @\(entry.actor) \(entry.action.rawValue) \(Sanitizer.line(entry.target))"
            if let place = entry.place { line += " in \(place)" }
            if let detail = entry.detail { line += " — \(Sanitizer.line(detail))" }
            if let reason = entry.reason { line += ": \(Sanitizer.line(reason))" }
            return line
        }
        output.result("audit", lines, json: entries)
    }

    static func describe(_ ban: ServerBan) -> String {
        let until = ban.expiresAt.map { " until \(reminderClock($0))" } ?? ""
        return ban.banned + until + (ban.reason.map { ": \(Sanitizer.line($0))" } ?? "")
    }

    /// A time in the past: `2h` ago, `3d` ago, or a local date (and time).
    static func pastTime(_ text: String, now: Date) throws(ParleyError) -> Date {
        if let seconds = DurationText.compound(text) { return now.addingTimeInterval(-seconds) }
        if let moment = try? SearchDate.parse(text, now: now) { return moment.start }
        throw ParleyError(.usage, "'\(text)' is not a time (2h, 3d, 2026-11-01 or 2026-11-01T09:00)")
    }
}
