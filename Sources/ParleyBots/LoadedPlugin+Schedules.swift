import Foundation
import ParleyCore

/// A bot's schedules: kept in the state store with their next time, and a timer for the
/// earliest that hands the bot a `tick` when it comes.
extension LoadedPlugin {
    /// Reads the bot's schedules, before its hello may declare some.
    func loadSchedules() {
        guard let stored = try? runtime.state.schedules(bot: name) else { return }
        for row in stored {
            guard case .object(let fields)? = try? JSONValue.parse(row.spec), let rule = BotSchedule.Rule(fields: fields) else {
                runtime.log(name, "schedule \(row.name) could not be read and is left out")
                continue
            }
            schedules[row.name] = BotSchedule(name: row.name, rule: rule, data: fields["data"], next: row.next)
        }
    }

    /// Fires, once each, the schedules that came due while the bot was away (`late`);
    /// then waits for the next.
    func startSchedules() {
        fireDue(late: true)
    }

    /// Hands the bot a tick for each schedule whose time has come, in time order, and
    /// moves each to its next time (or drops one that fires once). Beats missed while the
    /// bot was away come once; on a clock that replays (the harness's), every beat up to
    /// now comes, each in its turn, as it would have on a running host (at most
    /// `maxReplayed` of them, then the rest once).
    func fireDue(late: Bool) {
        guard !stopping else { return }
        let now = runtime.clock.now()
        var replaying = !late && runtime.clock.replaysEveryBeat
        var fired = 0
        while let schedule = schedules.values.filter({ $0.next <= now }).min(by: { ($0.next, $0.name) < ($1.next, $1.name) }) {
            fired += 1
            if fired > Self.maxReplayed { replaying = false }
            queue.push(.tick(BotTick(name: schedule.name, due: schedule.next, late: late, data: schedule.data)))
            let following = schedule.following(due: schedule.next, now: replaying ? schedule.next : now)
            if let following {
                schedules[schedule.name]?.next = following
            } else {
                schedules[schedule.name] = nil
            }
            do { try runtime.state.reschedule(bot: name, name: schedule.name, next: following) } catch {
                runtime.log(name, "schedule \(schedule.name) could not be saved: \(error)")
            }
        }
        rearm()
    }

    /// Ticks one jump of a replaying clock may hand over before missed beats come once.
    static let maxReplayed = 1000

    /// Sets the timer for the earliest schedule.
    func rearm() {
        timer?.cancel()
        timer = nil
        guard !stopping, let next = schedules.values.map(\.next).min() else { return }
        let clock = runtime.clock
        timer = Task { [weak self] in
            do { try await clock.sleep(until: next) } catch { return }
            await self?.fireDue(late: false)
        }
    }

    func schedule(_ fields: [String: JSONValue]) throws -> ActionOutcome {
        let schedule = try BotSchedule.parse(fields, now: runtime.clock.now())
        // The same rule and data again (a bot declaring its schedules as it starts) keeps
        // the one there, with its next time.
        if let existing = schedules[schedule.name], existing.rule == schedule.rule, existing.data == schedule.data {
            return ActionOutcome(data: ["schedule": existing.json, "kept": .bool(true)])
        }
        guard schedules[schedule.name] != nil || schedules.count < BotSchedule.maxPerBot else {
            throw ParleyError(.invalidArgument, "a bot keeps at most \(BotSchedule.maxPerBot) schedules (unschedule one first)")
        }
        var stored = schedule.rule.fields
        if let data = schedule.data { stored["data"] = data }
        try runtime.state.setSchedule(bot: name, name: schedule.name, spec: JSONValue.object(stored).jsonData, next: schedule.next)
        schedules[schedule.name] = schedule
        rearm()
        return ActionOutcome(data: ["schedule": schedule.json])
    }

    func unschedule(_ scheduleName: String) throws -> ActionOutcome {
        guard schedules[scheduleName] != nil else {
            throw ParleyError(.unknownSchedule, "no schedule named \(scheduleName) (schedules lists them)")
        }
        try runtime.state.reschedule(bot: name, name: scheduleName, next: nil)
        schedules[scheduleName] = nil
        rearm()
        return ActionOutcome(data: ["name": .string(scheduleName)])
    }

    func listSchedules() -> ActionOutcome {
        let sorted = schedules.values.sorted { ($0.next, $0.name) < ($1.next, $1.name) }
        return ActionOutcome(data: ["schedules": .array(sorted.map(\.json))])
    }
}
