import ArgumentParser
import Foundation

/// What `parley serve --check` prints: every setting as it stands once the defaults, the
/// file and the command line are put together, as a file `--config` reads back.
extension ServeConfigFile {
    /// Properties whose flag is not the property's name in dashes.
    private static let renamed = [
        "admins": "admin", "trustedProxies": "trusted-proxy", "issuer": "oidc-issuer", "audience": "oidc-audience", "bans": "ban",
        "jwks": "oidc-jwks",
    ]

    /// The settings of a parsed command, `key: value` a line, in the help's order.
    static func effective(_ command: ServeCommand) -> String {
        var values: [String: String] = [:]
        collect(command, into: &values)
        return settings.map { key, _ in "\(key): \(values[key] ?? "~")" }.joined(separator: "\n")
    }

    /// Reads each option's value out of its property wrapper (an option group's too).
    private static func collect(_ subject: Any, into values: inout [String: String]) {
        for child in Mirror(reflecting: subject).children {
            guard let label = child.label, label.hasPrefix("_"), label != "_parent" else { continue }
            let name = String(label.dropFirst())
            guard let parsed = Mirror(reflecting: child.value).children.first(where: { $0.label == "_parsedValue" })?.value,
                let value = Mirror(reflecting: parsed).children.first?.value
            else { continue }
            if value is any ParsableArguments {
                collect(value, into: &values)
            } else {
                values[renamed[name] ?? dashed(name)] = yaml(value)
            }
        }
    }

    /// `pingTimeout` → `ping-timeout`, as the argument parser names flags.
    private static func dashed(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "-" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }

    private static func yaml(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        let unwrapped: Any
        if mirror.displayStyle == .optional {
            guard let some = mirror.children.first?.value else { return "~" }
            unwrapped = some
        } else {
            unwrapped = value
        }
        switch unwrapped {
        case let list as [Any]: return "[" + list.map(yaml).joined(separator: ", ") + "]"
        case let text as String: return quoted(text)
        case let raw as any RawRepresentable<String>: return quoted(raw.rawValue)
        case let flag as Bool: return flag ? "true" : "false"
        default: return "\(unwrapped)"
        }
    }

    /// A string as YAML reads it back exactly: JSON's quoting is YAML's double-quoted style.
    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
