import Foundation
import ParleyCore
import ParleyEngine

/// What an operator (after OPER) does over IRC, mapped onto the server operators' tools:
/// KILL ends every session of an account, WALLOPS is a notice to everyone connected,
/// KLINE/UNKLINE and UBAN ADD/DEL/LIST make and lift server bans. Without OPER, 481.
extension IRCConnection {
    /// KILL nick [reason]: ends the account's sessions on every client and node; it may
    /// sign in again.
    func kill(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        guard requireOper() else { return }
        do {
            try await session.disconnect(handle: target, reason: message.params.count > 1 ? message.params[1] : nil)
        } catch let error as ParleyError {
            refuse("KILL", target: target, error)
        }
    }

    /// WALLOPS text: to everyone connected here (on IRC, those with +w or +o).
    func wallops(_ message: IRCMessage) async throws {
        let text = try parameter(message, 0)
        guard requireOper() else { return }
        do {
            try await session.wallops(text)
        } catch let error as ParleyError {
            refuse("WALLOPS", target: nil, error)
        }
    }

    /// KLINE [minutes] mask [:reason]: `*@203.0.113.0/24` (or any user part) bans an
    /// address range, a nick or nick pattern an account or handle pattern.
    func kline(_ message: IRCMessage) async throws {
        var params = message.params
        var duration: Duration?
        if let first = params.first, let minutes = Int(first), minutes >= 0, params.count > 1 {
            duration = minutes == 0 ? nil : .seconds(min(Int64(minutes), Limits.maxBanSeconds / 60) * 60)
            params.removeFirst()
        }
        guard let mask = params.first, !mask.isEmpty else {
            reply(IRCNumeric.needMoreParams, ["KLINE", "Not enough parameters"])
            return
        }
        guard requireOper() else { return }
        await ban(Self.banTarget(mask), reason: params.count > 1 ? params[1] : nil, duration: duration, command: "KLINE")
    }

    /// UNKLINE mask: lifts the ban KLINE made.
    func unkline(_ message: IRCMessage) async throws {
        let mask = try parameter(message, 0)
        guard requireOper() else { return }
        await unban(Self.banTarget(mask), command: "UNKLINE")
    }

    /// UBAN ADD target [DURATION 1h|7d] [reason…] | UBAN DEL target | UBAN LIST: the
    /// server's bans, by account, handle pattern or address range.
    func uban(_ message: IRCMessage) async throws {
        let subcommand = try parameter(message, 0).uppercased()
        guard requireOper() else { return }
        switch subcommand {
        case "ADD":
            let target = try parameter(message, 1)
            var rest = Array(message.params.dropFirst(2))
            var duration: Duration?
            if rest.count >= 2, rest[0].uppercased() == "DURATION" {
                guard let length = DurationText.banLength(rest[1]) else {
                    notice("UBAN: \(rest[1]) is not a duration (30m, 12h, 7d) of a year at most")
                    return
                }
                duration = length
                rest.removeFirst(2)
            }
            let reason = rest.joined(separator: " ")
            await ban(Self.banTarget(target), reason: reason.isEmpty ? nil : reason, duration: duration, command: "UBAN")
        case "DEL":
            await unban(Self.banTarget(try parameter(message, 1)), command: "UBAN")
        case "LIST":
            do {
                let bans = try await session.serverBans()
                if bans.isEmpty { notice("UBAN: no bans") }
                for ban in bans { notice("UBAN \(ban.id): \(Self.describe(ban))") }
            } catch let error as ParleyError {
                refuse("UBAN", target: nil, error)
            }
        default:
            notice("UBAN: ADD target [DURATION 7d] [reason], DEL target, or LIST")
        }
    }

    private func ban(_ target: String, reason: String?, duration: Duration?, command: String) async {
        do {
            let ban = try await session.banServer(target, reason: reason, duration: duration)
            notice("\(command): banned \(Self.describe(ban))")
        } catch let error as ParleyError {
            notice("\(command): \(error.code): \(error.message)")
        } catch {
            refuse(command, target: nil, ParleyError(error))
        }
    }

    private func unban(_ target: String, command: String) async {
        do {
            let lifted = try await session.unbanServer(target)
            notice("\(command): lifted the ban on \(Self.describe(lifted))")
        } catch let error as ParleyError {
            notice("\(command): \(error.code): \(error.message)")
        } catch {
            refuse(command, target: nil, ParleyError(error))
        }
    }

    /// True for an operator; else 481 and false.
    private func requireOper() -> Bool {
        guard userModes.contains("o") else {
            reply(IRCNumeric.noPrivileges, ["Permission Denied - You're not an IRC operator"])
            return false
        }
        return true
    }

    private func notice(_ text: String) {
        emit(IRCMessage(source: serverName, command: "NOTICE", params: [nick, text]))
    }

    /// A ban's target from an IRC mask: the host of `user@host`, the nick of `nick!user@host`.
    static func banTarget(_ mask: String) -> String {
        if let at = mask.lastIndex(of: "@") { return String(mask[mask.index(after: at)...]) }
        if let bang = mask.firstIndex(of: "!") { return String(mask[..<bang]) }
        return mask
    }

    static func describe(_ ban: ServerBan) -> String {
        let until = ban.expiresAt.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        return ban.banned + until + (ban.reason.map { ": \($0)" } ?? "")
    }
}
