// libFuzzer target: a line a plugin writes on its stdout through the host's parser, and
// a schedule it asks for through the schedule rules (a cron expression's next time too).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlugin(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    if case .success(.schedule(let fields, _)) = PluginAction.parse(line), let schedule = try? BotSchedule.parse(fields, now: now) {
        _ = schedule.following(due: schedule.next, now: now.addingTimeInterval(86400 * 400))
    }
    if let expression = try? CronExpression(line) {
        _ = expression.next(after: now, in: TimeZone(identifier: "Europe/Paris") ?? .current, horizonDays: 40)
    }
    return 0
}
