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

    public init(frequency: Frequency) {
        self.frequency = frequency
    }

    static let weekdayCodes = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        public var description: String {
            switch self { case .invalid(let reason): return reason }
        }
    }

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

    /// Parses "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE". `untilParser` reads the UNTIL value (a date, a UTC
    /// date-time or, leniently, a local date-time by default).
    public init(parsing text: String, untilParser: (String) -> EventTime? = RecurrenceRule.parseUntil) throws {
        var frequency: Frequency?
        var rule = RecurrenceRule(frequency: .daily)
        var seen = Set<String>()
        for part in Self.parts(of: text) {
            guard let eq = Self.equalsSign(in: part) else { throw ParseError.invalid("RRULE part \"\(part)\" has no \"=\"") }
            let key = part[..<eq].uppercased()
            let value = String(part[part.index(after: eq)...])
            guard seen.insert(key).inserted else { throw ParseError.invalid("RRULE part \(key) appears twice") }
            func ints(_ range: ClosedRange<Int>, allowNegative: Bool) throws -> [Int] {
                try Self.parts(of: value, separator: 0x2C).map { item in
                    guard let n = Int(item.hasPrefix("+") ? item.dropFirst() : item[...]),
                          allowNegative ? (range.contains(abs(n)) && n != 0) : range.contains(n)
                    else { throw ParseError.invalid("RRULE \(key) value \"\(item)\" is out of range") }
                    return n
                }
            }
            switch key {
            case "FREQ":
                guard let f = Frequency(rawValue: value.uppercased()) else { throw ParseError.invalid("RRULE FREQ \"\(value)\" is not a frequency") }
                frequency = f
            case "INTERVAL":
                guard let n = Int(value), n >= 1 else { throw ParseError.invalid("RRULE INTERVAL \"\(value)\" must be a positive integer") }
                rule.interval = n
            case "COUNT":
                guard case .never = rule.end else { throw ParseError.invalid("RRULE has both COUNT and UNTIL") }
                guard let n = Int(value), n >= 0 else { throw ParseError.invalid("RRULE COUNT \"\(value)\" must be a non-negative integer") }
                rule.end = .count(n)
            case "UNTIL":
                guard case .never = rule.end else { throw ParseError.invalid("RRULE has both COUNT and UNTIL") }
                guard let t = untilParser(value) else { throw ParseError.invalid("RRULE UNTIL \"\(value)\" is not a date or date-time") }
                rule.end = .until(t)
            case "BYSECOND": rule.bySecond = try ints(0...60, allowNegative: false)
            case "BYMINUTE": rule.byMinute = try ints(0...59, allowNegative: false)
            case "BYHOUR": rule.byHour = try ints(0...23, allowNegative: false)
            case "BYMONTHDAY": rule.byMonthDay = try ints(1...31, allowNegative: true)
            case "BYYEARDAY": rule.byYearDay = try ints(1...366, allowNegative: true)
            case "BYWEEKNO": rule.byWeekNo = try ints(1...53, allowNegative: true)
            case "BYMONTH": rule.byMonth = try ints(1...12, allowNegative: false)
            case "BYSETPOS": rule.bySetPos = try ints(1...366, allowNegative: true)
            case "BYDAY":
                rule.byDay = try Self.parts(of: value, separator: 0x2C).map { item in
                    let upper = item.uppercased()
                    guard upper.count >= 2, let day = Self.weekdayCodes.firstIndex(of: String(upper.suffix(2))) else {
                        throw ParseError.invalid("RRULE BYDAY value \"\(item)\" is not a weekday")
                    }
                    let prefix = upper.dropLast(2)
                    if prefix.isEmpty { return WeekdayNum(day + 1) }
                    guard let n = Int(prefix.hasPrefix("+") ? prefix.dropFirst() : prefix[...]), n != 0, abs(n) <= 53 else {
                        throw ParseError.invalid("RRULE BYDAY value \"\(item)\" has a bad ordinal")
                    }
                    return WeekdayNum(day + 1, ordinal: n)
                }
            case "WKST":
                guard let day = Self.weekdayCodes.firstIndex(of: value.uppercased()) else { throw ParseError.invalid("RRULE WKST \"\(value)\" is not a weekday") }
                rule.weekStart = day + 1
            default:
                rule.otherParts.append((key, value))
            }
        }
        guard let frequency else { throw ParseError.invalid("RRULE has no FREQ") }
        rule.frequency = frequency
        self = rule
    }

    /// Reads an UNTIL value: "20261231" (date), "20261231T235959Z" (UTC) or "20261231T235959" (floating).
    public static func parseUntil(_ text: String) -> EventTime? {
        BasicDateText.parse(text)
    }

    /// The RRULE value text in a stable order (FREQ first).
    public var text: String {
        var parts = ["FREQ=" + frequency.rawValue]
        switch end {
        case .never: break
        case .count(let n): parts.append("COUNT=\(n)")
        case .until(let t): parts.append("UNTIL=" + BasicDateText.format(t))
        }
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        func list(_ name: String, _ values: [Int]) {
            if !values.isEmpty { parts.append(name + "=" + values.map(String.init).joined(separator: ",")) }
        }
        list("BYSECOND", bySecond)
        list("BYMINUTE", byMinute)
        list("BYHOUR", byHour)
        if !byDay.isEmpty {
            parts.append("BYDAY=" + byDay.map { ($0.ordinal.map(String.init) ?? "") + Self.weekdayCodes[$0.weekday - 1] }.joined(separator: ","))
        }
        list("BYMONTHDAY", byMonthDay)
        list("BYYEARDAY", byYearDay)
        list("BYWEEKNO", byWeekNo)
        list("BYMONTH", byMonth)
        list("BYSETPOS", bySetPos)
        if weekStart != 1 { parts.append("WKST=" + Self.weekdayCodes[weekStart - 1]) }
        for (k, v) in otherParts { parts.append(k + "=" + v) }
        return parts.joined(separator: ";")
    }

    public static func == (lhs: RecurrenceRule, rhs: RecurrenceRule) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
