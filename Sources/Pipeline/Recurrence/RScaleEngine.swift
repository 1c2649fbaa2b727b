/// Expands a rule with RFC 7529 RSCALE: periods (years, months) and BYMONTH, BYMONTHDAY and BYYEARDAY are
/// counted in the named calendar (`RScaleCalendar`), SKIP says what becomes of a day or a leap month the
/// period does not have, and the instances go through the same `Emission` (DTSTART, COUNT, UNTIL, window) as
/// the Gregorian engine's. It walks from DTSTART and asks Foundation for every month: slower than
/// `RuleEngine`'s arithmetic, which such rules (a few holidays a year) do not need.
///
/// SKIP (RFC 7529 3.1.2), as libical applies it: a leap month the year lacks becomes the month before it
/// (BACKWARD: 5L -> 5) or after it (FORWARD: 5L -> 6); then a day the month lacks becomes the nearest day
/// before it (BACKWARD: the 30th of a 29-day month -> the 29th; "-31" of a 30-day month -> the last day of
/// the month before) or after it (FORWARD: -> the 1st of the next month; "-31" -> the 1st). BYYEARDAY alike.
final class RScaleEngine {
    let calendar: RScaleCalendar
    let frequency: RecurrenceRule.Frequency
    let interval: Int
    let skip: RecurrenceRule.Skip
    let monthLabels: [RScaleCalendar.MonthLabel]
    let byMonthDay: [Int]
    let byYearDay: [Int]
    let weekdays: Set<Int>
    let ordinals: [(weekday: Int, ordinal: Int)]
    let hasByDay: Bool
    let setPositions: [Int]
    let weekStart: Int
    let times: [Int64]
    let startDay: Int
    /// DTSTART's month and day in the calendar: the defaults the rule does not name.
    let startMonth: RScaleCalendar.MonthLabel
    let startMonthDay: Int

    init?(rule: RecurrenceRule, startDay: Int, interval: Int, times: [Int64]) {
        guard let name = rule.rscale, let calendar = RScaleCalendar(name: name) else { return nil }
        self.calendar = calendar
        frequency = rule.frequency
        self.interval = interval
        skip = rule.skip
        monthLabels = rule.byMonth.map { .init(number: $0, leap: false) } + rule.leapMonths.map { .init(number: $0, leap: true) }
        byMonthDay = rule.byMonthDay
        byYearDay = rule.byYearDay
        var plain = Set<Int>()
        var ords: [(Int, Int)] = []
        for d in rule.byDay {
            if let n = d.ordinal, rule.frequency == .monthly || rule.frequency == .yearly { ords.append((d.weekday, n)) } else { plain.insert(d.weekday) }
        }
        if rule.frequency == .weekly && rule.byDay.isEmpty { plain.insert(CivilDate(daysSinceEpoch: startDay).isoWeekday) }
        weekdays = plain
        ordinals = ords
        hasByDay = !plain.isEmpty || !ords.isEmpty
        setPositions = rule.bySetPos
        weekStart = rule.weekStart
        self.times = times
        self.startDay = startDay
        let m = calendar.month(holding: startDay)
        startMonth = m.label
        startMonthDay = startDay - m.firstDay + 1
    }

    func run(_ emission: inout Emission, _ body: (Int64) -> Void) {
        let toDay = Int(floorDiv(emission.to - 1, 86_400))
        var last = Int64.min
        var work = 0
        func offer(_ days: [Int]) -> Bool {
            var candidates: [Int64] = []
            for d in Set(days).sorted() {
                for t in times { candidates.append(Int64(d) * 86_400 + t) }
            }
            if !setPositions.isEmpty {
                let total = candidates.count
                candidates = setPositions.compactMap { pos -> Int64? in
                    let i = pos > 0 ? pos - 1 : total + pos
                    return i >= 0 && i < total ? candidates[i] : nil
                }.sorted()
            }
            for c in candidates where c > last {
                last = c
                if !emission.offer(c, body) { return false }
            }
            return true
        }
        switch frequency {
        case .yearly:
            var first = calendar.year(holding: startDay).first
            var k = 0
            while !emission.done && first <= toDay && work < RecurrenceRule.workBudget {
                let next = calendar.year(holding: first).next
                if k % interval == 0 && !offer(yearDays(first: first, next: next)) { break }
                first = next
                k += 1
                work += 1
            }
        case .monthly:
            var first = calendar.month(holding: startDay).firstDay
            var k = 0
            while !emission.done && first <= toDay && work < RecurrenceRule.workBudget {
                let m = calendar.month(holding: first)
                if k % interval == 0 && (monthLabels.isEmpty || monthLabels.contains(m.label)) {
                    if !offer(monthDays(m, defaultDay: byMonthDay.isEmpty && !hasByDay)) { break }
                }
                first = m.firstDay + max(1, m.length)
                k += 1
                work += 1
            }
        case .weekly, .daily:
            let step = frequency == .weekly ? 7 * interval : interval
            var first = frequency == .weekly ? startDay - (CivilDate(daysSinceEpoch: startDay).isoWeekday - weekStart + 7) % 7 : startDay
            while !emission.done && first <= toDay && work < RecurrenceRule.workBudget {
                let days = frequency == .weekly ? Array(first..<(first + 7)) : [first]
                if !offer(days.filter(passes)) { break }
                first += step
                work += 1
            }
        default:
            break  // sub-daily RSCALE rules are refused by the parser (`RScaleCalendar.unsupported`)
        }
        if work >= RecurrenceRule.workBudget { emission.truncated = true }
    }

    /// The days of one year: BYYEARDAY, or the months BYMONTH names (or DTSTART's, or all) and their days.
    private func yearDays(first: Int, next: Int) -> [Int] {
        let length = next - first
        if !byYearDay.isEmpty {
            var out: [Int] = []
            for n in byYearDay {
                if n > 0 {
                    if n <= length { out.append(first + n - 1) } else if let d = skipped(after: true, first: first, next: next) { out.append(d) }
                } else {
                    if -n <= length { out.append(next + n) } else if let d = skipped(after: false, first: first, next: next) { out.append(d) }
                }
            }
            return out.filter(passes)
        }
        let months = calendar.months(from: first, to: next)
        var selected: [RScaleCalendar.Month] = []
        let labels: [RScaleCalendar.MonthLabel]
        if !monthLabels.isEmpty { labels = monthLabels } else if byMonthDay.isEmpty && !hasByDay { labels = [startMonth] } else { labels = [] }
        if labels.isEmpty {
            selected = months
        } else {
            for label in labels {
                if let m = months.first(where: { $0.label == label }) {
                    selected.append(m)
                } else if label.leap {
                    // A leap month this year does not have.
                    let instead: RScaleCalendar.MonthLabel?
                    switch skip {
                    case .omit: instead = nil
                    case .backward: instead = .init(number: label.number, leap: false)
                    case .forward: instead = .init(number: label.number + 1, leap: false)
                    }
                    if let instead, let m = months.first(where: { $0.label == instead }) { selected.append(m) }
                }
            }
        }
        let defaultDay = byMonthDay.isEmpty && !hasByDay
        if !ordinals.isEmpty && monthLabels.isEmpty && byMonthDay.isEmpty {
            // "20MO" in a YEARLY rule without BYMONTH counts in the year.
            return ordinalDays(first: first, length: length) + (first..<next).filter { weekdays.contains(CivilDate(daysSinceEpoch: $0).isoWeekday) }
        }
        return selected.flatMap { monthDays($0, defaultDay: defaultDay) }
    }

    /// The days of one month: BYMONTHDAY (or DTSTART's day) with SKIP, filtered by BYDAY; or BYDAY's days.
    private func monthDays(_ m: RScaleCalendar.Month, defaultDay: Bool) -> [Int] {
        let numbers = defaultDay ? [startMonthDay] : byMonthDay
        if !numbers.isEmpty {
            var out: [Int] = []
            for n in numbers {
                if n > 0 {
                    if n <= m.length { out.append(m.firstDay + n - 1) }
                    else if let d = skipped(after: true, first: m.firstDay, next: m.firstDay + m.length) { out.append(d) }
                } else {
                    if -n <= m.length { out.append(m.firstDay + m.length + n) }
                    else if let d = skipped(after: false, first: m.firstDay, next: m.firstDay + m.length) { out.append(d) }
                }
            }
            return hasByDay ? out.filter { weekdays.isEmpty || weekdays.contains(CivilDate(daysSinceEpoch: $0).isoWeekday) } : out
        }
        return ordinalDays(first: m.firstDay, length: m.length)
            + (m.firstDay..<(m.firstDay + m.length)).filter { weekdays.contains(CivilDate(daysSinceEpoch: $0).isoWeekday) }
    }

    /// SKIP for a day number past the end (`after`) or before the start of the period [first, next).
    private func skipped(after: Bool, first: Int, next: Int) -> Int? {
        switch skip {
        case .omit: return nil
        case .backward: return after ? next - 1 : first - 1
        case .forward: return after ? next : first
        }
    }

    private func ordinalDays(first: Int, length: Int) -> [Int] {
        var out: [Int] = []
        let last = first + length - 1
        let firstWeekday = CivilDate(daysSinceEpoch: first).isoWeekday
        let lastWeekday = CivilDate(daysSinceEpoch: last).isoWeekday
        for (weekday, ordinal) in ordinals {
            let day = ordinal > 0 ? first + (weekday - firstWeekday + 7) % 7 + (ordinal - 1) * 7
                                  : last - (lastWeekday - weekday + 7) % 7 + (ordinal + 1) * 7
            if day >= first && day <= last { out.append(day) }
        }
        return out
    }

    /// The BY filters on one day (DAILY and WEEKLY rules, BYYEARDAY days): BYMONTH, BYMONTHDAY and BYYEARDAY
    /// in the calendar, BYDAY's weekdays.
    private func passes(_ day: Int) -> Bool {
        if !weekdays.isEmpty && !weekdays.contains(CivilDate(daysSinceEpoch: day).isoWeekday) { return false }
        if !monthLabels.isEmpty || !byMonthDay.isEmpty {
            let m = calendar.month(holding: day)
            if !monthLabels.isEmpty && !monthLabels.contains(m.label) { return false }
            if !byMonthDay.isEmpty {
                let n = day - m.firstDay + 1
                if !byMonthDay.contains(n) && !byMonthDay.contains(n - m.length - 1) { return false }
            }
        }
        if !byYearDay.isEmpty && frequency != .yearly {
            let (first, next) = calendar.year(holding: day)
            let n = day - first + 1
            if !byYearDay.contains(n) && !byYearDay.contains(n - (next - first) - 1) { return false }
        }
        return true
    }
}
