import Foundation
import Glibc

/// Small terminal helpers: reading a line with or without echo while readline is not
/// active (password prompts, confirmations).
public enum Terminal {
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Prints `prompt` on a line of its own and reads one line from the terminal, echo off
    /// when `echo` is false. Nil when the user cancels with Ctrl-C (or Ctrl-D on an empty
    /// line, or the input ends). The terminal is raw meanwhile: Ctrl-C is a key here, not
    /// a signal that would stop the command that asked (a server call cut off halfway
    /// read as "the connection was lost").
    public static func readLine(prompt: String, echo: Bool) -> String? {
        fflush(nil)
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            StandardOutput.write(prompt)
            return readPiped()
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // The switch drops what was typed before the question (it was echoed); the
        // prompt comes after it, so a key pressed once the prompt shows is read, not
        // dropped, and the way back keeps what was typed after the answer.
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        // A clean line: what a long prompt before it left on the line is erased.
        StandardOutput.write(isatty(STDOUT_FILENO) == 1 ? "\r\u{1B}[K" + prompt : prompt)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            StandardOutput.write("\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            switch byte {
            case 10, 13: return String(decoding: bytes, as: UTF8.self)
            case 3:
                StandardOutput.write("^C")
                return nil
            case 4 where bytes.isEmpty: return nil
            case 127, 8:
                // Back one character: the UTF-8 continuation bytes of the last one too.
                guard !bytes.isEmpty else { continue }
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
                if echo { StandardOutput.write("\u{8} \u{8}") }
            case 21:
                if echo { StandardOutput.write(String(repeating: "\u{8} \u{8}", count: String(decoding: bytes, as: UTF8.self).count)) }
                bytes.removeAll()
            case 0..<32: continue
            default:
                bytes.append(byte)
                if echo {
                    var one = byte
                    _ = write(STDOUT_FILENO, &one, 1)
                }
            }
        }
        return nil
    }

    /// A line from input that is not a terminal, as it comes.
    private static func readPiped() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == 10 || byte == 13 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// A line that carries a password, an ID token or a sign-in code must not be
    /// written to the history file.
    public static func carriesSecret(_ line: String) -> Bool {
        line.range(of: #"--(password|current|new|id-token)(=|\s)"#, options: .regularExpression) != nil
            || line.range(of: #"^\s*/code\s"#, options: .regularExpression) != nil
    }
}
