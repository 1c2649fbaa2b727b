/// Builds a `Zone` from an iCalendar VTIMEZONE (RFC 5545 3.6.5): its STANDARD and DAYLIGHT blocks, each with
/// DTSTART, TZOFFSETFROM, TZOFFSETTO and optional RRULE / RDATE, become a list of transitions.
///
/// The recurrence rules of time zones are a small subset of RRULE: `FREQ=YEARLY` with `BYMONTH` and either an
/// ordinal `BYDAY` ("-1SU", "2SU") or a weekday with a `BYMONTHDAY` list ("the Sunday on or after the 8th"),
/// or the same date each year; with `INTERVAL`, `UNTIL` or `COUNT`. That subset is expanded here, for rules
/// running from their DTSTART until 2200 (the range `Zone.system` covers). Other rules are an error.
public enum VTimeZone {
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// The last year onsets are generated for.
    static let lastYear = 2200

    public static func zone(from component: RawComponent) throws -> Zone {
        guard let tzid = component.properties.first(where: { $0.name == "TZID" })?.value else {
            throw Problem(message: "VTIMEZONE has no TZID")
        }
        var onsets: [(utc: Int64, from: Int32, to: Int32)] = []
        for block in component.components where block.name == "STANDARD" || block.name == "DAYLIGHT" {
            func value(_ name: String) throws -> String {
                guard let v = block.properties.first(where: { $0.name == name })?.value else {
                    throw Problem(message: "\(block.name) has no \(name)")
                }
                return v.trimmingCharacters(in: [" ", "\t"])
            }
            let startText = try value("DTSTART")
            guard let startTime = BasicDateText.parse(startText) else { throw Problem(message: "\(block.name) DTSTART \"\(startText)\" is not a date-time") }
            let start = startTime.localTime
            let fromText = try value("TZOFFSETFROM")
            let toText = try value("TZOFFSETTO")
            guard let from = offset(fromText) else { throw Problem(message: "\(block.name) TZOFFSETFROM \"\(fromText)\" is not a UTC offset") }
            guard let to = offset(toText) else { throw Problem(message: "\(block.name) TZOFFSETTO \"\(toText)\" is not a UTC offset") }
            // The onset's wall-clock time is read with the offset in force before it.
            func add(_ local: CivilDateTime) { onsets.append((local.secondsSinceEpoch - Int64(from), from, to)) }
            add(start)
            for rdate in block.properties where rdate.name == "RDATE" {
                for item in rdate.value.split(separator: ",") {
                    let text = item.split(separator: "/").first.map(String.init) ?? ""
                    guard let t = BasicDateText.parse(text) else { throw Problem(message: "\(block.name) RDATE \"\(item)\" is not a date-time") }
                    if case .utc(let s) = t { onsets.append((s, from, to)) } else { add(t.localTime) }
                }
            }
            for rruleProperty in block.properties where rruleProperty.name == "RRULE" {
                let rule: RecurrenceRule
                do { rule = try RecurrenceRule(parsing: rruleProperty.value) } catch {
                    throw Problem(message: "\(block.name) RRULE: \(error)")
                }
                for local in try yearlyOnsets(rule, start: start, offsetBefore: from) { add(local) }
            }
        }
        guard !onsets.isEmpty else { throw Problem(message: "VTIMEZONE \"\(tzid)\" has no STANDARD or DAYLIGHT block") }
        onsets.sort { $0.utc < $1.utc }
        var transitions: [Int64] = []
        var offsets: [Int32] = [onsets[0].from]
        for onset in onsets {
            if onset.to != offsets[offsets.count - 1] {
                if let last = transitions.last, last == onset.utc {
                    offsets[offsets.count - 1] = onset.to
                    continue
                }
                transitions.append(onset.utc)
                offsets.append(onset.to)
            }
        }
        return Zone(identifier: tzid, transitions: transitions, offsets: offsets)
    }

    /// "+0100", "-0330", "+013045" -> seconds.
    static func offset(_ text: String) -> Int32? {
        let b = Array(text.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
        var digits: [Int32] = []
        for c in b.dropFirst() {
            guard c >= 48, c <= 57 else { return nil }
            digits.append(Int32(c - 48))
        }
        let h = digits[0] * 10 + digits[1], m = digits[2] * 10 + digits[3]
        let s = digits.count == 6 ? digits[4] * 10 + digits[5] : 0
        guard m < 60, s < 60 else { return nil }
        let total = h * 3600 + m * 60 + s
        return b[0] == UInt8(ascii: "-") ? -total : total
    }

    /// The wall-clock onsets of a yearly time-zone rule after `start` (which is the first onset itself).
    static func yearlyOnsets(_ rule: RecurrenceRule, start: CivilDateTime, offsetBefore: Int32) throws -> [CivilDateTime] {
        guard rule.frequency == .yearly else { throw Problem(message: "RRULE FREQ=\(rule.frequency.rawValue) is not supported in a VTIMEZONE (expected YEARLY)") }
        guard rule.bySecond.isEmpty, rule.byMinute.isEmpty, rule.byHour.isEmpty, rule.byYearDay.isEmpty, rule.byWeekNo.isEmpty,
              rule.bySetPos.isEmpty, rule.byMonth.count <= 1 else {
            throw Problem(message: "RRULE \"\(rule.text)\" is not supported in a VTIMEZONE")
        }
        let startDate = start.date
        let month = rule.byMonth.first ?? startDate.month
        let time = start.secondOfDay
        var out: [CivilDateTime] = []
        var produced = 1  // DTSTART counts as the first instance
        var year = startDate.year
        while year <= lastYear {
            defer { year += rule.interval }
            guard let date = try day(in: year, month: month, rule: rule, fallbackDay: startDate.day) else { continue }
            let local = CivilDateTime(date: date).adding(seconds: Int64(time))
            if local <= start { continue }
            switch rule.end {
            case .never: break
            case .count(let n): if produced >= n { return out }
            case .until(let until):
                switch until {
                case .utc(let s): if local.secondsSinceEpoch - Int64(offsetBefore) > s { return out }
                default: if local > until.localTime { return out }
                }
            }
            out.append(local)
            produced += 1
        }
        return out
    }

    private static func day(in year: Int, month: Int, rule: RecurrenceRule, fallbackDay: Int) throws -> CivilDate? {
        let length = CivilDate.daysInMonth(year: year, month: month)
        if rule.byDay.isEmpty {
            let days = rule.byMonthDay.isEmpty ? [fallbackDay] : rule.byMonthDay
            guard days.count == 1, let d = days.first else { throw Problem(message: "RRULE \"\(rule.text)\" is not supported in a VTIMEZONE") }
            let dayNumber = d > 0 ? d : length + d + 1
            return CivilDate.validated(year: year, month: month, day: dayNumber)
        }
        guard rule.byDay.count == 1, let wd = rule.byDay.first else { throw Problem(message: "RRULE \"\(rule.text)\" is not supported in a VTIMEZONE") }
        var candidates: [CivilDate] = []
        for d in 1...length {
            let date = CivilDate(year: year, month: month, day: d)
            if date.isoWeekday == wd.weekday { candidates.append(date) }
        }
        if !rule.byMonthDay.isEmpty {
            let allowed = Set(rule.byMonthDay.map { $0 > 0 ? $0 : length + $0 + 1 })
            candidates = candidates.filter { allowed.contains($0.day) }
        }
        if let n = wd.ordinal {
            let index = n > 0 ? n - 1 : candidates.count + n
            return candidates.indices.contains(index) ? candidates[index] : nil
        }
        guard candidates.count == 1 || rule.byMonthDay.isEmpty == false else {
            throw Problem(message: "RRULE \"\(rule.text)\" is not supported in a VTIMEZONE")
        }
        return candidates.first
    }
}
