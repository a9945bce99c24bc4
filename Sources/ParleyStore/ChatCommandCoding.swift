package import Foundation
package import ParleyCore

/// How the stores keep a bot's declared commands: JSON text.
package enum ChatCommandCoding {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Commands read back; nothing for text that is not theirs.
    package static func decode(_ json: String?) -> [ChatCommand] {
        guard let json else { return [] }
        return (try? JSONDecoder().decode([ChatCommand].self, from: Data(json.utf8))) ?? []
    }
}
