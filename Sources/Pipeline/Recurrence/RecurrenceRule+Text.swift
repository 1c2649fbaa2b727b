/// The text form of a rule, written back: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE" in a stable order (FREQ first).
/// Written as UTF-8 bytes (`appendText(to:)`), which the JSON sink quotes straight into its document: building
/// the String part by part (a String per number and part, then a join) was a tenth of that sink's time on the
/// benchmark feed (docs/benchmarks.md, "The written path").
extension RecurrenceRule {
    /// The RRULE value text in a stable order (FREQ first).
    public var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text`'s UTF-8 bytes to `out`.
    package func appendText(to out: inout [UInt8]) {
        var writer = RuleTextWriter(out: out)
        out = []
        writer.write(self)
        out = writer.out
    }
}

/// Writes a rule's parts, ';' between them.
private struct RuleTextWriter {
    var out: [UInt8]
    private var parts = 0

    init(out: [UInt8]) { self.out = out }

    mutating func write(_ rule: RecurrenceRule) {
        if let rscale = rule.rscale { part("RSCALE", rscale) }
        part("FREQ", rule.frequency.rawValue)
        switch rule.end {
        case .never: break
        case .count(let n):
            begin("COUNT")
            number(n)
            if let until = rule.untilWithCount { begin("UNTIL"); time(until) }
        case .until(let t):
            begin("UNTIL")
            time(t)
        }
        if rule.interval != 1 { begin("INTERVAL"); number(rule.interval) }
        list("BYSECOND", rule.bySecond)
        list("BYMINUTE", rule.byMinute)
        list("BYHOUR", rule.byHour)
        if !rule.byDay.isEmpty {
            begin("BYDAY")
            for (i, day) in rule.byDay.enumerated() {
                if i > 0 { out.append(0x2C) }
                if let ordinal = day.ordinal { number(ordinal) }
                text(RecurrenceRule.weekdayCodes[day.weekday - 1])
            }
        }
        list("BYMONTHDAY", rule.byMonthDay)
        list("BYYEARDAY", rule.byYearDay)
        list("BYWEEKNO", rule.byWeekNo)
        if rule.leapMonths.isEmpty {
            list("BYMONTH", rule.byMonth)
        } else {
            begin("BYMONTH")
            for (i, m) in rule.byMonth.enumerated() {
                if i > 0 { out.append(0x2C) }
                number(m)
            }
            for (i, m) in rule.leapMonths.enumerated() {
                if i > 0 || !rule.byMonth.isEmpty { out.append(0x2C) }
                number(m)
                out.append(0x4C)  // L
            }
        }
        list("BYSETPOS", rule.bySetPos)
        if rule.weekStart != 1 { part("WKST", RecurrenceRule.weekdayCodes[rule.weekStart - 1]) }
        if rule.skip != .omit { part("SKIP", rule.skip.rawValue) }
        for (k, v) in rule.otherParts { part(k, v) }
    }

    /// ';' unless first, then "NAME=".
    private mutating func begin(_ name: String) {
        if parts > 0 { out.append(0x3B) }
        parts += 1
        text(name)
        out.append(0x3D)
    }

    private mutating func part(_ name: String, _ value: String) {
        begin(name)
        text(value)
    }

    private mutating func list(_ name: String, _ values: [Int]) {
        guard !values.isEmpty else { return }
        begin(name)
        for i in values.indices {
            if i > 0 { out.append(0x2C) }
            number(values[i])
        }
    }

    private mutating func text(_ s: String) {
        out.append(contentsOf: s.utf8)
    }

    /// `String(n)`'s digits.
    private mutating func number(_ n: Int) {
        padded(n, width: 1)
    }

    /// `pad(n, width)`: a '-' for a negative value, then at least `width` digits.
    private mutating func padded(_ n: Int, width: Int) {
        if n < 0 { out.append(0x2D) }
        var magnitude = n.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for _ in count..<max(count, width) { out.append(0x30) }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    /// `BasicDateText.format`: "20260329", "20260329T010000Z" (UTC) or "20260329T020000" (a local wall clock).
    private mutating func time(_ t: EventTime) {
        switch t {
        case .date(let d): date(d)
        case .utc(let s):
            dateTime(CivilDateTime(secondsSinceEpoch: s))
            out.append(0x5A)  // Z
        case .zoned(let local, _), .floating(let local): dateTime(local)
        }
    }

    private mutating func date(_ d: CivilDate) {
        let (y, m, day) = d.components
        padded(y, width: 4)
        padded(m, width: 2)
        padded(day, width: 2)
    }

    private mutating func dateTime(_ t: CivilDateTime) {
        date(t.date)
        out.append(0x54)  // T
        padded(t.hour, width: 2)
        padded(t.minute, width: 2)
        padded(t.second, width: 2)
    }
}
