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
                let chat: Chat
                if let known = channels[name.lowercased()] {
                    chat = known
                } else if index < keys.count {
                    chat = try await session.join(invite: keys[index])
                } else {
                    chat = try await memberOrJoin(name)
                }
                try await announceJoin(chat)
            } catch {
                refuse("JOIN", target: name, ParleyError(error))
            }
        }
    }

    /// The group, joined if the user is not a member yet; made (public, the joiner its
    /// owner) when there is none by that name, as IRC servers make channels.
    private func memberOrJoin(_ name: String) async throws -> Chat {
        let chat: Chat
        do {
            chat = try await session.group(handle: name)
        } catch let error as ParleyError where error.code == .unknownGroup {
            do {
                return try await session.createGroup(handle: name, title: nil, isPublic: true)
            } catch let error as ParleyError where error.code == .handleTaken {
                return try await session.joinGroup(handle: name)  // made by someone else meanwhile
            }
        }
        let members = try? await session.members(chat: chat.id)
        if let me = view.me, members?.contains(where: { $0.user.id == me.id }) == true { return chat }
        return try await session.joinGroup(handle: name)
    }

    /// Tells the client it is in `chat`: JOIN, the topic, the names.
    func announceJoin(_ chat: Chat) async throws {
        guard let channel = IRCView.channel(chat), let me = view.me else { return }
        let first = channels[channel.lowercased()] == nil
        channels[channel.lowercased()] = chat
        guard first else { return }
        output.send(IRCMessage(source: IRCView.prefix(me), command: "JOIN", params: [channel]))
        if let topic = chat.topic, !topic.isEmpty { reply(IRCNumeric.topic, [channel, topic]) }
        try await sendNames(chat, channel: channel)
    }

    func part(_ message: IRCMessage) async throws {
        for name in try targets(message, 0) {
            do {
                let chat = try await channelChat(name)
                // Others hear of it as the engine's event; the one who acted, from here.
                let reason = try Limits.reason(message.params.count > 1 ? message.params[1] : nil)
                try await session.leave(chat: chat.id, reason: reason)
                channels[name.lowercased()] = nil
                if let me = view.me {
                    output.send(IRCMessage(source: IRCView.prefix(me), command: "PART", params: [name] + (reason.map { [$0] } ?? [])))
                }
            } catch {
                refuse("PART", target: name, ParleyError(error))
            }
        }
    }

    /// The chat a channel name stands for (one the client joined, or any group it may see).
    func channelChat(_ name: String) async throws -> Chat {
        if let known = channels[name.lowercased()] { return known }
        guard name.hasPrefix("#") else { throw ParleyError(.unknownGroup, "no channel \(name)") }
        return try await session.group(handle: name)
    }

    func topic(_ message: IRCMessage) async throws {
        let name = try parameter(message, 0)
        let chat = try await channelChat(name)
        guard message.params.count > 1 else {
            let current = try await session.chat(chat.id)
            if let topic = current.topic, !topic.isEmpty {
                reply(IRCNumeric.topic, [name, topic])
            } else {
                reply(IRCNumeric.noTopic, [name, "No topic is set"])
            }
            return
        }
        // Others hear of it as the engine's event; the one who acted, from here.
        let updated = try await session.setTopic(message.params[1].isEmpty ? nil : message.params[1], in: chat.id)
        channels[name.lowercased()] = updated
        if let me = view.me {
            output.send(IRCMessage(source: IRCView.prefix(me), command: "TOPIC", params: [name, updated.topic ?? ""]))
        }
    }

    func names(_ message: IRCMessage) async throws {
        guard let name = message.params.first else {
            reply(IRCNumeric.endOfNames, ["*", "End of /NAMES list"])
            return
        }
        // A channel that does not exist, or is hidden from the user, has no names.
        guard let chat = try? await channelChat(name) else {
            reply(IRCNumeric.endOfNames, [name, "End of /NAMES list"])
            return
        }
        try await sendNames(chat, channel: name)
    }

    func sendNames(_ chat: Chat, channel: String) async throws {
        let members = try await session.members(chat: chat.id)
        let names = members.map { ($0.role >= .admin ? "@" : "") + $0.user.handle }
        var line: [String] = []
        var length = 0
        for name in names {
            if length + name.utf8.count + 1 > 400 {
                reply(IRCNumeric.namReply, ["=", channel, line.joined(separator: " ")])
                line = []
                length = 0
            }
            line.append(name)
            length += name.utf8.count + 1
        }
        if !line.isEmpty { reply(IRCNumeric.namReply, ["=", channel, line.joined(separator: " ")]) }
        reply(IRCNumeric.endOfNames, [channel, "End of /NAMES list"])
    }

    func who(_ message: IRCMessage) async throws {
        let mask = try parameter(message, 0)
        if mask.hasPrefix("#") {
            let chat = try await channelChat(mask)
            for member in try await session.members(chat: chat.id) {
                let flags = "H" + (member.role >= .admin ? "@" : "")
                reply(
                    IRCNumeric.whoReply,
                    [mask, member.user.handle, "parley", serverName, member.user.handle, flags, "0 \(member.user.displayName)"])
            }
        } else if let user = try? await session.user(handle: mask) {
            reply(IRCNumeric.whoReply, ["*", user.handle, "parley", serverName, user.handle, "H", "0 \(user.displayName)"])
        }
        reply(IRCNumeric.endOfWho, [mask, "End of /WHO list"])
    }

    func kick(_ message: IRCMessage) async throws {
        let name = try parameter(message, 0)
        let target = try parameter(message, 1)
        let chat = try await channelChat(name)
        let user = try await session.user(handle: target)
        // Others hear of it as the engine's event; the one who acted, from here.
        let reason = try Limits.reason(message.params.count > 2 ? message.params[2] : nil)
        try await session.kick(user: user.id, from: chat.id, reason: reason)
        if let me = view.me {
            output.send(IRCMessage(source: IRCView.prefix(me), command: "KICK", params: [name, user.handle, reason ?? me.handle]))
        }
    }

    func invite(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        let name = try parameter(message, 1)
        let chat = try await channelChat(name)
        let user = try await session.user(handle: target)
        try await session.invite(user: user.id, to: chat.id)
        reply(IRCNumeric.inviting, [user.handle, name])
    }

    /// MODE: the channel's modes (+nt), the user's (+i), and +o/-o for roles.
    func mode(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        guard target.hasPrefix("#") else {
            reply(IRCNumeric.umodeIs, ["+i"])
            return
        }
        let chat = try await channelChat(target)
        guard message.params.count > 1 else {
            reply(IRCNumeric.channelModeIs, [target, "+nt"])
            return
        }
        let change = message.params[1]
        guard change == "+o" || change == "-o", message.params.count > 2 else {
            reply("472", [change, "is not a mode the gateway sets yet"])
            return
        }
        let user = try await session.user(handle: message.params[2])
        // Others hear of it as the engine's event; the one who acted, from here.
        try await session.setRole(change == "+o" ? .admin : .member, for: user.id, in: chat.id)
        if let me = view.me {
            output.send(IRCMessage(source: IRCView.prefix(me), command: "MODE", params: [target, change, user.handle]))
        }
    }

    /// LIST: the groups the user is in (the directory of public groups is not a verb yet).
    func list(_ message: IRCMessage) async throws {
        reply(IRCNumeric.listStart, ["Channel", "Users Name"])
        for group in try await session.groups() {
            guard let channel = IRCView.channel(group) else { continue }
            let count = (try? await session.members(chat: group.id).count) ?? 0
            reply(IRCNumeric.list, [channel, String(count), group.topic ?? group.title ?? ""])
        }
        reply(IRCNumeric.listEnd, ["End of /LIST"])
    }
}
