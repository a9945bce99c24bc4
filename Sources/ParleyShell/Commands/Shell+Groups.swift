import Foundation
import ParleyCore

extension Shell {
    func create(_ input: inout CommandInput) async throws {
        guard let handle = try input.word(), handle.hasPrefix("#") else {
            throw ParleyError(.usage, "/create #G [TITLE] [--private]")
        }
        var title = try input.text()
        var isPublic = true
        if title == "--private" || title.hasSuffix(" --private") {
            isPublic = false
            title = String(title.dropLast("--private".count)).trimmingSpaces()
        }
        let chat = try await service.createGroup(handle: handle, title: title.isEmpty ? nil : title, isPublic: isPublic)
        completions.add(users: [], groups: [chat.handle ?? ""])
        try await makeCurrent(ChatTarget(chat: chat, peer: nil, label: Format.label(chat, me: me?.id)))
        let kind = isPublic ? "public" : "private"
        output.result("create", ["Created \(kind) group \(Format.label(chat, me: me?.id)); you are its owner"], json: chat)
    }

    func join(_ input: inout CommandInput) async throws {
        let what = try input.required("#G, CODE or link")
        let key = what.hasPrefix("#") ? try input.word() : nil
        try noMoreArguments(input)
        let chat: Chat
        do {
            chat =
                what.hasPrefix("#")
                ? try await service.joinGroup(handle: String(what.dropFirst()), key: key) : try await service.join(invite: what)
        } catch let error as ParleyError where error.code == .alreadyMember && what.hasPrefix("#") {
            // Already in it (an invitation, another shell): /join then means "talk there".
            let group = try await groupTarget(what)
            try await makeCurrent(ChatTarget(chat: group, peer: nil, label: Format.label(group, me: me?.id)))
            return output.result(
                "join", ["You are already in \(Format.label(group, me: me?.id)); talking there now"], json: group)
        }
        completions.add(users: [], groups: [chat.handle ?? ""])
        try await makeCurrent(ChatTarget(chat: chat, peer: nil, label: Format.label(chat, me: me?.id)))
        let topic = chat.topic.map { ["Topic: \(Sanitizer.line($0))"] } ?? []
        output.result("join", ["Joined \(Format.label(chat, me: me?.id))"] + topic, json: chat)
    }

    func invite(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["uses", "expires"], flags: ["link"])
        if options.flags.contains("link") {
            guard options.positional.count <= 1 else {
                throw ParleyError(.usage, "/invite --link [#G] [--uses N] [--expires 30m|2h|7d]")
            }
            let chat = try await groupTarget(options.positional.first)
            let expires = try options.values["expires"].map { try DurationText.parse($0) }
            let invite = try await service.createInvite(chat: chat.id, maxUses: try options.integer("uses"), expiresIn: expires)
            var details: [String] = []
            if let uses = invite.usesLeft { details.append("\(uses) use\(uses == 1 ? "" : "s")") }
            if let expiry = invite.expiresAt { details.append("expires \(Format.day(expiry)) \(Format.time(expiry))") }
            let suffix = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
            output.result("invite", ["Invite to \(Format.label(chat, me: me?.id)): \(invite.link)\(suffix)"], json: invite)
            return
        }
        guard (1...2).contains(options.positional.count), options.values.isEmpty else {
            throw ParleyError(.usage, "/invite @H [#G]")
        }
        let user = try await user(options.positional[0])
        let chat = try await groupTarget(options.positional.count == 2 ? options.positional[1] : nil)
        try await service.invite(user: user.id, to: chat.id)
        output.result(
            "invite", ["Added @\(Sanitizer.line(user.handle)) to \(Format.label(chat, me: me?.id))"],
            json: ["user": user.handle, "chat": chat.handle ?? ""])
    }

    func revoke(_ input: inout CommandInput) async throws {
        let code = try input.required("CODE")
        try noMoreArguments(input)
        try await service.revokeInvite(code: code)
        output.result("revoke", ["Revoked \(Sanitizer.line(code))"], json: ["code": Invite.code(fromCodeOrLink: code)])
    }

    func leave(_ input: inout CommandInput) async throws {
        let target = try input.word()
        try noMoreArguments(input)
        let chat = try await groupTarget(target)
        try await service.leave(chat: chat.id)
        if current?.chat?.id == chat.id { current = nil }
        output.result("leave", ["Left \(Format.label(chat, me: me?.id))"], json: chat)
    }

    func members(_ input: inout CommandInput) async throws {
        let target = try input.word()
        try noMoreArguments(input)
        let chat = try await groupTarget(target)
        let members = try await service.members(chat: chat.id)
        completions.add(users: members.map(\.user.handle), groups: [])
        let lines = members.map { member in
            "\(Format.user(member.user)) \(Sanitizer.line(member.user.displayName))"
                + (member.role == .member ? "" : " (\(member.role.rawValue))")
                + (member.avatar == nil ? "" : " (has avatar)")
        }
        let topic = try await service.chat(chat.id).topic.map { ["Topic: \(Sanitizer.line($0))"] } ?? []
        output.result("members", ["\(Format.label(chat, me: me?.id)): \(members.count) members"] + topic + lines, json: members)
    }

    func kick(_ input: inout CommandInput) async throws {
        let handle = try input.required("@HANDLE")
        let target = try input.word()
        try noMoreArguments(input)
        let user = try await user(handle)
        let chat = try await groupTarget(target)
        try await service.kick(user: user.id, from: chat.id)
        output.result(
            "kick", ["Removed @\(Sanitizer.line(user.handle)) from \(Format.label(chat, me: me?.id))"],
            json: ["user": user.handle, "chat": chat.handle ?? ""])
    }

    func setRole(_ input: inout CommandInput, _ role: Role) async throws {
        let handle = try input.required("@HANDLE")
        let target = try input.word()
        try noMoreArguments(input)
        let user = try await user(handle)
        let chat = try await groupTarget(target)
        try await service.setRole(role, for: user.id, in: chat.id)
        output.result(
            role == .admin ? "op" : role == .voiced ? "voice" : "deop",
            ["@\(Sanitizer.line(user.handle)) is now \(role.rawValue) of \(Format.label(chat, me: me?.id))"],
            json: ["user": user.handle, "chat": chat.handle ?? "", "role": role.rawValue])
    }

    func online(_ input: inout CommandInput) async throws {
        let target = try input.word()
        try noMoreArguments(input)
        let chat = try await groupTarget(target)
        let online = try await service.online(in: chat.id)
        let lines = online.map {
            Format.user($0.user) + ($0.viewing ? " (here)" : "") + ($0.away.map { " (away: \(Sanitizer.line($0)))" } ?? "")
        }
        output.result("online", ["\(Format.label(chat, me: me?.id)): \(online.count) online"] + lines, json: online)
    }

    func groups(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let groups = try await service.groups()
        let lines = groups.map { "\(Format.label($0, me: me?.id))" + ($0.title.map { " — \(Sanitizer.line($0))" } ?? "") }
        output.result("groups", lines.isEmpty ? ["You are in no groups: /create #name or /join #name"] : lines, json: groups)
    }

    func listGroups(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["page"])
        guard options.positional.count <= 1 else { throw ParleyError(.usage, "/list [PREFIX] [--page N]") }
        let (offset, pageSize) = try Self.page(options)
        let listings = try await service.publicGroups(options.positional.first ?? "", limit: pageSize, offset: offset)
        completions.add(users: [], groups: listings.compactMap(\.chat.handle))
        let lines = listings.map { listing in
            "#\(Sanitizer.line(listing.chat.handle ?? "")) (\(listing.members))"
                + ((listing.chat.topic ?? listing.chat.title).map { " — \(Sanitizer.line($0))" } ?? "")
        }
        output.result("list", lines.isEmpty ? ["No public groups found"] : lines, json: listings)
    }

    func ban(_ input: inout CommandInput, banned: Bool) async throws {
        let handle = try input.required("@HANDLE")
        let target = try input.word()
        try noMoreArguments(input)
        let bare = handle.hasPrefix("@") ? String(handle.dropFirst()) : handle
        let chat = try await groupTarget(target)
        if banned {
            try await service.ban(handle: bare, from: chat.id)
        } else {
            try await service.unban(handle: bare, from: chat.id)
        }
        output.result(
            banned ? "ban" : "unban",
            ["@\(Sanitizer.line(bare)) is \(banned ? "banned from" : "no longer banned from") \(Format.label(chat, me: me?.id))"],
            json: ["user": bare, "chat": chat.handle ?? "", "banned": banned ? "true" : "false"])
    }

    func bans(_ input: inout CommandInput) async throws {
        let target = try input.word()
        try noMoreArguments(input)
        let chat = try await groupTarget(target)
        let banned = try await service.bans(in: chat.id)
        let lines = banned.isEmpty ? ["Nobody is banned from \(Format.label(chat, me: me?.id))"] : banned.map { "@\(Sanitizer.line($0))" }
        output.result("bans", lines, json: banned)
    }
}
