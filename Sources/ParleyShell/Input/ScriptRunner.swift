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

    /// Runs every line from `lines`; returns the exit status (0 clean, 1 after an error).
    public func run(_ lines: some Sequence<String>, shell: Shell, output: Output) async -> Int32 {
        var status: Int32 = 0
        var lineNumber = 0
        var iterator = lines.makeIterator()
        while let raw = iterator.next() {
            lineNumber += 1
            let startLine = lineNumber
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                var command = line
                var hereDocument: String?
                if let (head, terminator) = Self.hereDocumentStart(line) {
                    var body: [String] = []
                    var closed = false
                    while let next = iterator.next() {
                        lineNumber += 1
                        if next.trimmingCharacters(in: .whitespaces) == terminator {
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
                let parleyError = error as? ParleyError ?? ParleyError(.internalError, "\(error)")
                output.error(parleyError, location: "\(name):\(startLine)")
                status = 1
                if !keepGoing { break }
            }
        }
        output.flush()
        return status
    }

    /// `/send #g <<EOF` → (`/send #g`, `EOF`).
    static func hereDocumentStart(_ line: String) -> (String, String)? {
        guard let range = line.range(of: "<<", options: .backwards) else { return nil }
        let terminator = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
        guard !terminator.isEmpty, terminator.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return (String(line[..<range.lowerBound]).trimmingCharacters(in: .whitespaces), terminator)
    }
}

/// Lines of a file or of standard input, read lazily so a command runs before the
/// next line is read (a script can be fed from a pipe that waits on the output).
public struct LineReader: Sequence, IteratorProtocol {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0

    public init(file: UnsafeMutablePointer<FILE>) {
        self.file = file
    }

    public mutating func next() -> String? {
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        var line = String(cString: buffer)
        if line.hasSuffix("\n") { line.removeLast() }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }
}
