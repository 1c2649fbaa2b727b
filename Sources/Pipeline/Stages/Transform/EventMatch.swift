/// The `match` of a transform rule: every condition given must hold (none given: every event matches).
///
/// Text conditions test the event's fields (`TextTest`). The times are the event's start in the pipeline's zone:
/// `weekday` and `time_of_day` are the *occurrence* conditions, which a `remove` rule tests on each instance of a
/// series (`TransformStage`); every other condition, and every rule that changes an event, tests the event as read
/// (a series by its first instance, DTSTART).
struct EventMatch: Sendable {
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
    /// Inclusive bounds in seconds.
    var minDuration: Int64?
    var maxDuration: Int64?
    var allDay: Bool?

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
        if minDuration != nil || maxDuration != nil {
            let d = SeriesExpander.seconds(of: event.occurrenceDuration(in: zone))
            if let minDuration, d < minDuration { return false }
            if let maxDuration, d > maxDuration { return false }
        }
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
/// not after `from` the range runs over midnight (`"from": "22:00", "to": "06:00"`).
struct TimeOfDayRange: Sendable, Equatable {
    var from: Int
    var to: Int

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
}
