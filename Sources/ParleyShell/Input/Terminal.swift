import Foundation
import Glibc

/// Small terminal helpers: reading a line with or without echo while readline is not
/// active (password prompts, confirmations).
public enum Terminal {
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Prints `prompt` and reads one line from the terminal, echo off when `echo` is false.
    public static func readLine(prompt: String, echo: Bool) -> String? {
        fflush(nil)
        StandardOutput.write(prompt)
        var saved = termios()
        let haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if haveTerminal && !echo {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if haveTerminal && !echo {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                StandardOutput.write("\n")
            }
        }
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
