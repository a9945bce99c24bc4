import Foundation
import ParleyCore
import ParleyEngine
import ParleyShell
import ParleyStore

/// Wires the shell to its service and its input: readline at a terminal, or a script.
struct ShellLauncher {
    let options: ShellOptions

    /// Runs the shell; returns the exit status.
    func run(scriptName: String?, file: UnsafeMutablePointer<FILE>) async throws -> Int32 {
        let folder = try options.dataFolder()
        let environment = ProcessInfo.processInfo.environment
        let interactive = scriptName == nil
        let style: Output.Style =
            options.json ? .json : (interactive && isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil ? .colour : .plain)
        let output = Output(style: style, flushEachWrite: interactive)

        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path)
        var configuration = ChatEngine.Configuration()
        if let cost = environment["PARLEY_BCRYPT_COST"].flatMap(UInt8.init), (4...31).contains(cost) {
            configuration.bcryptCost = cost
        }
        let engine = ChatEngine(store: store, configuration: configuration)

        var settings = Shell.Settings(
            dataFolder: folder, output: output, interactive: interactive,
            environment: interactive ? nil : environment, modeDescription: "embedded (SQLite in the data folder)")
        settings.readSecret = { prompt in
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: Terminal.readLine(prompt: prompt, echo: false)) }
            }
        }
        let shell = Shell(service: engine.connect(), settings: settings)
        defer { try? store.close() }

        guard let scriptName else {
            return await interact(shell, output: output, folder: folder)
        }
        await shell.start(eventSink: nil)
        let status = await ScriptRunner(name: scriptName, keepGoing: options.keepGoing).run(LineReader(file: file), shell: shell, output: output)
        await shell.stop()
        return status
    }

    private func interact(_ shell: Shell, output: Output, folder: URL) async -> Int32 {
        let editorBox = EditorBox()
        await shell.start { event, me in
            if let text = output.render(event, me: me) { editorBox.editor?.show(text) }
        }
        let hooks = LineEditor.Hooks(
            execute: { line in
                do {
                    return try await shell.execute(line) == .proceed
                } catch {
                    output.error(error as? ParleyError ?? ParleyError(.internalError, "\(error)"), location: nil)
                    return true
                }
            },
            prompt: { await shell.prompt },
            completions: { word, atStart in shell.completions.candidates(for: word, atLineStart: atStart) })
        let editor = LineEditor(historyPath: folder.appendingPathComponent("history").path, hooks: hooks)
        editorBox.editor = editor
        output.note("Parley \(Parley.configuration.version) — /help for commands, Ctrl-D to quit")
        await editor.run()
        await shell.stop()
        return 0
    }
}

/// Lets the event sink reach the editor created after it.
final class EditorBox: @unchecked Sendable {
    var editor: LineEditor?
}
