public import ParleyCore

/// The shell's own error codes, besides the engine's (docs/shell.md, "Error codes").
extension ErrorCode {
    public static let usage = ErrorCode("usage")
    public static let unknownCommand = ErrorCode("unknown_command")
    public static let unknownVariable = ErrorCode("unknown_variable")
    public static let noCurrentChat = ErrorCode("no_current_chat")
    public static let timeout = ErrorCode("timeout")
    public static let fileError = ErrorCode("file_error")
}
