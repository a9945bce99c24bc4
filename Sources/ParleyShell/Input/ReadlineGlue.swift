@preconcurrency import CReadline
import Foundation
import Glibc
import ParleyCore

/// The C side of readline: its callbacks are plain C functions, so the state they
/// share lives here, touched only from the line editor's thread (and the signal pipe).
enum ReadlineGlue {
    /// The line the handler received: nil until one arrives; `.some(nil)` on Ctrl-D.
    nonisolated(unsafe) private static var accepted: String??
    nonisolated(unsafe) private static var completions: (@Sendable (String, Bool) -> [String])?
    nonisolated(unsafe) private static var matches: [String] = []
    nonisolated(unsafe) private static var historyPath = ""
    nonisolated(unsafe) static var quitRequested = false
    static let signalPipe = Pipe()
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) private static var wordBreaks = strdup(" \t\n\"'")

    static func setUp(historyPath: String, completions: @escaping @Sendable (String, Bool) -> [String]) {
        self.historyPath = historyPath
        self.completions = completions
        rl_readline_name = UnsafePointer(strdup("parley"))
        rl_catch_signals = 0
        rl_completer_word_break_characters = UnsafePointer(wordBreaks)
        rl_attempted_completion_function = { text, start, _ in ReadlineGlue.complete(text, start: start) }
        using_history()
        if FileManager.default.fileExists(atPath: historyPath) {
            read_history(historyPath)
        } else {
            _ = FileManager.default.createFile(atPath: historyPath, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(ReadlineGlue.signalPipe.writeFD, &byte, 1)
        }
        // While readline has the terminal, Ctrl-C is a key, read in order with what is
        // typed after it. As a signal it came on another thread, and on a busy machine
        // the keys typed behind it were sometimes read into the old line first
        // ("half typed line/whoami" sent as one). Readline puts the terminal back as it
        // was when it lets go, so Ctrl-C stops a running command as SIGINT still.
        rl_prep_term_function = { meta in
            rl_prep_terminal(meta)
            var settings = termios()
            guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
            // No interrupt character (Linux's _POSIX_VDISABLE is 0).
            withUnsafeMutableBytes(of: &settings.c_cc) { $0[Int(VINTR)] = 0 }
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
        rl_bind_key(3) { _, _ in
            ReadlineGlue.dropLine()
            return 0
        }
    }

    static func tearDown() {
        if installed { remove() }
        history_truncate_file(historyPath, 1000)
        signal(SIGINT, SIG_DFL)
    }

    static func install(prompt: String) {
        rl_callback_handler_install(prompt) { line in
            // Off at once, inside the handler: readline would otherwise draw the next
            // prompt below the accepted line, and what the command prints would be
            // written over it (`@ann ann <ann@example.com>ame>`).
            rl_callback_handler_remove()
            ReadlineGlue.installed = false
            if let line {
                ReadlineGlue.accepted = .some(String(cString: line))
                free(line)
            } else {
                ReadlineGlue.accepted = .some(nil)
            }
        }
        installed = true
    }

    static func remove() {
        guard installed else { return }
        rl_callback_handler_remove()
        installed = false
    }

    static func takeLine() -> String?? {
        defer { accepted = nil }
        return accepted
    }

    /// Adds a line to the history and its file, unless it carries a password.
    static func remember(_ line: String) {
        let trimmed = line.trimmingSpaces()
        guard !trimmed.isEmpty, !line.contains("\n"), !Terminal.carriesSecret(line) else { return }
        add_history(trimmed)
        append_history(1, historyPath)
    }

    /// SIGINT at the prompt (from `kill`: Ctrl-C itself is a key there): drop what was
    /// typed and show a fresh prompt.
    static func clearLine() {
        guard installed else { return }
        rl_callback_sigcleanup()
        dropLine()
    }

    /// Shows "^C" after what was typed and a fresh prompt below it, the typed line
    /// forgotten: Ctrl-C as a key (from inside readline's own dispatch of it) and, after
    /// the cleanup a signal needs, as SIGINT.
    private static func dropLine() {
        rl_point = rl_end
        rl_redisplay()
        fflush(nil)
        StandardOutput.write("^C\n")
        rl_free_line_state()
        rl_replace_line("", 0)
        rl_point = 0
        rl_mark = 0
        rl_on_new_line()
        rl_redisplay()
    }

    /// Replaces the prompt of the line being edited, keeping what was typed.
    static func changePrompt(_ prompt: String) {
        guard installed else { return }
        rl_clear_visible_line()
        rl_set_prompt(prompt)
        rl_on_new_line()
        rl_redisplay()
    }

    /// What has been typed on the line so far.
    static var typed: String {
        guard installed, let buffer = rl_line_buffer else { return "" }
        return String(cString: buffer)
    }

    /// Prints text on its own lines above the prompt, then redraws the prompt and the
    /// half-typed line exactly as they were.
    static func printAbovePrompt(_ text: String, promptActive: Bool) {
        guard promptActive, installed else {
            StandardOutput.write(text + "\n")
            return
        }
        rl_clear_visible_line()
        fflush(nil)
        StandardOutput.write(text + "\n")
        rl_on_new_line()
        rl_redisplay()
    }

    private static func complete(_ text: UnsafePointer<CChar>?, start: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        let word = text.map { String(cString: $0) } ?? ""
        // A word starting with / is a command only first on the line; elsewhere it is an
        // absolute path, and readline's own file name completion takes it (and `~/…`
        // and relative paths, as it takes any other word).
        guard (word.hasPrefix("/") && start == 0) || word.hasPrefix("@") || word.hasPrefix("#") else {
            return nil
        }
        rl_attempted_completion_over = 1
        matches = completions?(word, start == 0) ?? []
        return rl_completion_matches(text) { _, state in
            if state == 0 { ReadlineGlue.nextMatch = 0 }
            guard ReadlineGlue.nextMatch < ReadlineGlue.matches.count else { return nil }
            defer { ReadlineGlue.nextMatch += 1 }
            return strdup(ReadlineGlue.matches[ReadlineGlue.nextMatch])
        }
    }

    nonisolated(unsafe) private static var nextMatch = 0
}
