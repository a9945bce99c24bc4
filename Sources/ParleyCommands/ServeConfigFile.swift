import ArgumentParser
import Foundation
import Yams

/// `parley serve --config FILE`: the server's settings in a YAML file, one key for each
/// flag, named as the flag is without its dashes (`ping-timeout: 15`, `hook-allow:
/// [ci.example.com]`, `irc-guests: true`). The file's settings stand before the command
/// line's, and a setting the command line gives too is the command line's (a list
/// included: the command line's replaces the file's).
///
/// The file is read into the arguments it stands for, so a setting is checked by the
/// same rule whether it comes from the file or a flag.
enum ServeConfigFile {
    /// Every setting of `parley serve` a file may hold, and whether it takes a value
    /// (false: a switch, true or false in the file). Read from the command's own help,
    /// so a new flag is a new key without a word here.
    static let settings: [(key: String, takesValue: Bool)] = {
        let help = ServeCommand.helpMessage(columns: 10_000)
        var found: [(String, Bool)] = []
        for line in help.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("--") else { continue }
            let name = String(trimmed.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
            guard !["config", "check", "help", "version"].contains(name), !found.contains(where: { $0.0 == name }) else { continue }
            found.append((name, trimmed.dropFirst(2 + name.count).hasPrefix(" <")))
        }
        return found
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `arguments` (the process's, without its name) with `--config FILE` of `serve`
    /// replaced by what FILE holds; any other command line as it is.
    static func expand(_ arguments: [String]) throws -> [String] {
        guard let serve = arguments.firstIndex(of: "serve") else { return arguments }
        let own = Array(arguments[(serve + 1)...])
        guard let path = configPath(in: own) else { return arguments }
        return Array(arguments[...serve]) + (try self.arguments(file: path, commandLine: own)) + own
    }

    /// The file named by `--config FILE` or `--config=FILE`, if any.
    static func configPath(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--config", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
        }
        return nil
    }

    /// The arguments the file at `path` stands for, leaving out what `commandLine` sets.
    static func arguments(file path: String, commandLine: [String]) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Failure(description: "--config: cannot read \(path)")
        }
        let loaded: Any?
        do {
            loaded = try Yams.load(yaml: text)
        } catch {
            throw Failure(description: "\(path): not YAML: \(error)")
        }
        guard let loaded else { return [] }
        guard let mapping = loaded as? [String: Any] else {
            throw Failure(description: "\(path): the file is a mapping of settings (port: 7878), one a line")
        }
        let given = Set(commandLine.compactMap { $0.hasPrefix("--") ? String($0.dropFirst(2).prefix { $0 != "=" }) : nil })
        var arguments: [String] = []
        for (key, takesValue) in settings {
            guard let value = mapping[key], !given.contains(key), !(value is NSNull) else { continue }
            let flag = "--" + key
            if !takesValue {
                guard let on = value as? Bool else { throw Failure(description: "\(path): \(key) is true or false") }
                if on { arguments.append(flag) }
                continue
            }
            let values = value as? [Any] ?? [value]
            for item in values {
                guard let scalar = scalar(item) else {
                    throw Failure(
                        description: "\(path): \(key) takes a value\(values.count > 1 ? " or a list of them" : ""), not a mapping")
                }
                arguments += [flag, scalar]
            }
        }
        let known = Set(settings.map(\.key))
        if let unknown = mapping.keys.sorted().first(where: { !known.contains($0) }) {
            let close = settings.map(\.key).first { $0.hasPrefix(unknown.prefix(4)) }
            throw Failure(description: "\(path): no setting named \(unknown)\(close.map { " (did you mean \($0)?)" } ?? "")")
        }
        return arguments
    }

    private static func scalar(_ value: Any) -> String? {
        switch value {
        case let text as String: text
        case let flag as Bool: flag ? "true" : "false"
        case let number as Int: String(number)
        case let number as Double: String(number)
        default: nil
        }
    }
}
