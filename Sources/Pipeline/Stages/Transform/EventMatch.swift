/// The `match` of a transform rule: every condition given must hold (none given: every event matches).
///
/// Text conditions test the event's fields (`TextTest`). The times are the event's start in the pipeline's zone:
/// `weekday` and `time_of_day` are the *occurrence* conditions, which a `remove` rule tests on each instance of a
/// series (`TransformStage`); every other condition, and every rule that changes an event, tests the event as read
/// (a series by its first instance, DTSTART).
struct EventMatch: OptionConfig {
    var title: TextTest?
    var location: TextTest?
    var description: TextTest?
    var categories: TextTest?
    var status: TextTest?
    var transparency: TextTest?
    var source: TextTest?
    var calendar: TextTest?
    var organizer: TextTest?
    var attendee: TextTest?
    /// ISO weekdays, 1 = Monday ... 7 = Sunday.
    var weekdays: Set<Int>?
    var timeOfDay: TimeOfDayRange?
    var duration: DurationBounds?
    var allDay: Bool?

    init() {}

    static let options = OptionSpec<EventMatch> {
        Key("title", \.title, .textTest, "the title passes: a text (equal, ignoring case) or tests (empty, equals, contains, prefix, suffix, regex, ignore_case, not)")
        Key("location", \.location, .textTest, "the location passes")
        Key("description", \.description, .textTest, "the description passes")
        Key("categories", \.categories, .textTest, "one of the categories passes")
        Key("status", \.status, .textTest, "STATUS passes (cancelled, tentative, confirmed)")
        Key("transparency", \.transparency, .textTest, "TRANSP passes (opaque, the default, or transparent)")
        Key("source", \.source, .textTest, "the source's name passes")
        Key("calendar", \.calendar, .textTest, "the calendar's name passes")
        Key("organizer", \.organizer, .textTest, "the organizer's e-mail address passes")
        Key("attendee", \.attendee, .textTest, "one attendee's e-mail address passes")
        Key("weekday", \.weekdays, .weekdays, "it starts on one of these days (mon ... sun)")
        Group("time_of_day", \.timeOfDay, "it starts at or after from and before to (HH:MM)")
        Group("duration", \.duration, "it lasts at least min and at most max")
        Key("all_day", \.allDay, .boolean, "true: an all-day event; false: a timed one")
    }

    /// Whether the match has conditions on when an instance happens (`weekday`, `time_of_day`).
    var testsOccurrences: Bool { weekdays != nil || timeOfDay != nil }

    /// The conditions that do not depend on the instance hold for `event`.
    func holdsForEvent(_ event: Event, zone: Zone) -> Bool {
        if let title, !title.holds(event.title) { return false }
        if let location, !location.holds(event.location) { return false }
        if let description, !description.holds(event.description) { return false }
        if let categories, !categories.holds(event.categories) { return false }
        if let status, !status.holds(event.status) { return false }
        if let transparency, !transparency.holds(event.transparency) { return false }
        if let source, !source.holds(event.metadata["source"]) { return false }
        if let calendar, !calendar.holds(event.metadata["calendar"]) { return false }
        if let organizer, !organizer.holds(event.organizer?.email) { return false }
        if let attendee, !attendee.holds(event.attendees.compactMap(\.email)) { return false }
        if let allDay, event.isAllDay != allDay { return false }
        if let duration, !duration.contains(SeriesExpander.seconds(of: event.occurrenceDuration(in: zone))) { return false }
        return true
    }

    /// The occurrence conditions hold for an instance starting at `start` (in the pipeline's zone). An all-day
    /// instance has a weekday but no time of day: a `time_of_day` condition never holds for it.
    func holdsForInstance(start: EventTime, zone: Zone) -> Bool {
        guard testsOccurrences else { return true }
        let local: CivilDateTime
        if case .date(let d) = start {
            if timeOfDay != nil { return false }
            local = CivilDateTime(date: d)
        } else {
            local = zone.local(fromUTC: start.utcSeconds(in: zone))
        }
        if let weekdays, !weekdays.contains(local.date.isoWeekday) { return false }
        if let timeOfDay, !timeOfDay.contains(secondOfDay: local.secondOfDay) { return false }
        return true
    }

    /// Every condition holds for the event as read (a series: its first instance).
    func holds(_ event: Event, zone: Zone) -> Bool {
        holdsForEvent(event, zone: zone) && holdsForInstance(start: event.start, zone: zone)
    }
}

/// `"time_of_day": {"from": "09:00", "to": "17:00"}`: a start at or after `from` and before `to`; when `to` is
/// not after `from` the range runs over midnight (`"from": "22:00", "to": "06:00"`). Seconds since midnight.
struct TimeOfDayRange: OptionConfig, Equatable {
    var from = 0
    var to = 86_400

    init() {}

    static let options = OptionSpec<TimeOfDayRange> {
        Key("from", \.from, .clockTime, "the earliest start (HH:MM, 24-hour)")
        Key("to", \.to, .clockTime, "the first start no longer in the range (HH:MM; \"24:00\" is the end of the day)")
    }

    mutating func validate(_ context: OptionContext<TimeOfDayRange>) {
        if !context.isGiven(\.from) && !context.isGiven(\.to) { context.report("expected \"from\", \"to\" or both (\"HH:MM\")") }
    }

    func contains(secondOfDay s: Int) -> Bool {
        from < to ? (s >= from && s < to) : (s >= from || s < to)
    }

    /// "HH:MM" or "HH:MM:SS" (24 h; "24:00" is the end of the day) as seconds since midnight.
    static func seconds(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        let s = parts.count == 3 ? Int(parts[2]) : 0
        guard let s, (0...24).contains(h), (0..<60).contains(m), (0..<60).contains(s) else { return nil }
        let total = h * 3600 + m * 60 + s
        return total <= 86_400 ? total : nil
    }

    /// Seconds since midnight as "HH:MM".
    static func text(_ seconds: Int) -> String {
        let (h, m) = (seconds / 3600, seconds / 60 % 60)
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}

/// `"duration": {"min": "15m", "max": "2h"}`, both inclusive.
struct DurationBounds: OptionConfig {
    var min: Duration?
    var max: Duration?

    init() {}

    static let options = OptionSpec<DurationBounds> {
        Key("min", \.min, .duration, "the shortest (\"15m\", \"2h\", \"1d\")")
        Key("max", \.max, .duration, "the longest")
    }

    mutating func validate(_ context: OptionContext<DurationBounds>) {
        if min == nil && max == nil && !context.hasProblems { context.report("expected \"min\", \"max\" or both (\"30m\", \"2h\", \"1d\")") }
    }

    func contains(_ seconds: Int64) -> Bool {
        if let min, Double(seconds) < min.inSeconds { return false }
        if let max, Double(seconds) > max.inSeconds { return false }
        return true
    }
}

extension OptionType where Value == Int {
    /// A time of day, "HH:MM" (24-hour), as seconds since midnight.
    static var clockTime: OptionType<Int> {
        OptionType<String>.string.map({ text, input in
            guard let seconds = TimeOfDayRange.seconds(text) else {
                input.report("invalid time \"\(text)\" (expected HH:MM, 24-hour, such as \"09:30\" or \"24:00\")")
                return nil
            }
            return seconds
        }, encode: { TimeOfDayRange.text($0) })
    }
}

extension OptionType where Value == Set<Int> {
    /// Weekdays: a name or a list of names ("mon", "monday", any letter case), as ISO weekdays (1 = Monday).
    static var weekdays: OptionType<Set<Int>> {
        let short = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
        let full = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        var type = OptionType(kind: .array, decode: { json, input in
            let names: [(name: String, at: OptionInput)]
            switch json {
            case .string(let s): names = [(s, input)]
            case .array(let items):
                if items.isEmpty { input.report("expected at least one weekday (mon, tue, ...)"); return nil }
                names = items.enumerated().compactMap { i, item in
                    guard case .string(let s) = item else { input.appending("[\(i)]").wrongType("a weekday (mon ... sun)", item); return nil }
                    return (s, input.appending("[\(i)]"))
                }
            default: input.wrongType("a weekday or a list of them (mon ... sun)", json); return nil
            }
            var days = Set<Int>()
            for (name, at) in names {
                let lower = name.lowercased()
                guard let d = short.firstIndex(of: lower) ?? full.firstIndex(of: lower) else {
                    at.report("unknown weekday \"\(name)\" (expected one of: \(short.joined(separator: ", ")), or the full English name)"
                              + Suggestion.hint(for: lower, in: short + full))
                    return nil
                }
                days.insert(d + 1)
            }
            return days
        }, encode: { days in .array(days.sorted().map { .string(short[$0 - 1]) }) })
        type.itemKind = .string
        return type
    }
}
