import ParleyCore
import ParleyEngine

/// NickServ, as far as Parley needs one: IRC networks keep an account's settings with it
/// (Ergo's `NS SET AUTOREPLAY-LINES`), so that is where an IRC user looks for them. It
/// keeps the user's playback bound (`/playback` in the shell); accounts are made in the
/// shell and IRC signs in with SASL, which it says when asked for anything else.
/// Reached as `PRIVMSG NickServ :…`, `NICKSERV …` or `NS …`; answers are NOTICEs.
extension IRCConnection {
    static let nickServ = "NickServ"

    /// `NICKSERV`/`NS` with the words as parameters, or the text of a PRIVMSG to it.
    func nickServ(_ words: [String]) async {
        let verb = words.first?.uppercased() ?? "HELP"
        let setting = words.count > 1 ? words[1].uppercased() : ""
        switch verb {
        case "SET" where ["PLAYBACK", "AUTOREPLAY-LINES"].contains(setting):
            guard words.count == 3 else { return serviceNotice("Syntax: SET PLAYBACK <count|OFF|DEFAULT>") }
            let limit: Int?
            switch words[2].uppercased() {
            case "OFF", "NONE": limit = 0
            case "DEFAULT": limit = nil
            default:
                guard let count = Int(words[2]), (0...Limits.maxPlayback).contains(count) else {
                    return serviceNotice("PLAYBACK takes 0 (none) to \(Limits.maxPlayback), OFF or DEFAULT")
                }
                limit = count
            }
            do {
                try await session.setIRCPlayback(limit)
                await showPlayback()
            } catch {
                serviceNotice("That did not work: \(ParleyError(error).message)")
            }
        case "INFO", "GET", "SHOW":
            await showPlayback()
        case "HELP":
            serviceNotice("Parley's NickServ keeps your IRC settings:")
            serviceNotice(
                "  SET PLAYBACK <count|OFF|DEFAULT>: what your clients without history are played back of each chat when they connect")
            serviceNotice("  INFO: your settings")
            serviceNotice("Accounts are made in the parley shell; IRC clients sign in with SASL (PLAIN) or PASS.")
        default:
            serviceNotice(
                "Parley's NickServ only keeps settings (HELP lists them): accounts are made in the parley shell, "
                    + "and IRC clients sign in with SASL or PASS")
        }
    }

    static func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    private func showPlayback() async {
        let server = gateway.configuration.playback.perChat
        let line: String
        switch try? await session.ircPlayback() {
        case nil: line = "PLAYBACK is DEFAULT: at most \(server) missed messages of each chat (the server's bound)"
        case 0: line = "PLAYBACK is OFF: nothing is played back when you connect"
        case let count?: line = "PLAYBACK is \(count): at most \(min(count, server)) missed messages of each chat"
        }
        serviceNotice(line)
    }

    private func serviceNotice(_ text: String) {
        emit(IRCMessage(source: "\(Self.nickServ)!\(Self.nickServ)@\(serverName)", command: "NOTICE", params: [nick, text]))
    }
}
