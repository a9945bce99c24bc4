import Foundation
import ParleyCore
import ParleyEngine

extension IRCConnection {
    /// JOIN #a,#b [key,key]: a public group by its handle, any group with an invite code
    /// as its key; a group the user is in already is just announced.
    func join(_ message: IRCMessage) async throws {
        let names = try targets(message, 0)
        let keys = message.params.count > 1 ? message.params[1].split(separator: ",").map(String.init) : []
        for (index, name) in names.enumerated() {
            guard name.hasPrefix("#") else {
                reply(IRCNumeric.noSuchChannel, [name, "No such channel"])
                continue
            }
            do {
                if Self.threadChannel(name) != nil {
                    try await joinThread(name)
                    continue
                }
                let chat: Chat
                if let known = view.joined(name) {
                    chat = known
                } else {
                    chat = try await memberOrJoin(name, key: index < keys.count ? keys[index] : nil)
                }
                try await announceJoin(chat)
            } catch {
                refuse("JOIN", target: name, ParleyError(error))
            }
        }
    }

    /// The group, joined if the user is not a member yet; made (public, the joiner its
    /// owner) when there is none by that name, as IRC servers make channels. A private
    /// group takes an invitation (INVITE) or, as the key, an invite code.
    private func memberOrJoin(_ name: String, key: String?) async throws -> Chat {
        let chat: Chat
        do {
            chat = try await session.group(handle: name)
        } catch let error as ParleyError where error.code == .unknownGroup {
            do {
                return try await session.createGroup(handle: name, title: nil, isPublic: true)
            } catch let error as ParleyError where error.code == .handleTaken {
                return try await session.joinGroup(handle: name)  // made by someone else meanwhile
            }
        } catch let error as ParleyError where error.code == .privateGroup {
            return try await joinGroup(name, key: key)
        }
        let members = try? await session.members(chat: chat.id)
        if let me = view.me, members?.contains(where: { $0.user.id == me.id }) == true { return chat }
        return try await joinGroup(name, key: key)
    }

    private func joinGroup(_ name: String, key: String?) async throws -> Chat {
        do {
            return try await session.joinGroup(handle: name, key: key)
        } catch let error as ParleyError where key != nil && error.code == .privateGroup {
            guard let key else { throw error }
            return try await session.join(invite: key)
        }
    }

    /// Tells the client it is in `chat`: JOIN, the topic, the names.
    func announceJoin(_ chat: Chat) async throws {
        guard let channel = IRCView.channel(chat), let me = view.me else { return }
        guard view.enter(chat, as: channel) else { return }
        emit(IRCView.join(me, channel: channel, capabilities: view.capabilities, realname: userLine?.realname))
        sendTopic(of: chat, channel: channel)
        await announceReadMarker(of: chat, channel: channel)
        try await sendNames(chat, channel: channel)
    }

    func part(_ message: IRCMessage) async throws {
        for name in try targets(message, 0) {
            if Self.threadChannel(name) != nil {
                partThread(name)
                continue
            }
            do {
                let chat = try await channelChat(name)
                // Others hear of it as the engine's event; the one who acted, from here.
                let reason = try Limits.reason(message.params.count > 1 ? message.params[1] : nil)
                try await session.leave(chat: chat.id, reason: reason)
                view.forget(chat.id)
                if let me = view.me {
                    emit(IRCMessage(source: IRCView.prefix(me), command: "PART", params: [name] + (reason.map { [$0] } ?? [])))
                }
            } catch {
                refuse("PART", target: name, ParleyError(error))
            }
        }
    }

    /// The chat a channel name stands for (one the client joined, or any group it may see).
    /// RPL_TOPIC, and RPL_TOPICWHOTIME when Parley knows who set it.
    func sendTopic(of chat: Chat, channel: String) {
        guard let topic = chat.topic, !topic.isEmpty else { return }
        reply(IRCNumeric.topic, [channel, topic])
        if let setter = chat.topicSetBy, let at = chat.topicSetAt {
            reply(IRCNumeric.topicWhoTime, [channel, setter, String(Int64(at.timeIntervalSince1970))])
        }
    }

    func channelChat(_ name: String) async throws -> Chat {
        if let known = view.joined(name) ?? view.joinedThread(name)?.chat { return known }
        // A thread's channel stands for its group where a command reads the group (NAMES, WHO).
        if let (channel, _) = Self.threadChannel(name) { return try await channelChat(channel) }
        guard name.hasPrefix("#") else { throw ParleyError(.unknownGroup, "no channel \(name)") }
        return try await session.group(handle: name)
    }

    func topic(_ message: IRCMessage) async throws {
        let name = try parameter(message, 0)
        if Self.threadChannel(name) != nil { return try await threadTopic(name, message) }
        let chat = try await channelChat(name)
        guard message.params.count > 1 else {
            let current = try await session.chat(chat.id)
            if let topic = current.topic, !topic.isEmpty {
                sendTopic(of: current, channel: name)
            } else {
                reply(IRCNumeric.noTopic, [name, "No topic is set"])
            }
            return
        }
        // Others hear of it as the engine's event; the one who acted, from here.
        let updated = try await session.setTopic(message.params[1].isEmpty ? nil : message.params[1], in: chat.id)
        view.refresh(updated)
        if let me = view.me {
            emit(IRCMessage(source: IRCView.prefix(me), command: "TOPIC", params: [name, updated.topic ?? ""]))
        }
    }

    /// NAMES #a[,#b…]: each channel's names, then one end line for them all.
    func names(_ message: IRCMessage) async throws {
        guard message.params.first != nil else {
            reply(IRCNumeric.endOfNames, ["*", "End of /NAMES list"])
            return
        }
        for name in try targets(message, 0) {
            // A channel that does not exist, or is hidden from the user, has no names.
            guard let known = try? await channelChat(name), let chat = try? await session.chat(known.id) else { continue }
            try await sendNames(chat, channel: name, ending: false)
        }
        reply(IRCNumeric.endOfNames, [message.params[0], "End of /NAMES list"])
    }

    func sendNames(_ chat: Chat, channel: String, ending: Bool = true) async throws {
        let members = try await session.members(chat: chat.id)
        let full = view.capabilities.contains(.userhostInNames)
        let names = members.map { IRCView.prefixSymbol($0.role) + (full ? IRCView.prefix($0.user) : $0.user.handle) }
        let kind = chat.isPublic && !chat.unlisted ? "=" : "@"
        var line: [String] = []
        var length = 0
        for name in names {
            if length + name.utf8.count + 1 > 400 {
                reply(IRCNumeric.namReply, [kind, channel, line.joined(separator: " ")])
                line = []
                length = 0
            }
            line.append(name)
            length += name.utf8.count + 1
        }
        if !line.isEmpty { reply(IRCNumeric.namReply, [kind, channel, line.joined(separator: " ")]) }
        if ending { reply(IRCNumeric.endOfNames, [channel, "End of /NAMES list"]) }
    }

    /// KICK #chan nick[,nick…] [reason], or KICK #a,#b nick1,nick2 (each channel with
    /// the nick in its place); each kick answers for itself.
    func kick(_ message: IRCMessage) async throws {
        let channels = try targets(message, 0)
        let nicks = try targets(message, 1)
        guard channels.count == 1 || channels.count == nicks.count else {
            reply(IRCNumeric.needMoreParams, ["KICK", "One channel, or as many channels as nicks"])
            return
        }
        let reason = try Limits.reason(message.params.count > 2 ? message.params[2] : nil)
        for (index, target) in nicks.enumerated() {
            let name = channels.count == 1 ? channels[0] : channels[index]
            do {
                let chat = try await channelChat(name)
                let user = try await session.user(handle: target)
                try await session.kick(user: user.id, from: chat.id, reason: reason)
                // Others hear of it as the engine's event; the one who acted, from here.
                if let me = view.me {
                    emit(IRCMessage(source: IRCView.prefix(me), command: "KICK", params: [name, user.handle, reason ?? me.handle]))
                }
            } catch let error as ParleyError {
                refuse("KICK", target: error.code == .unknownUser ? target : name, error)
            }
        }
    }

    /// INVITE nick #chan; INVITE alone lists the invitations the user can still use.
    func invite(_ message: IRCMessage) async throws {
        guard !message.params.isEmpty else {
            for notice in try await session.invitations() {
                if let channel = IRCView.channel(notice.chat) { reply(IRCNumeric.inviteList, [channel]) }
            }
            reply(IRCNumeric.endOfInviteList, ["End of /INVITE list"])
            return
        }
        let target = try parameter(message, 0)
        let name = try parameter(message, 1)
        let chat = try await channelChat(name)
        let user = try await session.user(handle: target)
        do {
            _ = try await session.sendInvite(to: user.id, chat: chat.id)
        } catch let error as ParleyError where error.code == .alreadyMember {
            reply(IRCNumeric.userOnChannel, [user.handle, name, "is already on channel"])
            return
        }
        reply(IRCNumeric.inviting, [user.handle, name])
    }

    /// MODE: a channel's modes (`IRCModeRequest` reads what a line asks); a user's own
    /// modes are +i.
    func mode(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        guard target.hasPrefix("#") else {
            await userMode(message)
            return
        }
        let chat = try await session.chat(try await channelChat(target).id)
        guard message.params.count > 1 else {
            reply(IRCNumeric.channelModeIs, [target] + IRCModeRequest.modes(of: chat))
            // 329: when it was made; clients such as irssi wait for it before their next query.
            reply(IRCNumeric.creationTime, [target, String(Int64(chat.createdAt.timeIntervalSince1970))])
            return
        }
        let request = IRCModeRequest(message.params[1], arguments: message.params.dropFirst(2), target: target)
        var echo = IRCModeEcho()
        for step in request.steps {
            switch step {
            case .role(let letter, let adding, let nick):
                let user = try await session.user(handle: nick)
                let current = try await session.members(chat: chat.id).first { $0.user.id == user.id }?.role
                // Voice is below admin: +v or -v on an admin or the owner changes nothing.
                let role: Role = adding ? (letter == "o" ? .admin : .voiced) : .member
                if !(letter == "v" && (current ?? .member) >= .admin), current != role {
                    try await session.setRole(role, for: user.id, in: chat.id)
                }
                echo.note(letter, adding: adding, user.handle)
            case .listBans:
                for handle in try await session.bans(in: chat.id) { reply(IRCNumeric.banList, [target, "\(handle)!*@*"]) }
                reply(IRCNumeric.endOfBanList, [target, "End of channel ban list"])
            case .ban(let adding, let mask, let nick):
                if adding {
                    try await session.ban(handle: nick, from: chat.id)
                } else {
                    try await session.unban(handle: nick, from: chat.id)
                }
                echo.note("b", adding: adding, mask)
            case .rule(let letter, let adding, let parameter):
                echo.note(letter, adding: adding, parameter)
            case .refusal(let numeric, let parameters):
                reply(numeric, parameters)
            }
        }
        if !request.rules.isEmpty { _ = try await session.setGroupRules(in: chat.id, request.rules) }
        // Others hear of role changes as the engine's events; the one who acted, from here.
        if !echo.signs.isEmpty, let me = view.me {
            emit(IRCMessage(source: IRCView.prefix(me), command: "MODE", params: [target, echo.signs] + echo.parameters))
        }
    }

    /// LIST [#a,#b|prefix*]: the public groups (the first 500) and the user's own, or the
    /// public ones named.
    func list(_ message: IRCMessage) async throws {
        reply(IRCNumeric.listStart, ["Channel", "Users Name"])
        var listings: [GroupListing] = []
        if let asked = message.params.first, !asked.isEmpty, !asked.hasPrefix(">"), !asked.hasPrefix("<") {
            for name in asked.split(separator: ",").prefix(Self.maxTargets) {
                let bare = name.hasPrefix("#") ? name.dropFirst() : name[...]
                let prefix = bare.hasSuffix("*") ? String(bare.dropLast()) : String(bare)
                let found = try await session.publicGroups(prefix, limit: bare.hasSuffix("*") ? Limits.maxPageSize : 1, offset: 0)
                listings += bare.hasSuffix("*") ? found : found.filter { $0.chat.handle == prefix.lowercased() }
            }
        } else {
            listings = try await session.publicGroups("", limit: Limits.maxPageSize, offset: 0)
            // The user's own unlisted and private groups too, as IRC lists secret channels to members.
            let listed = Set(listings.map(\.chat.id))
            for group in try await session.groups() where !listed.contains(group.id) {
                listings.append(GroupListing(chat: group, members: (try? await session.members(chat: group.id).count) ?? 0))
            }
        }
        for listing in listings {
            guard let channel = IRCView.channel(listing.chat) else { continue }
            reply(IRCNumeric.list, [channel, String(listing.members), listing.chat.topic ?? listing.chat.title ?? ""])
        }
        reply(IRCNumeric.listEnd, ["End of /LIST"])
    }
}
