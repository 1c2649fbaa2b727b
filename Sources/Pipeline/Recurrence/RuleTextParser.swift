/// Reads the text form of a rule for `RecurrenceRule.parse`: every part checked against
/// `RecurrenceRule.Limits`, repairable problems either noted (lenient) or thrown (strict).
struct RuleTextParser {
    typealias Limits = RecurrenceRule.Limits

    let strict: Bool
    private(set) var repairs: [String] = []

    init(strict: Bool) {
        self.strict = strict
    }

    /// A problem the rule survives: thrown as `problem` when strict, else noted as "problem; action".
    private mutating func repair(_ problem: String, _ action: String) throws(CalpipeError) {
        if strict { throw CalpipeError(problem) }
        repairs.append(problem + "; " + action)
    }

    mutating func parse(_ text: String, untilParser: (String) -> EventTime?) throws(CalpipeError) -> RecurrenceRule.Parsed {
        var frequency: RecurrenceRule.Frequency?
        var rule = RecurrenceRule(frequency: .daily)
        var seen: [String] = []  // a rule has a handful of parts: a list beats hashing
        var count: Int?
        var until: EventTime?
        var months: [(month: Int, leap: Bool, text: Substring)] = []
        var skip: RecurrenceRule.Skip?
        for part in RecurrenceRule.parts(of: text) {
            guard let eq = RecurrenceRule.equalsSign(in: part) else {
                try repair("RRULE part \"\(part)\" has no \"=\"", "the part is dropped")
                continue
            }
            let key = Self.upper(part[..<eq])
            let value = String(part[part.index(after: eq)...])
            guard !seen.contains(key) else {
                try repair("RRULE part \(key) appears twice", "kept the first")
                continue
            }
            seen.append(key)
            // A BY list with no value (`BYHOUR=`): libical reads it as 0, other readers refuse the rule; it says
            // nothing, so the part is ignored, never silently.
            if key.utf8.starts(with: [0x42, 0x59]), value.utf8.allSatisfy({ $0 == 0x2C }) {
                try repair("RRULE \(key) has no value", "the part is ignored")
                continue
            }
            switch key {
            case "FREQ":
                guard let f = RecurrenceRule.Frequency(rawValue: Self.upper(value[...])) else {
                    throw CalpipeError("RRULE FREQ \"\(value)\" is not a frequency")
                }
                frequency = f
            case "INTERVAL":
                guard let n = Self.saturatingInteger(value), Limits.interval.contains(n) else {
                    try repair("RRULE INTERVAL \"\(value)\" is not a positive integer", "read as 1")
                    continue
                }
                rule.interval = n
            case "COUNT":
                guard let n = Self.saturatingInteger(value), Limits.count.contains(n) else {
                    throw CalpipeError("RRULE COUNT \"\(value)\" must be a non-negative integer")
                }
                count = n
            case "UNTIL":
                guard let t = untilParser(value) ?? Self.extendedUntil(value) else {
                    throw CalpipeError("RRULE UNTIL \"\(value)\" is not a date or date-time")
                }
                until = t
            case "BYSECOND": rule.bySecond = try ints(key, value, Limits.bySecond)
            case "BYMINUTE": rule.byMinute = try ints(key, value, Limits.byMinute)
            case "BYHOUR": rule.byHour = try ints(key, value, Limits.byHour)
            case "BYMONTHDAY": rule.byMonthDay = try ints(key, value, Limits.byMonthDay)
            case "BYYEARDAY": rule.byYearDay = try ints(key, value, Limits.byYearDay)
            case "BYWEEKNO": rule.byWeekNo = try ints(key, value, Limits.byWeekNo)
            case "BYSETPOS": rule.bySetPos = try ints(key, value, Limits.bySetPos)
            case "BYMONTH":
                // Checked once RSCALE (which may come later) is known.
                for item in RecurrenceRule.parts(of: value, separator: 0x2C) {
                    let leap = item.last == "L" || item.last == "l"
                    let digits = leap ? item.dropLast() : item
                    months.append((Self.integer(digits) ?? 0, leap, item))
                }
            case "BYDAY": rule.byDay = try weekdays(value)
            case "WKST":
                guard let day = RecurrenceRule.weekdayCodes.firstIndex(of: value.uppercased()) else {
                    try repair("RRULE WKST \"\(value)\" is not a weekday", "read as MO")
                    continue
                }
                rule.weekStart = day + 1
            case "RSCALE":
                let name = value.uppercased()
                guard RScaleCalendar.isSupported(name) else {
                    throw CalpipeError("RRULE RSCALE \"\(value)\" is a calendar calpipe cannot expand (available: \(RScaleCalendar.supportedNames.joined(separator: ", ")))")
                }
                rule.rscale = name
            case "SKIP":
                guard let s = RecurrenceRule.Skip(rawValue: value.uppercased()) else {
                    try repair("RRULE SKIP \"\(value)\" is not OMIT, BACKWARD or FORWARD", "read as OMIT")
                    continue
                }
                skip = s
            default:
                // Kept for round trips; an x-name is legal (RFC 2445), anything else (a mangled `COUN<<T=4`) is a
                // repair, which strict rejects.
                if !key.hasPrefix("X-") { try repair("RRULE part \(key) is not a rule part", "ignored") }
                rule.otherParts.append((key, value))
            }
        }
        guard let frequency else { throw CalpipeError("RRULE has no FREQ") }
        rule.frequency = frequency

        switch (count, until) {
        case (let c?, let u?):
            try repair("RRULE has both COUNT and UNTIL", "kept both: the series ends at whichever comes first")
            rule.end = .count(c)
            rule.untilWithCount = u
        case (let c?, nil): rule.end = .count(c)
        case (nil, let u?): rule.end = .until(u)
        case (nil, nil): break
        }

        if !months.isEmpty {
            let range = rule.rscale == nil ? Limits.byMonth : Limits.byMonthRScale
            var bad: [Substring] = []
            for m in months {
                guard range.contains(m.month) else { bad.append(m.text); continue }
                if !m.leap {
                    rule.byMonth.append(m.month)
                } else if rule.rscale != nil {
                    rule.leapMonths.append(m.month)
                } else {
                    try repair("RRULE BYMONTH value \"\(m.text)\" is a leap month but the rule has no RSCALE", "the value is dropped")
                }
            }
            try dropped(bad, key: "BYMONTH", range: range, kept: rule.byMonth.count + rule.leapMonths.count)
            if rule.byMonth.isEmpty && rule.leapMonths.isEmpty && bad.isEmpty {
                throw CalpipeError("RRULE BYMONTH has only leap months and no RSCALE")
            }
        }
        if let skip {
            if rule.rscale == nil {
                try repair("RRULE SKIP needs RSCALE (RFC 7529)", "ignored")
            } else {
                rule.skip = skip
            }
        }
        if let reason = RScaleCalendar.unsupported(rule) { throw CalpipeError(reason) }
        return RecurrenceRule.Parsed(rule: rule, repairs: repairs)
    }

    /// A BY list of integers; values out of `range` are dropped (noted), a list with none left throws.
    private mutating func ints(_ key: String, _ value: String, _ range: Limits.Range) throws(CalpipeError) -> [Int] {
        var out: [Int] = []
        var bad: [Substring] = []
        for item in RecurrenceRule.parts(of: value, separator: 0x2C) {
            if let n = Self.integer(item), range.contains(n) { out.append(n) } else { bad.append(item) }
        }
        try dropped(bad, key: key, range: range, kept: out.count)
        return out
    }

    private mutating func dropped(_ bad: [Substring], key: String, range: Limits.Range, kept: Int) throws(CalpipeError) {
        guard let first = bad.first else { return }
        let problem = "RRULE \(key) value \"\(first)\" is out of range (\(range.text))"
        if kept == 0 { throw CalpipeError(problem) }
        let all = bad.count == 1 ? problem
            : "RRULE \(key) values " + bad.map { "\"\($0)\"" }.joined(separator: ", ") + " are out of range (\(range.text))"
        try repair(all, bad.count == 1 ? "the value is dropped" : "the values are dropped")
    }

    private mutating func weekdays(_ value: String) throws(CalpipeError) -> [RecurrenceRule.WeekdayNum] {
        var out: [RecurrenceRule.WeekdayNum] = []
        var firstProblem: String?
        var bad: [Substring] = []
        for item in RecurrenceRule.parts(of: value, separator: 0x2C) {
            guard let day = Self.weekdayIndex(ofSuffix: item) else {
                firstProblem = firstProblem ?? "RRULE BYDAY value \"\(item)\" is not a weekday"
                bad.append(item)
                continue
            }
            let prefix = item.dropLast(2)
            if prefix.isEmpty {
                out.append(.init(day + 1))
                continue
            }
            guard let n = Self.integer(prefix[...]), Limits.weekdayOrdinal.contains(n) else {
                firstProblem = firstProblem ?? "RRULE BYDAY value \"\(item)\" has a bad ordinal (\(Limits.weekdayOrdinal.text))"
                bad.append(item)
                continue
            }
            out.append(.init(day + 1, ordinal: n))
        }
        if let firstProblem {
            if out.isEmpty { throw CalpipeError(firstProblem) }
            try repair(bad.count == 1 ? firstProblem : "RRULE BYDAY values " + bad.map { "\"\($0)\"" }.joined(separator: ", ") + " are not weekdays", bad.count == 1 ? "the value is dropped" : "the values are dropped")
        }
        return out
    }

    /// The text upper-cased; the same text without a copy's case mapping when it has no lower-case ASCII letter
    /// (rule texts are upper case in practice).
    static func upper(_ text: Substring) -> String {
        if text.utf8.contains(where: { $0 >= 0x61 }) { return text.uppercased() }
        return String(text)
    }

    /// 0 (MO) to 6 (SU) when `item` ends with a weekday code, in any case ("-1su").
    static func weekdayIndex(ofSuffix item: Substring) -> Int? {
        let u = item.utf8
        guard u.count >= 2, u.last! < 0x80 else { return nil }
        let a = u[u.index(u.endIndex, offsetBy: -2)] & 0xDF, b = u.last! & 0xDF
        switch (a, b) {
        case (0x4D, 0x4F): return 0  // MO
        case (0x54, 0x55): return 1  // TU
        case (0x57, 0x45): return 2  // WE
        case (0x54, 0x48): return 3  // TH
        case (0x46, 0x52): return 4  // FR
        case (0x53, 0x41): return 5  // SA
        case (0x53, 0x55): return 6  // SU
        default: return nil
        }
    }

    /// An optionally signed decimal integer that fits in `Int` ("+2", "-1", "-9223372036854775808").
    static func integer(_ text: Substring) -> Int? {
        Int(text.hasPrefix("+") ? text.dropFirst() : text)
    }

    /// A non-negative decimal integer; more than `Int.max` is read as `Int.max` (INTERVAL and COUNT: a value
    /// that large means the same as `Int.max`). nil when not a number.
    static func saturatingInteger(_ text: String) -> Int? {
        var digits = Substring(text)
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        if let n = Int(digits) { return n }
        if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return Int.max }
        // jCal carries numbers as JSON numbers: a large one may arrive as "9.223372036854776e+18".
        guard let d = Double(digits), d.isFinite, d >= 0, d.rounded(.towardZero) == d else { return nil }
        return d >= 9.2e18 ? Int.max : Int(d)
    }

    /// UNTIL in the extended form some writers use ("2026-12-31", "2026-12-31T23:59:59Z").
    static func extendedUntil(_ text: String) -> EventTime? {
        guard text.contains("-") || text.contains(":") else { return nil }
        return BasicDateText.parse(String(text.filter { $0 != "-" && $0 != ":" }))
    }
}
