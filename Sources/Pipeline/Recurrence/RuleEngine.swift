/// A `RecurrenceRule` compiled for one DTSTART: bit masks and sorted lists on plain integers (days since
/// 1970, seconds of wall-clock time), so expanding allocates nothing per occurrence.
///
/// The algorithm follows RFC 5545 3.3.10: the rule walks periods of its frequency (year, month, week, day,
/// hour, minute, second), every INTERVAL-th one counted from DTSTART's period. In each period it lists the
/// candidate days that pass the BY* day parts (BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY), crosses
/// them with the times of day (BYHOUR x BYMINUTE x BYSECOND), keeps the BYSETPOS positions, and offers the
/// results in order to `Emission`, which applies DTSTART, UNTIL, COUNT and the window. Parts the RFC marks
/// "N/A" for a frequency act as filters, as python-dateutil does.
struct RuleEngine {
    typealias Frequency = RecurrenceRule.Frequency

    let frequency: Frequency
    let interval: Int
    let count: Int?
    /// Inclusive UNTIL as wall-clock seconds; nil without UNTIL.
    let untilLocal: Int64?
    /// UNTIL as an instant when it was written in UTC and the wall clock has a zone.
    let untilInstant: Int64?
    let zone: Zone?
    let start: Int64
    let startDay: Int

    // Day parts.
    let monthMask: UInt16
    let weekdayMask: UInt8
    let ordinalWeekdays: [(weekday: Int, ordinal: Int)]
    let hasByDay: Bool
    let monthDayPositive: UInt32
    let monthDayNegative: UInt32
    let hasMonthDay: Bool
    let yearDayPositive: [Bool]
    let yearDayNegative: [Bool]
    let hasYearDay: Bool
    let weekNoPositive: UInt64
    let weekNoNegative: UInt64
    let hasWeekNo: Bool
    let weekStart: Int
    let needsCalendarFields: Bool
    /// Scanning the days of a month needs more than the weekday (BYMONTH is handled per month).
    let scanNeedsFields: Bool
    let hasDayFilter: Bool
    /// WEEKLY without calendar fields: the days of a week (counted from its WKST day) BYDAY picks, ascending.
    let weekOffsets: [Int]
    /// A month's matching days can be read off bit masks (no BYYEARDAY or BYWEEKNO to test day by day).
    let monthDaysByMask: Bool

    // Time parts. For DAILY and longer: seconds of the day. For HOURLY, MINUTELY, SECONDLY: offsets inside
    // the period, plus the masks that filter the period itself.
    let times: [Int64]
    let hourMask: UInt32
    let minuteMask: UInt64
    let secondMask: UInt64
    let setPositions: [Int]

    /// Why the rule can give no instance after DTSTART, decided from the rule alone (`RuleEngine+NeverMatches`):
    /// it then gives DTSTART only, at no cost. Nil when it may match.
    private(set) var neverMatches: String? = nil

    /// Periods one `run` may walk before it stops with `truncated` (the series expander lowers it when the
    /// run's shared allowance, `RuleWorkAllowance`, is nearly spent).
    var workBudget = RecurrenceRule.workBudget
    /// Periods the last `run` walked (for the run's allowance).
    private(set) var lastWork = 0
    /// UNTIL lies before DTSTART: the rule gives no instance at all, not even DTSTART (python-dateutil,
    /// recurring-ical-events and ical.js do the same; Google writes such a rule when it splits a series at its
    /// first instance).
    let untilBeforeStart: Bool

    /// Where a COUNT rule's last run began the last period it handed an instance on from: the instances
    /// counted before that period. A later run from after that instance (the series expander's next step)
    /// starts there instead of walking from DTSTART again; the count from DTSTART is the same either way.
    struct Checkpoint {
        var period: Int
        var counted: Int
        var startPending: Bool
    }

    private var checkpoint: Checkpoint? = nil

    /// The checkpoint, when it lies after period 0 and not after `target` (the period holding `from`).
    private func countCheckpoint(target: Int) -> Checkpoint? {
        guard let c = checkpoint, c.period > 0, c.period <= target else { return nil }
        return c
    }

    /// The engine for an RFC 7529 RSCALE rule (nil for a plain Gregorian rule, the usual case).
    private var rscaleEngine: RScaleEngine? = nil

    /// Reusable buffers (per engine, never shared).
    private let dayBuffer = DayScratch()
    private var ordinalDays: [Int] = []
    private var selected: [Int64] = []

    init(rule: RecurrenceRule, start: Int64, zone: Zone?) {
        frequency = rule.frequency
        // Beyond `maxEffectiveInterval` the second period is out of any calendar's reach: capping there gives
        // the same instances and keeps every product below far from overflow.
        interval = min(max(1, rule.interval), RecurrenceRule.Limits.maxEffectiveInterval(rule.frequency))
        self.start = start
        self.zone = zone
        let startDateTime = CivilDateTime(secondsSinceEpoch: start)
        let startDate = startDateTime.date
        startDay = startDate.daysSinceEpoch
        weekStart = rule.weekStart

        let until: EventTime?
        switch rule.end {
        case .never: count = nil; until = nil
        case .count(let n): count = n; until = rule.untilWithCount  // COUNT with UNTIL: whichever ends first
        case .until(let t): count = nil; until = t
        }
        switch until {
        case nil:
            untilLocal = nil; untilInstant = nil
        case .date(let d)?:
            untilLocal = Int64(d.daysSinceEpoch + 1) * 86_400 - 1; untilInstant = nil
        case .floating(let l)?:
            untilLocal = l.secondsSinceEpoch; untilInstant = nil
        case .zoned(let l, let z)?:
            if let zone, zone != z {
                let instant = z.utc(fromLocal: l)
                untilLocal = zone.local(fromUTC: instant).secondsSinceEpoch; untilInstant = instant
            } else {
                untilLocal = l.secondsSinceEpoch; untilInstant = nil
            }
        case .utc(let s)?:
            if let zone {
                untilLocal = zone.local(fromUTC: s).secondsSinceEpoch; untilInstant = s
            } else {
                untilLocal = s; untilInstant = nil
            }
        }

        // Defaults taken from DTSTART (RFC 5545 3.3.10, as python-dateutil applies them), as single values
        // (no lists built for them).
        var defaultMonth: Int? = nil
        var defaultMonthDay: Int? = nil
        var defaultWeekday: Int? = nil
        if rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && rule.byMonthDay.isEmpty && rule.byDay.isEmpty {
            switch rule.frequency {
            case .yearly:
                if rule.byMonth.isEmpty { defaultMonth = startDate.month }
                defaultMonthDay = startDate.day
            case .monthly:
                defaultMonthDay = startDate.day
            case .weekly:
                defaultWeekday = startDate.isoWeekday
            default:
                break
            }
        } else if rule.frequency == .yearly && !rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && rule.byMonthDay.isEmpty
                    && rule.byDay.isEmpty && rule.byMonth.isEmpty {
            // FREQ=YEARLY;BYWEEKNO=20 names a week, not a day: the day comes from DTSTART, its weekday (RFC 5545
            // 3.3.10: what the rule does not say comes from DTSTART; libical and ical.js do so, python-dateutil
            // gives the whole week). With BYMONTH too (libical: unimplemented) the BY parts stay filters.
            defaultWeekday = startDate.isoWeekday
        }

        var mm: UInt16 = 0
        for m in rule.byMonth where (1...12).contains(m) { mm |= 1 << UInt16(m) }
        if let defaultMonth { mm |= 1 << UInt16(defaultMonth) }
        monthMask = mm
        let hasByMonth = !rule.byMonth.isEmpty || defaultMonth != nil

        let ordinalsApply = rule.frequency == .monthly || rule.frequency == .yearly
        var wm: UInt8 = 0
        var ordinals: [(weekday: Int, ordinal: Int)] = []
        for d in rule.byDay where (1...7).contains(d.weekday) {
            if let n = d.ordinal, ordinalsApply {
                guard RecurrenceRule.Limits.weekdayOrdinal.contains(n) else { continue }  // a rule built in code
                ordinals.append((d.weekday, n))
            } else {
                wm |= 1 << UInt8(d.weekday)
            }
        }
        if let defaultWeekday { wm |= 1 << UInt8(defaultWeekday) }
        weekdayMask = wm
        ordinalWeekdays = ordinals
        hasByDay = !rule.byDay.isEmpty || defaultWeekday != nil

        var mdp: UInt32 = 0, mdn: UInt32 = 0
        for d in rule.byMonthDay {
            if d > 0 && d <= 31 { mdp |= 1 << UInt32(d) } else if d < 0 && d >= -31 { mdn |= 1 << UInt32(-d) }
        }
        if let defaultMonthDay { mdp |= 1 << UInt32(defaultMonthDay) }
        monthDayPositive = mdp
        monthDayNegative = mdn
        hasMonthDay = !rule.byMonthDay.isEmpty || defaultMonthDay != nil

        // Only a rule with BYYEARDAY reads these (`hasYearDay`).
        var ydp: [Bool] = [], ydn: [Bool] = []
        if !rule.byYearDay.isEmpty {
            ydp = [Bool](repeating: false, count: 367)
            ydn = [Bool](repeating: false, count: 367)
        }
        for d in rule.byYearDay {
            if d > 0 && d <= 366 { ydp[d] = true } else if d < 0 && d >= -366 { ydn[-d] = true }
        }
        yearDayPositive = ydp
        yearDayNegative = ydn
        hasYearDay = !rule.byYearDay.isEmpty

        var wnp: UInt64 = 0, wnn: UInt64 = 0
        for w in rule.byWeekNo {
            if w > 0 && w <= 53 { wnp |= 1 << UInt64(w) } else if w < 0 && w >= -53 { wnn |= 1 << UInt64(-w) }
        }
        weekNoPositive = wnp
        weekNoNegative = wnn
        hasWeekNo = !rule.byWeekNo.isEmpty

        needsCalendarFields = hasByMonth || hasMonthDay || hasYearDay || hasWeekNo || !ordinals.isEmpty
        hasDayFilter = needsCalendarFields || hasByDay
        var offsets: [Int] = []
        if rule.frequency == .weekly && !needsCalendarFields {
            for offset in 0..<7 where wm & (1 << UInt8((rule.weekStart - 1 + offset) % 7 + 1)) != 0 { offsets.append(offset) }
        }
        weekOffsets = offsets
        monthDaysByMask = !hasYearDay && !hasWeekNo
        scanNeedsFields = hasMonthDay || hasYearDay || hasWeekNo || !ordinals.isEmpty

        func sortedUnique(_ values: [Int], in range: ClosedRange<Int>) -> [Int] {
            Array(Set(values.filter { range.contains($0) })).sorted()
        }
        let timeDefaults = rule.byHour.isEmpty && rule.byMinute.isEmpty && rule.bySecond.isEmpty
        // Built only when needed (most rules take DTSTART's time of day).
        var hours: [Int] { rule.byHour.isEmpty ? [startDateTime.hour] : sortedUnique(rule.byHour, in: 0...23) }
        var minutes: [Int] { rule.byMinute.isEmpty ? [startDateTime.minute] : sortedUnique(rule.byMinute, in: 0...59) }
        var seconds: [Int] { rule.bySecond.isEmpty ? [startDateTime.second] : sortedUnique(rule.bySecond, in: 0...59) }

        var hm: UInt32 = 0, minm: UInt64 = 0, sm: UInt64 = 0
        var t: [Int64] = []
        switch rule.frequency {
        case .yearly, .monthly, .weekly, .daily:
            if timeDefaults {
                t = [Int64(startDateTime.secondOfDay)]  // DTSTART's time of day
            } else {
                let (hs, ms, ss) = (hours, minutes, seconds)
                for h in hs { for m in ms { for s in ss { t.append(Int64(h * 3600 + m * 60 + s)) } } }
            }
        case .hourly:
            for h in rule.byHour where (0...23).contains(h) { hm |= 1 << UInt32(h) }
            let (ms, ss) = (minutes, seconds)
            for m in ms { for s in ss { t.append(Int64(m * 60 + s)) } }
        case .minutely:
            for h in rule.byHour where (0...23).contains(h) { hm |= 1 << UInt32(h) }
            for m in rule.byMinute where (0...59).contains(m) { minm |= 1 << UInt64(m) }
            for s in seconds { t.append(Int64(s)) }
        case .secondly:
            for h in rule.byHour where (0...23).contains(h) { hm |= 1 << UInt32(h) }
            for m in rule.byMinute where (0...59).contains(m) { minm |= 1 << UInt64(m) }
            for s in rule.bySecond where (0...59).contains(s) { sm |= 1 << UInt64(s) }
            if !rule.bySecond.isEmpty && sm == 0 { sm = 1 << 63 }  // only BYSECOND=60: never matches
            t = [0]
        }
        times = t
        if RScaleCalendar.needed(for: rule) {
            rscaleEngine = RScaleEngine(rule: rule, startDay: startDay, interval: interval, times: t)
        }
        hourMask = hm
        minuteMask = minm
        secondMask = sm
        setPositions = rule.bySetPos
        if let untilLocal {
            if let untilInstant, let zone {
                untilBeforeStart = zone.utc(fromLocal: startDateTime) > untilInstant
            } else {
                untilBeforeStart = untilLocal < start
            }
        } else {
            untilBeforeStart = false
        }
        if rscaleEngine == nil { neverMatches = Self.neverMatchReason(self) }
    }

    // MARK: Running

    /// Runs the rule over [from, to) (wall-clock seconds). Returns true when truncated.
    mutating func run(from: Int64, to: Int64, includeStart: Bool, limit: Int, _ body: (Int64) -> Void) -> Bool {
        lastWork = 0
        if untilBeforeStart { return false }
        var emission = Emission(start: start, from: from, to: to, count: count, untilLocal: untilLocal,
                                untilInstant: untilInstant, zone: zone, limit: limit, startPending: includeStart)
        if neverMatches != nil {
            // DTSTART alone (`finish` offers it).
        } else if to > from && !times.isEmpty && rscaleEngine != nil {
            rscaleEngine!.run(&emission, body)
        } else if to > from && !times.isEmpty {
            switch frequency {
            case .yearly, .monthly, .weekly, .daily: runDays(&emission, body)
            case .hourly, .minutely, .secondly: runSubDaily(&emission, body)
            }
        }
        emission.finish(body)
        return emission.truncated
    }

    /// True when every period yields exactly one instance, at the same place in the period as DTSTART's
    /// (so COUNT can skip periods by arithmetic).
    private var oneInstancePerPeriod: Bool {
        guard setPositions.isEmpty, times.count == 1 else { return false }
        switch frequency {
        case .daily, .hourly, .minutely, .secondly:
            return !hasDayFilter && hourMask == 0 && minuteMask == 0 && secondMask == 0
        case .weekly:
            return !needsCalendarFields && weekdayMask.nonzeroBitCount == 1
        case .monthly, .yearly:
            return false
        }
    }

    private mutating func runDays(_ emission: inout Emission, _ body: (Int64) -> Void) {
        let startDate = CivilDate(daysSinceEpoch: startDay)
        let (startYear, startMonth, _) = startDate.components
        let monthZero = startYear * 12 + (startMonth - 1)
        let weekZero = startDay - ((startDate.isoWeekday - weekStart + 7) % 7)
        let fromDay = Int(floorDiv(emission.from, 86_400))
        let fromDate = CivilDate(daysSinceEpoch: fromDay)
        let target: Int
        switch frequency {
        case .yearly: target = floorDivInt(fromDate.year - startYear, interval)
        case .monthly: target = floorDivInt(fromDate.year * 12 + fromDate.month - 1 - monthZero, interval)
        case .weekly: target = floorDivInt(fromDay - weekZero, 7 * interval)
        default: target = floorDivInt(fromDay - startDay, interval)
        }
        let toDay = Int(floorDiv(emission.to - 1, 86_400))
        var period = 0
        if target > 0 {
            if count == nil {
                // Everything before the period holding `from` is before the window, DTSTART too.
                emission.startPending = false
                period = target
            } else if oneInstancePerPeriod && target > 1 {
                // COUNT counts from DTSTART: run the first period, then count the skipped ones by arithmetic.
                _ = runDayPeriod(0, startYear: startYear, monthZero: monthZero, weekZero: weekZero, &emission, body)
                emission.skip(instances: target - 1)
                if emission.done { return }
                period = target
            } else if let resume = countCheckpoint(target: target) {
                // A later step of the same series: carry on from where the last run stopped, not from DTSTART.
                period = resume.period
                emission.counted = resume.counted
                emission.startPending = resume.startPending
            }
        }
        var lastProductiveDay = startDay
        let emptyCap = 146_097 * interval  // the Gregorian calendar repeats every 400 years
        var work = 0
        defer { lastWork = work }
        // Checkpoints only for runs cut into steps (a COUNT rule with a limit): one run to the end needs none.
        let tracking = count != nil && emission.limit < Int.max
        while !emission.done {
            if tracking {
                let before = Checkpoint(period: period, counted: emission.counted, startPending: emission.startPending)
                let emitted = emission.emitted
                let (firstDay, productive) = runDayPeriod(period, startYear: startYear, monthZero: monthZero, weekZero: weekZero, &emission, body)
                if emission.emitted > emitted { checkpoint = before }
                if emission.done || firstDay > toDay { break }
                if productive { lastProductiveDay = firstDay } else if firstDay - lastProductiveDay > emptyCap { break }
                work += 1
                if work > workBudget { emission.truncated = true; break }
                period += 1
                continue
            }
            let (firstDay, productive) = runDayPeriod(period, startYear: startYear, monthZero: monthZero, weekZero: weekZero, &emission, body)
            if emission.done || firstDay > toDay { break }
            if productive { lastProductiveDay = firstDay } else if firstDay - lastProductiveDay > emptyCap { break }
            work += 1
            if work > workBudget { emission.truncated = true; break }
            period += 1
        }
    }

    /// Expands one period of a day-level rule. Returns the period's first day and whether any day matched.
    @inline(__always)
    private mutating func runDayPeriod(_ period: Int, startYear: Int, monthZero: Int, weekZero: Int,
                                       _ emission: inout Emission, _ body: (Int64) -> Void) -> (Int, Bool) {
        dayBuffer.removeAll()
        let firstDay: Int
        switch frequency {
        case .daily:
            firstDay = startDay + period * interval
            if firstDay * 86_400 > emission.to { return (firstDay, false) }
            if !hasDayFilter || matches(DayCursor(day: firstDay), ordinals: false) { dayBuffer.append(firstDay) }
        case .weekly:
            firstDay = weekZero + period * 7 * interval
            if firstDay * 86_400 > emission.to { return (firstDay, false) }
            if needsCalendarFields {
                var cursor = DayCursor(day: firstDay)
                for _ in 0..<7 {
                    if matches(cursor, ordinals: false) { dayBuffer.append(cursor.day) }
                    cursor.advance()
                }
            } else {
                // A week starts on its WKST day, so the picked days sit at the same offsets every week.
                for offset in weekOffsets { dayBuffer.append(firstDay + offset) }
            }
        case .monthly:
            let index = monthZero + period * interval
            let year = floorDivInt(index, 12), month = index - year * 12 + 1
            firstDay = CivilDate(year: year, month: month, day: 1).daysSinceEpoch
            if firstDay * 86_400 > emission.to { return (firstDay, false) }
            if monthMask == 0 || monthMask & (1 << UInt16(month)) != 0 {
                let length = CivilDate.daysInMonth(year: year, month: month)
                collectOrdinalDays(rangeStart: firstDay, length: length)
                scanMonth(year: year, month: month, firstDay: firstDay, length: length)
            }
        default:  // yearly
            let year = startYear + period * interval
            firstDay = CivilDate(year: year, month: 1, day: 1).daysSinceEpoch
            if firstDay * 86_400 > emission.to { return (firstDay, false) }
            if !ordinalWeekdays.isEmpty && monthMask == 0 {
                collectOrdinalDays(rangeStart: firstDay, length: CivilDate.isLeapYear(year) ? 366 : 365)
            }
            for month in 1...12 where monthMask == 0 || monthMask & (1 << UInt16(month)) != 0 {
                let monthStart = CivilDate(year: year, month: month, day: 1).daysSinceEpoch
                let length = CivilDate.daysInMonth(year: year, month: month)
                if !ordinalWeekdays.isEmpty && monthMask != 0 { collectOrdinalDays(rangeStart: monthStart, length: length) }
                scanMonth(year: year, month: month, firstDay: monthStart, length: length)
            }
        }
        let productive = dayBuffer.count > 0
        if productive { emitDays(&emission, body) }
        return (firstDay, productive)
    }

    private mutating func scanMonth(year: Int, month: Int, firstDay: Int, length: Int) {
        if !hasDayFilter {
            for d in firstDay..<(firstDay + length) { dayBuffer.append(d) }
            return
        }
        if !scanNeedsFields {
            // Only plain weekdays to test: step the weekday along.
            var wd = CivilDate(daysSinceEpoch: firstDay).isoWeekday
            for d in firstDay..<(firstDay + length) {
                if weekdayMask & (1 << UInt8(wd)) != 0 { dayBuffer.append(d) }
                wd = wd == 7 ? 1 : wd + 1
            }
            return
        }
        if monthDaysByMask {
            scanMonthByMask(firstDay: firstDay, length: length)
            return
        }
        var cursor = DayCursor(day: firstDay)
        for _ in 0..<length {
            if matches(cursor, ordinals: true) { dayBuffer.append(cursor.day) }
            cursor.advance()
        }
    }

    /// `scanMonth` for rules whose day parts are BYDAY (plain and ordinal) and BYMONTHDAY only: the days of
    /// the month as bits (bit d for day d), each part narrowing them, as `matches(_:ordinals: true)` tests
    /// them (the month itself already passed BYMONTH).
    private mutating func scanMonthByMask(firstDay: Int, length: Int) {
        var days: UInt32 = (UInt32.max >> UInt32(32 - length)) << 1  // days 1...length
        if hasByDay {
            var picked: UInt32 = 0
            if weekdayMask != 0 {
                let firstWeekday = CivilDate(daysSinceEpoch: firstDay).isoWeekday
                for weekday in 1...7 where weekdayMask & (1 << UInt8(weekday)) != 0 {
                    var d = 1 + (weekday - firstWeekday + 7) % 7
                    while d <= length {
                        picked |= 1 << UInt32(d)
                        d += 7
                    }
                }
            }
            for day in ordinalDays where day >= firstDay && day < firstDay + length { picked |= 1 << UInt32(day - firstDay + 1) }
            days &= picked
        }
        if hasMonthDay {
            var picked = monthDayPositive
            var negative = monthDayNegative
            while negative != 0 {
                let k = negative.trailingZeroBitCount  // the k-th day from the end
                negative &= negative - 1
                if k >= 1 && k <= length { picked |= 1 << UInt32(length - k + 1) }
            }
            days &= picked
        }
        while days != 0 {
            dayBuffer.append(firstDay + days.trailingZeroBitCount - 1)
            days &= days - 1
        }
    }

    /// The days of [rangeStart, rangeStart + length) picked by ordinal BYDAY entries ("2MO", "-1FR").
    private mutating func collectOrdinalDays(rangeStart: Int, length: Int) {
        ordinalDays.removeAll(keepingCapacity: true)
        let last = rangeStart + length - 1
        let firstWeekday = CivilDate(daysSinceEpoch: rangeStart).isoWeekday
        let lastWeekday = CivilDate(daysSinceEpoch: last).isoWeekday
        for (weekday, ordinal) in ordinalWeekdays {
            let day: Int
            if ordinal > 0 {
                day = rangeStart + (weekday - firstWeekday + 7) % 7 + (ordinal - 1) * 7
            } else {
                day = last - (lastWeekday - weekday + 7) % 7 + (ordinal + 1) * 7
            }
            if day >= rangeStart && day <= last { ordinalDays.append(day) }
        }
    }

    private func matches(_ c: DayCursor, ordinals: Bool) -> Bool {
        if monthMask != 0 && monthMask & (1 << UInt16(c.month)) == 0 { return false }
        if hasWeekNo && !weekNumberMatches(c) { return false }
        if hasByDay {
            let plain = weekdayMask & (1 << UInt8(c.weekday)) != 0
            if !plain && !(ordinals && ordinalDays.contains(c.day)) { return false }
        }
        return monthAndYearDaysMatch(c)
    }

    /// BYMONTHDAY and BYYEARDAY, where the rule has them (the end of `matches` and `dayCouldMatch`).
    @inline(__always)
    private func monthAndYearDaysMatch(_ c: DayCursor) -> Bool {
        if hasMonthDay {
            if monthDayPositive & (1 << UInt32(c.monthDay)) == 0 && monthDayNegative & (1 << UInt32(c.monthLength - c.monthDay + 1)) == 0 {
                return false
            }
        }
        if hasYearDay {
            if !yearDayPositive[c.yearDay + 1] && !yearDayNegative[c.yearLength - c.yearDay] { return false }
        }
        return true
    }

    /// `matches` for the rule's analysis (`neverMatchReason`): every day part, BYDAY's ordinals read as their
    /// plain weekdays (`weekdays`), since only a period says which Monday is the second.
    func dayCouldMatch(_ c: DayCursor, weekdays: UInt8) -> Bool {
        if monthMask != 0 && monthMask & (1 << UInt16(c.month)) == 0 { return false }
        if hasWeekNo && !weekNumberMatches(c) { return false }
        if hasByDay && weekdays & (1 << UInt8(c.weekday)) == 0 { return false }
        return monthAndYearDaysMatch(c)
    }

    /// The first day of week 1 of `year`: the week (starting on WKST) that holds at least four days of the year.
    private func firstWeekStart(_ year: Int) -> Int {
        let jan1 = CivilDate(year: year, month: 1, day: 1)
        let offset = (jan1.isoWeekday - weekStart + 7) % 7
        return jan1.daysSinceEpoch - offset + (offset >= 4 ? 7 : 0)
    }

    private func weekNumberMatches(_ c: DayCursor) -> Bool {
        var weekYear = c.year
        var weekOne = firstWeekStart(weekYear)
        var nextWeekOne = firstWeekStart(weekYear + 1)
        if c.day < weekOne {
            weekYear -= 1; nextWeekOne = weekOne; weekOne = firstWeekStart(weekYear)
        } else if c.day >= nextWeekOne {
            weekYear += 1; weekOne = nextWeekOne; nextWeekOne = firstWeekStart(weekYear + 1)
        }
        let week = (c.day - weekOne) / 7 + 1
        let weeks = (nextWeekOne - weekOne) / 7
        return weekNoPositive & (1 << UInt64(week)) != 0 || weekNoNegative & (1 << UInt64(weeks - week + 1)) != 0
    }

    /// Crosses the matched days with the times of day, applies BYSETPOS, and offers the instances in order.
    @inline(__always)
    private mutating func emitDays(_ emission: inout Emission, _ body: (Int64) -> Void) {
        let timeCount = times.count
        if setPositions.isEmpty {
            for i in 0..<dayBuffer.count {
                let base = Int64(dayBuffer[i]) * 86_400
                for t in times {
                    if !emission.offer(base + t, body) { return }
                }
            }
            return
        }
        let total = dayBuffer.count * timeCount
        selected.removeAll(keepingCapacity: true)
        if setPositions.count == 1 {
            let pos = setPositions[0]
            let index = pos > 0 ? pos - 1 : total + pos
            if index >= 0 && index < total {
                _ = emission.offer(Int64(dayBuffer[index / timeCount]) * 86_400 + times[index % timeCount], body)
            }
            return
        }
        for pos in setPositions {
            let index = pos > 0 ? pos - 1 : total + pos
            guard index >= 0 && index < total else { continue }
            selected.append(Int64(dayBuffer[index / timeCount]) * 86_400 + times[index % timeCount])
        }
        offerSelected(&emission, body)
    }

    private mutating func offerSelected(_ emission: inout Emission, _ body: (Int64) -> Void) {
        selected.sort()
        var previous: Int64? = nil
        for s in selected where s != previous {
            previous = s
            if !emission.offer(s, body) { return }
        }
    }

    private mutating func runSubDaily(_ emission: inout Emission, _ body: (Int64) -> Void) {
        let unit: Int64 = frequency == .hourly ? 3600 : frequency == .minutely ? 60 : 1
        let base = floorDiv(start, unit) * unit
        let step = unit * Int64(interval)
        if !timeOfDayReachable(base: base, step: step) { return }
        let target = Int(floorDiv(emission.from - base, step))
        var cachedDay = Int.min
        var cachedMatch = true
        var period = 0
        if target > 0 {
            if count == nil {
                emission.startPending = false
                period = target
            } else if oneInstancePerPeriod && target > 1 {
                _ = runSubDailyPeriod(0, base: base, step: step, cachedDay: &cachedDay, cachedMatch: &cachedMatch, &emission, body)
                emission.skip(instances: target - 1)
                if emission.done { return }
                period = target
            } else if let resume = countCheckpoint(target: target) {
                period = resume.period
                emission.counted = resume.counted
                emission.startPending = resume.startPending
            }
        }
        var lastProductiveDay = startDay
        let emptyCap = 146_097 * interval
        var work = 0
        defer { lastWork = work }
        let tracking = count != nil && emission.limit < Int.max
        while !emission.done {
            let periodStart = base + Int64(period) * step
            if periodStart >= emission.to { break }
            let before = tracking ? Checkpoint(period: period, counted: emission.counted, startPending: emission.startPending) : nil
            let emitted = emission.emitted
            let next = runSubDailyPeriod(period, base: base, step: step, cachedDay: &cachedDay, cachedMatch: &cachedMatch, &emission, body)
            if let before, emission.emitted > emitted { checkpoint = before }
            if next < 0 {
                lastProductiveDay = cachedDay
                period += 1
            } else {
                if cachedDay - lastProductiveDay > emptyCap { break }
                // Jump to the first period at or after the next instant that could match.
                period = max(period + 1, Int(floorDiv(next - base + step - 1, step)))
            }
            work += 1
            if work > workBudget { emission.truncated = true; break }
        }
    }

    /// Whether any period start (base + k * step) can fall on a time of day that BYHOUR, BYMINUTE and BYSECOND
    /// allow. Period starts only reach the seconds of the day congruent to `base` modulo gcd(step, 86400), so
    /// e.g. FREQ=HOURLY;INTERVAL=2;BYHOUR=9 from an even hour never matches and ends at once.
    private func timeOfDayReachable(base: Int64, step: Int64) -> Bool {
        if hourMask == 0 && minuteMask == 0 && secondMask == 0 { return true }
        var a = step, b: Int64 = 86_400
        while b != 0 { (a, b) = (b, a % b) }
        var t = base - floorDiv(base, a) * a
        while t < 86_400 {
            let hour = t / 3600, minute = t / 60 % 60, second = t % 60
            if (hourMask == 0 || hourMask & (1 << UInt32(hour)) != 0)
                && (minuteMask == 0 || minuteMask & (1 << UInt64(minute)) != 0)
                && (secondMask == 0 || secondMask & (1 << UInt64(second)) != 0) {
                return true
            }
            t += a
        }
        return false
    }

    /// Expands one HOURLY/MINUTELY/SECONDLY period. Returns -1 when the period matched, else the next
    /// wall-clock second at which a period could match (start of the next day, hour or minute).
    private mutating func runSubDailyPeriod(_ period: Int, base: Int64, step: Int64, cachedDay: inout Int, cachedMatch: inout Bool,
                                            _ emission: inout Emission, _ body: (Int64) -> Void) -> Int64 {
        let periodStart = base + Int64(period) * step
        let day = Int(floorDiv(periodStart, 86_400))
        if day != cachedDay {
            cachedDay = day
            cachedMatch = !hasDayFilter || matches(DayCursor(day: day), ordinals: false)
        }
        let dayStart = Int64(day) * 86_400
        if !cachedMatch { return dayStart + 86_400 }
        let secondOfDay = periodStart - dayStart
        let hour = secondOfDay / 3600
        if hourMask != 0 && hourMask & (1 << UInt32(hour)) == 0 { return dayStart + (hour + 1) * 3600 }
        let minute = secondOfDay / 60 % 60
        if minuteMask != 0 && minuteMask & (1 << UInt64(minute)) == 0 { return dayStart + hour * 3600 + (minute + 1) * 60 }
        if secondMask != 0 && secondMask & (1 << UInt64(secondOfDay % 60)) == 0 { return periodStart + 1 }
        if setPositions.isEmpty {
            for t in times {
                if !emission.offer(periodStart + t, body) { break }
            }
        } else {
            selected.removeAll(keepingCapacity: true)
            for pos in setPositions {
                let index = pos > 0 ? pos - 1 : times.count + pos
                guard index >= 0 && index < times.count else { continue }
                selected.append(periodStart + times[index])
            }
            offerSelected(&emission, body)
        }
        return -1
    }
}

@inline(__always)
func floorDivInt(_ a: Int, _ b: Int) -> Int {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// Scratch list of day numbers for one period (a period never holds more than 366 days), reused across
/// periods without reallocating or uniqueness checks.
final class DayScratch {
    private let base: UnsafeMutablePointer<Int>
    private(set) var count = 0
    static let capacity = 384

    init() {
        base = .allocate(capacity: Self.capacity)
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    func append(_ day: Int) {
        base[count] = day
        count += 1
    }

    @inline(__always)
    func removeAll() { count = 0 }

    @inline(__always)
    subscript(index: Int) -> Int { base[index] }
}
