/// An RRULE (RFC 5545 3.3.10) as data. `RecurrenceRule(parsing:)` reads the text form, `text` writes it back,
/// and `expand(start:from:to:zone:includeStart:limit:)` / `forEachOccurrence` (RecurrenceRule+Expansion.swift)
/// produce its instances. `SeriesExpander` combines rules with RDATE, EXDATE, EXRULE and overrides.
public struct RecurrenceRule: Hashable, Sendable {
    public enum Frequency: String, Sendable, CaseIterable {
        case secondly = "SECONDLY", minutely = "MINUTELY", hourly = "HOURLY", daily = "DAILY"
        case weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY"
    }

    /// A BYDAY entry: an ISO weekday (1 = Monday ... 7 = Sunday) with an optional ordinal (-1 = last).
    public struct WeekdayNum: Hashable, Sendable {
        public var ordinal: Int?
        public var weekday: Int

        public init(_ weekday: Int, ordinal: Int? = nil) {
            self.weekday = weekday
            self.ordinal = ordinal
        }
    }

    /// How the rule ends.
    public enum End: Hashable, Sendable {
        case never
        case count(Int)
        /// Inclusive; a date, a UTC date-time or (leniently) a local date-time.
        case until(EventTime)
    }

    public var frequency: Frequency
    public var interval: Int = 1
    public var end: End = .never
    public var bySecond: [Int] = []
    public var byMinute: [Int] = []
    public var byHour: [Int] = []
    public var byDay: [WeekdayNum] = []
    public var byMonthDay: [Int] = []
    public var byYearDay: [Int] = []
    public var byWeekNo: [Int] = []
    public var byMonth: [Int] = []
    public var bySetPos: [Int] = []
    /// ISO weekday the week starts on (default Monday).
    public var weekStart: Int = 1
    /// Parts this parser does not know (x-names), kept in order for round trips.
    public var otherParts: [(String, String)] = []
    /// UNTIL written together with COUNT (RFC 5545 forbids both; libical and ical.js read both and the series
    /// ends at whichever comes first, and so does calpipe). Only read when `end` is `.count`.
    public var untilWithCount: EventTime? = nil
    /// RFC 7529 RSCALE: the calendar the rule's periods and BYMONTH/BYMONTHDAY/BYYEARDAY are counted in, upper
    /// case ("HEBREW", "CHINESE", "ISLAMIC-CIVIL"); nil for a plain (Gregorian) rule.
    public var rscale: String? = nil
    /// RFC 7529 SKIP: what an instance that falls on a day or month the year does not have becomes.
    public var skip: Skip = .omit
    /// RFC 7529 leap months of BYMONTH ("5L" is 5 here), apart from the plain months in `byMonth`.
    public var leapMonths: [Int] = []

    /// RFC 7529 SKIP values.
    public enum Skip: String, Sendable, CaseIterable {
        case omit = "OMIT", backward = "BACKWARD", forward = "FORWARD"
    }

    /// A rule read leniently, with what was repaired in it (empty for a clean rule).
    public struct Parsed: Sendable {
        public var rule: RecurrenceRule
        /// One sentence per repair, e.g. `RRULE BYMONTH value "13" is out of range (1 to 12); dropped`.
        public var repairs: [String]

        public init(rule: RecurrenceRule, repairs: [String] = []) {
            self.rule = rule
            self.repairs = repairs
        }
    }

    public init(frequency: Frequency) {
        self.frequency = frequency
    }

    static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    /// The ';'-separated parts of a rule (or ','-separated items of a value), empty ones left out. Rules are ASCII in practice: those are cut on
    /// bytes (a ';' is then always a character of its own); anything else by characters, as before.
    static func parts(of text: String, separator: UInt8 = 0x3B) -> [Substring] {
        let u = text.utf8
        guard !u.contains(where: { $0 >= 0x80 }) else {
            return text.split(separator: Character(Unicode.Scalar(separator)), omittingEmptySubsequences: true)
        }
        var parts: [Substring] = []
        var start = u.startIndex
        var i = start
        while i < u.endIndex {
            if u[i] == separator {
                if start < i { parts.append(Substring(u[start..<i])) }
                start = u.index(after: i)
            }
            i = u.index(after: i)
        }
        if start < u.endIndex { parts.append(Substring(u[start...])) }
        return parts
    }

    /// The first '=' of a part (found on bytes when the part is ASCII).
    static func equalsSign(in part: Substring) -> Substring.Index? {
        let u = part.utf8
        if !u.contains(where: { $0 >= 0x80 }) { return u.firstIndex(of: 0x3D) }
        return part.firstIndex(of: "=")
    }

    /// Parses "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE" strictly: anything `parse(_:strict:untilParser:)` would
    /// repair is an error (as `--strict` wants). `untilParser` reads the UNTIL value (a date, a UTC
    /// date-time or, leniently, a local date-time by default).
    public init(parsing text: String, untilParser: (String) -> EventTime? = RecurrenceRule.parseUntil) throws {
        self = try Self.parse(text, strict: true, untilParser: untilParser).rule
    }

    /// Parses the text form and checks every part against `RecurrenceRule.Limits` (the one place that knows
    /// the RFC ranges; every reader's rule text, from iCalendar, xCal, jCal and JSON, comes through here).
    /// Leniently (`strict: false`) a rule that still means something is repaired, and `repairs` says how, one
    /// sentence each, for the reader's warning: a value out of range is dropped, a repeated part keeps its
    /// first value, COUNT with UNTIL keeps both, an unknown part is dropped. What leaves no meaningful rule
    /// (no FREQ, an unreadable COUNT or UNTIL, a BY part with no valid value, an RSCALE calendar that is not
    /// available) throws. With `strict: true` every repair throws instead.
    public static func parse(_ text: String, strict: Bool = false,
                             untilParser: (String) -> EventTime? = RecurrenceRule.parseUntil) throws(CalpipeError) -> Parsed {
        var parser = RuleTextParser(strict: strict)
        return try parser.parse(text, untilParser: untilParser)
    }

    /// Reads an UNTIL value: "20261231" (date), "20261231T235959Z" (UTC) or "20261231T235959" (floating).
    public static func parseUntil(_ text: String) -> EventTime? {
        BasicDateText.parse(text)
    }

    public static func == (lhs: RecurrenceRule, rhs: RecurrenceRule) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
