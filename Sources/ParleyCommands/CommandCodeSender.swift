import ArgumentParser
import Foundation
import Logging
import ParleyEngine

/// `parley serve --sms-command 'PROGRAM {phone} {code}'`: hands each code to a program
/// (a gateway's command-line client, say). The words are split like a shell would not:
/// on spaces only, with no quoting, globbing or variables, and the program runs without
/// a shell, so a phone number can never become a command. It has 10 seconds.
struct CommandCodeSender: CodeSender {
    let words: [String]
    let logger: Logger
    let timeout: TimeInterval = 10

    init(template: String, logger: Logger) throws {
        words = template.split(separator: " ").map(String.init)
        guard let program = words.first, words.contains(where: { $0.contains("{code}") }) else {
            throw ValidationError("--sms-command needs a program and a {code} placeholder, like 'sms-send {phone} {code}'")
        }
        guard program.contains("/") || Self.inPath(program) != nil else { throw ValidationError("--sms-command: no program \(program)") }
        self.logger = logger
    }

    func send(code: String, to phone: String) async throws {
        let arguments = words.map { $0.replacingOccurrences(of: "{phone}", with: phone).replacingOccurrences(of: "{code}", with: code) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0].contains("/") ? arguments[0] : Self.inPath(arguments[0]) ?? arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { process.terminate() } }
        }
        guard status == 0 else {
            logger.warning("sms command for \(phone) failed with status \(status)")
            throw CommandFailed(status: status)
        }
    }

    struct CommandFailed: Error {
        var status: Int32
    }

    private static func inPath(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
