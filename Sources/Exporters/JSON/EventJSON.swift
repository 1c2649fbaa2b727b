import Pipeline

/// The pieces of calpipe's own JSON form of events, occurrences and day entries (docs/json-format.md) that more
/// than one writer needs. The form itself is written by `JSONBytes` (JSONBytes+Events.swift, JSONBytes+AgendaDay.swift);
/// the tests keep a `JSONValue` reference of it (Tests/PipelineTests/EventJSON+Reference.swift). The `json` source
/// reads the event form back unchanged, so json -> json round trips are lossless.
package enum EventJSON {
    /// The metadata key a source sets to the calendar's name (X-WR-CALNAME); the source's name stands in
    /// for it otherwise.
    package static let calendarKey = "calendar"

    /// Dates as "2026-11-23", UTC as "...Z", zoned and floating times as local "2026-11-23T09:00:00"
    /// (the zone goes in "timezone").
    static func text(of t: EventTime) -> String {
        switch t {
        case .date(let d): return d.iso8601
        case .utc(let s): return CivilDateTime(secondsSinceEpoch: s).iso8601 + "Z"
        case .zoned(let l, _), .floating(let l): return l.iso8601
        }
    }

    /// An RDATE value: its time, or a period as "start/end" or "start/duration" (RFC 5545 3.3.9, times as `text(of:)`).
    static func text(of d: RecurrenceDate) -> String {
        switch d {
        case .time(let t): return text(of: t)
        case .period(let s, let e): return text(of: s) + "/" + text(of: e)
        case .periodWithDuration(let s, let duration): return text(of: s) + "/" + duration.iCalendarText
        }
    }
}
