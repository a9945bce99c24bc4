import Foundation
import ParleyCore

/// `/autolog [on [DIR] | off]`: logging each chat to files, as irssi's `/set autolog`,
/// kept for the data folder (`--log-dir` and `$PARLEY_LOG_DIR` still win for one run).
extension Shell {
    func autolog(_ input: inout CommandInput) async throws {
        let usage = "/autolog [on [DIR] | off]"
        let setting = ChatLogs.settingFile(in: settings.dataFolder)
        switch try input.word() {
        case nil:
            guard let logs = settings.logs else {
                output.result(
                    "autolog", ["Not logging: /autolog on [DIR] keeps each chat in a file of its own"], json: ["folder": nil as String?])
                return
            }
            let saved = ChatLogs.saved(in: settings.dataFolder)?.standardizedFileURL == logs.folder.standardizedFileURL
            output.result(
                "autolog", ["Logging each chat to \(logs.folder.path)" + (saved ? "" : " (for this run: --log-dir)")],
                json: ["folder": logs.folder.path])
        case "on":
            let path = try input.word()
            try noMoreArguments(input)
            let folder =
                path.map { Self.fileURL($0).standardizedFileURL } ?? settings.dataFolder.appendingPathComponent("logs")
            let logs = try ChatLogs(folder: folder)
            try AtomicFile.replaceContents(of: setting, with: Data((folder.path + "\n").utf8))
            settings.logs = logs
            output.result(
                "autolog", ["Logging each chat to \(folder.path), from now on in this data folder"], json: ["folder": folder.path])
        case "off":
            try noMoreArguments(input)
            if FileManager.default.fileExists(atPath: setting.path) {
                do { try FileManager.default.removeItem(at: setting) } catch {
                    throw ParleyError(.fileError, "cannot remove \(setting.path): \(error.localizedDescription)")
                }
            }
            settings.logs = nil
            output.result("autolog", ["Not logging any more; the logs written so far stay"], json: ["folder": nil as String?])
        case let word?:
            throw ParleyError(.usage, "'\(word)' is not on or off: \(usage)")
        }
    }
}
