import ParleyCore

extension Shell {
    /// Runs a command from the table.
    func run(_ command: CommandSpec, _ input: inout CommandInput) async throws -> Outcome {
        try await command.perform(self, &input)
    }

    func noMoreArguments(_ input: CommandInput) throws {
        if !input.isEmpty { throw ParleyError(.usage, "unexpected arguments") }
    }
}
