import Foundation
import ParleyCore

/// Runs a script: one command per line, `#` comments and blank lines skipped,
/// here-documents (`/send #g <<EOF` … `EOF`) for multi-line messages. Each command
/// finishes before the next line is read. Errors go to stderr as
/// `FILE:LINE: error: CODE: message`.
public struct ScriptRunner: Sendable {
    public var name: String
    public var keepGoing: Bool

    public init(name: String, keepGoing: Bool) {
        self.name = name
        self.keepGoing = keepGoing
    }

    /// The most lines that go into one batch of sends.
    static let batchLimit = 512

    /// Runs every line from `lines`; returns the exit status (0 clean, 1 after an error).
    ///
    /// Consecutive lines that only send text and are already read (a script file, or a
    /// pipe that has written them) run as one batch: the same results and errors, in the
    /// same order, as line by line, with one commit for the batch. A line still to come
    /// is never waited for to fill a batch.
    public func run(_ lines: inout LineReader, shell: Shell, output: Output) async -> Int32 {
        lines.beforeWaiting = { output.flush() }
        var status: Int32 = 0
        var lineNumber = 0
        var held: String?
        var heldError: ParleyError?
        func nextLine(ifReady: Bool) throws(ParleyError) -> String? {
            if let line = held {
                held = nil
                return line
            }
            if let error = heldError {
                heldError = nil
                lineNumber += 1
                throw error
            }
            do {
                guard let line = ifReady ? try lines.nextIfReady() : try lines.next() else { return nil }
                lineNumber += 1
                return line
            } catch {
                lineNumber += 1
                throw error
            }
        }
        func fail(_ error: ParleyError, at line: Int) -> Bool {
            output.error(error, location: "\(name):\(line)")
            status = 1
            return keepGoing
        }
        script: while true {
            let raw: String
            do {
                guard let line = try nextLine(ifReady: false) else { break }
                raw = line
            } catch {
                if !fail(error, at: lineNumber) { break }
                continue
            }
            let startLine = lineNumber
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if Shell.sendsText(line) && HereDocument.start(of: line) == nil {
                var batch = [(number: startLine, line: line)]
                while batch.count < Self.batchLimit {
                    let raw: String
                    do {
                        guard let line = try nextLine(ifReady: true) else { break }
                        raw = line
                    } catch {
                        // Reported in order, after the batch read so far.
                        heldError = error
                        lineNumber -= 1
                        break
                    }
                    let next = raw.trimmingSpaces()
                    if next.isEmpty || next.hasPrefix("#") { continue }
                    guard Shell.sendsText(next) && HereDocument.start(of: next) == nil else {
                        held = raw
                        break
                    }
                    batch.append((lineNumber, next))
                }
                var rest = batch[...]
                while !rest.isEmpty {
                    let (done, failure) = await shell.executeSends(rest.map(\.line))
                    guard let failure else { break }
                    let failed = rest[rest.startIndex + done]
                    if !fail(failure, at: failed.number) { break script }
                    rest = rest[(rest.startIndex + done + 1)...]
                }
                continue
            }
            do {
                var command = line
                var hereDocument: String?
                if let (head, terminator) = HereDocument.start(of: line) {
                    var body: [String] = []
                    var closed = false
                    while let next = try nextLine(ifReady: false) {
                        if next.trimmingSpaces() == terminator {
                            closed = true
                            break
                        }
                        body.append(next)
                    }
                    guard closed else { throw ParleyError(.usage, "here-document not closed with \(terminator)") }
                    command = head
                    hereDocument = body.joined(separator: "\n")
                }
                if try await shell.execute(command, hereDocument: hereDocument) == .quit { break }
            } catch {
                if !fail(ParleyError(error), at: startLine) { break }
            }
        }
        output.flush()
        return status
    }
}
