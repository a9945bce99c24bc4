// libFuzzer target: script input through the shell's line reader, here-documents,
// tokenizer (with $VAR expansion), option parser and durations.
import Foundation
import Glibc
import ParleyCore

private let tokenizer = Tokenizer(environment: ["HOME": "/home/fuzz", "EMPTY": "", "SPACED": "a b  c"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShell(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // The bytes as a script on a pipe, read line by line as the shell reads them.
    var fds: [Int32] = [0, 0]
    guard size <= 60_000, pipe(&fds) == 0 else { return 0 }
    _ = write(fds[1], data, size)
    close(fds[1])
    var reader = LineReader(descriptor: fds[0])
    var lines: [String] = []
    while true {
        do {
            guard let line = try reader.next() else { break }
            lines.append(line)
        } catch {
            continue
        }
    }
    close(fds[0])
    for line in lines {
        _ = HereDocument.start(of: line)
        _ = try? tokenizer.words(line)
        _ = try? tokenizer.expandText(Substring(line))
        var input = CommandInput(line, tokenizer: tokenizer, hereDocument: nil)
        if let options = try? input.options(values: ["expires", "uses", "timeout", "name"], flags: ["link", "force", "json"]) {
            _ = try? options.integer("uses")
            for value in options.values.values { _ = try? DurationText.parse(value) }
            for word in options.positional { _ = try? DurationText.parse(word) }
        }
        var text = CommandInput(line, tokenizer: tokenizer, hereDocument: nil)
        _ = try? text.target()
        _ = try? text.text()
    }
    return 0
}
