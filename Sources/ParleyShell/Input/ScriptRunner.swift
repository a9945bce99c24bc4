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
        func nextLine(ifReady: Bool) -> String? {
            if let line = held {
                held = nil
                return line
            }
            guard let line = ifReady ? lines.nextIfReady() : lines.next() else { return nil }
            lineNumber += 1
            return line
        }
        func fail(_ error: ParleyError, at line: Int) -> Bool {
            output.error(error, location: "\(name):\(line)")
            status = 1
            return keepGoing
        }
        script: while let raw = nextLine(ifReady: false) {
            let startLine = lineNumber
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if Shell.sendsText(line) && Self.hereDocumentStart(line) == nil {
                var batch = [(number: startLine, line: line)]
                while batch.count < Self.batchLimit, let raw = nextLine(ifReady: true) {
                    let next = raw.trimmingSpaces()
                    if next.isEmpty || next.hasPrefix("#") { continue }
                    guard Shell.sendsText(next) && Self.hereDocumentStart(next) == nil else {
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
                if let (head, terminator) = Self.hereDocumentStart(line) {
                    var body: [String] = []
                    var closed = false
                    while let next = nextLine(ifReady: false) {
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

    /// `/send #g <<EOF` → (`/send #g`, `EOF`).
    static func hereDocumentStart(_ line: String) -> (String, String)? {
        let bytes = line.utf8
        guard let last = bytes.indices.last(where: { $0 > bytes.startIndex && bytes[$0] == 0x3C && bytes[bytes.index(before: $0)] == 0x3C })
        else { return nil }
        let terminator = line[bytes.index(after: last)...].trimmingSpaces()
        guard !terminator.isEmpty, terminator.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return (line[..<bytes.index(before: last)].trimmingSpaces(), terminator)
    }
}

/// Lines of a file or of standard input, read as they come: a command runs before a
/// line not yet written is waited for, so a script can be fed from a pipe that waits on
/// the output. `nextIfReady` takes a line only if it can be had without waiting.
public struct LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where the unread bytes in `buffer` start.
    private var start = 0
    private var atEnd = false
    /// Runs before a read that may wait (to flush output a feeding program waits for).
    public var beforeWaiting: (() -> Void)?

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, waiting for it if need be; nil at the end of the input.
    public mutating func next() -> String? {
        while true {
            if let line = takeLine() { return line }
            if atEnd { return takeRest() }
            beforeWaiting?()
            fill()
        }
    }

    /// The next line if it is already read or can be read without waiting.
    public mutating func nextIfReady() -> String? {
        if let line = takeLine() { return line }
        if atEnd { return takeRest() }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) > 0 else { return nil }
        fill()
        return takeLine() ?? (atEnd ? takeRest() : nil)
    }

    private mutating func takeLine() -> String? {
        guard let newline = buffer[start...].firstIndex(of: 10) else { return nil }
        var end = newline
        if end > start && buffer[end - 1] == 13 { end -= 1 }
        let line = text(start..<end)
        start = newline + 1
        return line
    }

    /// The last line when the input does not end with a newline.
    private mutating func takeRest() -> String? {
        guard start < buffer.count else { return nil }
        let line = text(start..<buffer.count)
        start = buffer.count
        return line
    }

    private func text(_ range: Range<Int>) -> String {
        buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Reads what is there (waiting if nothing is), keeping the unread part.
    private mutating func fill() {
        if start > 0 {
            buffer.removeSubrange(..<start)
            start = 0
        }
        let chunk = 1 << 16
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunk) }
        } while count < 0 && errno == EINTR
        buffer.removeLast(chunk - max(count, 0))
        if count <= 0 { atEnd = true }
    }
}
