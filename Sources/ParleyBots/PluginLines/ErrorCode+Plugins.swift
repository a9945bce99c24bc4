public import ParleyCore

extension ErrorCode {
    /// A plugin wrote a line that is neither a JSON action nor a slash command.
    public static let badLine = ErrorCode("bad_line")
    /// A plugin was slower than its events; the oldest were dropped.
    public static let eventsDropped = ErrorCode("events_dropped")
    public static let pluginFailed = ErrorCode("plugin_failed")
    /// Parts of a plugin's hello the host could not use; the rest applies.
    public static let badHello = ErrorCode("bad_hello")
    /// The loop guard stopped handing a plugin messages from other plugins in a chat.
    public static let botLoop = ErrorCode("bot_loop")
    /// `unschedule` named no schedule of the bot's.
    public static let unknownSchedule = ErrorCode("unknown_schedule")
    public static let unknownPlugin = ErrorCode("unknown_plugin")
}
