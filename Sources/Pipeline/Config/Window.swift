import Foundation

/// The dates a pipeline works on: [from, to), days in the pipeline's zone (`to` is exclusive).
public struct Window: Hashable, Sendable {
    public var from: CivilDate
    public var to: CivilDate

    public init(from: CivilDate, to: CivilDate) {
        self.from = from
        self.to = to
    }

    /// The window as UTC instants [start, end) for a zone.
    public func utcRange(in zone: Zone) -> (start: Int64, end: Int64) {
        (zone.utc(fromLocal: CivilDateTime(date: from)), zone.utc(fromLocal: CivilDateTime(date: to)))
    }

    /// RFC 5545-style overlap test used everywhere: a span [start, end) is in when start < to and end > from;
    /// a zero-length span is in when from <= start < to.
    public func contains(start: Int64, end: Int64, in zone: Zone) -> Bool {
        let (ws, we) = utcRange(in: zone)
        if end <= start { return start >= ws && start < we }
        return start < we && end > ws
    }

    /// Reads "2026-11-01", "today", "today+14d", "today-2w" relative to `today`.
    public static func parseBound(_ text: String, today: CivilDate) -> CivilDate? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "today" { return today }
        if t.hasPrefix("today") {
            var rest = t.dropFirst(5)
            guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
            rest = rest.dropFirst()
            guard let unit = rest.last, unit == "d" || unit == "w", let n = Int(rest.dropLast()), n >= 0, n <= 100_000 else { return nil }
            let days = n * (unit == "w" ? 7 : 1) * (sign == "-" ? -1 : 1)
            return today.adding(days: days)
        }
        return ISODate.parseDate(t)
    }
}
