/// When something happens, in one of the four forms iCalendar knows.
public enum EventTime: Hashable, Sendable {
    /// A whole day (`VALUE=DATE`), all-day events.
    case date(CivilDate)
    /// A UTC instant (`...Z`), seconds since 1970.
    case utc(Int64)
    /// A wall-clock time in a named zone (`TZID=`).
    case zoned(CivilDateTime, Zone)
    /// A wall-clock time with no zone: the same local time wherever the reader is.
    case floating(CivilDateTime)

    public var isDate: Bool {
        if case .date = self { return true }
        return false
    }

    /// The instant, with floating times and dates read in `zone` (the pipeline's zone).
    public func utcSeconds(in zone: Zone) -> Int64 {
        switch self {
        case .date(let d): return zone.utc(fromLocal: CivilDateTime(date: d))
        case .utc(let s): return s
        case .zoned(let local, let z): return z.utc(fromLocal: local)
        case .floating(let local): return zone.utc(fromLocal: local)
        }
    }

    /// The wall-clock time in the event's own zone (UTC for UTC times).
    public var localTime: CivilDateTime {
        switch self {
        case .date(let d): return CivilDateTime(date: d)
        case .utc(let s): return CivilDateTime(secondsSinceEpoch: s)
        case .zoned(let local, _): return local
        case .floating(let local): return local
        }
    }

    /// The zone the time is written in, when it has one (UTC for UTC times).
    public var zone: Zone? {
        switch self {
        case .utc: return .utc
        case .zoned(_, let z): return z
        case .date, .floating: return nil
        }
    }

    /// The same form with another wall-clock value (UTC stays UTC, a zone keeps its zone).
    public func withLocalTime(_ local: CivilDateTime) -> EventTime {
        switch self {
        case .date: return .date(local.date)
        case .utc: return .utc(local.secondsSinceEpoch)
        case .zoned(_, let z): return .zoned(local, z)
        case .floating: return .floating(local)
        }
    }

    /// Adds a duration the way RFC 5545 3.3.6 says: weeks and days are nominal (wall clock, so a day across a
    /// DST change is 23 or 25 hours), hours, minutes and seconds are exact.
    public func adding(_ duration: CalDuration) -> EventTime {
        switch self {
        case .date(let d):
            // A date plus whole days stays a date; a date plus a time part becomes floating time.
            if duration.seconds == 0 { return .date(d.adding(days: duration.days)) }
            return .floating(CivilDateTime(date: d.adding(days: duration.days)).adding(seconds: duration.seconds))
        case .utc(let s):
            return .utc(s + Int64(duration.days) * 86_400 + duration.seconds)
        case .floating(let local):
            return .floating(local.adding(seconds: Int64(duration.days) * 86_400 + duration.seconds))
        case .zoned(let local, let z):
            let shifted = local.adding(seconds: Int64(duration.days) * 86_400)
            if duration.seconds == 0 { return .zoned(shifted, z) }
            let instant = z.utc(fromLocal: shifted) + duration.seconds
            let result = z.local(fromUTC: instant)
            // In the second pass of a repeated hour (fall back) a wall-clock time would name the first pass:
            // keep the exact instant as UTC instead.
            return z.utc(fromLocal: result) == instant ? .zoned(result, z) : .utc(instant)
        }
    }

    /// ISO-8601 text: "2026-03-29" for dates, "...Z" for UTC, local time with its offset for zoned times
    /// (a wall-clock time inside a DST gap is written as the instant it stands for: 02:30 becomes 03:30+02:00),
    /// and local time with no offset for floating times.
    public var iso8601: String {
        switch self {
        case .date(let d): return d.iso8601
        case .utc(let s): return CivilDateTime(secondsSinceEpoch: s).iso8601 + "Z"
        case .zoned(let local, let z):
            let instant = z.utc(fromLocal: local)
            return z.local(fromUTC: instant).iso8601 + Zone.offsetText(z.offset(atUTC: instant))
        case .floating(let local): return local.iso8601
        }
    }
}
