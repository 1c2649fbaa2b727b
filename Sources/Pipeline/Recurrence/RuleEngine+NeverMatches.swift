/// Rules that can give no instance after DTSTART, found from the rule alone, so that expanding them costs
/// nothing: without this a rule such as `FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47` walks every second of
/// the window until its work budget runs out (a quarter of a second each, and DTSTART lost with it; issue 30).
/// Every test here is conservative: a rule is said never to match only when no calendar can hold an instance.
extension RuleEngine {
    static func neverMatchReason(_ e: RuleEngine) -> String? {
        if e.times.isEmpty { return "no time of day is left" }
        if let reason = setPositionReason(e) { return reason }
        if let reason = dayReason(e) { return reason }
        return nil
    }

    /// BYSETPOS beyond the most instances one period's set can hold.
    private static func setPositionReason(_ e: RuleEngine) -> String? {
        guard !e.setPositions.isEmpty else { return nil }
        let days: Int
        switch e.frequency {
        case .secondly, .minutely, .hourly, .daily:
            days = 1
        case .weekly:
            days = e.needsCalendarFields ? 7 : max(1, e.weekOffsets.count)
        case .monthly, .yearly:
            let perMonth: Int
            if e.hasMonthDay {
                perMonth = min(31, e.monthDayPositive.nonzeroBitCount + e.monthDayNegative.nonzeroBitCount)
            } else {
                perMonth = 31
            }
            let months = e.frequency == .monthly ? 1 : (e.monthMask == 0 ? 12 : e.monthMask.nonzeroBitCount)
            days = e.hasYearDay || e.hasWeekNo ? (e.frequency == .monthly ? 31 : 366) : min(e.frequency == .monthly ? 31 : 366, perMonth * months)
        }
        let most = days * e.times.count
        guard e.setPositions.allSatisfy({ $0 > most || $0 < -most || $0 == 0 }) else { return nil }
        let name: String
        switch e.frequency {
        case .secondly: name = "SECONDLY"
        case .minutely: name = "MINUTELY"
        case .hourly: name = "HOURLY"
        case .daily: name = "DAILY"
        case .weekly: name = "WEEKLY"
        case .monthly: name = "MONTHLY"
        case .yearly: name = "YEARLY"
        }
        let positions = e.setPositions.map(String.init).joined(separator: ",")
        return "BYSETPOS=\(positions) asks for more than the \(most) instance\(most == 1 ? "" : "s") a \(name) set of this rule can hold"
    }

    /// No day of any year passes BYMONTH, BYMONTHDAY, BYYEARDAY and BYWEEKNO together (with DTSTART's month
    /// and day where the rule takes them from it): February 30th, the 31st of a 30-day month, day 60 in
    /// January, week 20 in January.
    private static func dayReason(_ e: RuleEngine) -> String? {
        guard e.monthMask != 0 || e.hasMonthDay || e.hasYearDay || e.hasWeekNo else { return nil }
        if !e.hasYearDay && !e.hasWeekNo {
            // Months and their days only: the longest each month can be (February 29).
            guard e.hasMonthDay else { return nil }
            for month in 1...12 where e.monthMask == 0 || e.monthMask & (1 << UInt16(month)) != 0 {
                let longest = month == 2 ? 29 : [4, 6, 9, 11].contains(month) ? 30 : 31
                for d in 1...longest where e.monthDayPositive & (1 << UInt32(d)) != 0 || e.monthDayNegative & (1 << UInt32(d)) != 0 {
                    return nil
                }
            }
            return "no month of BYMONTH has a day of BYMONTHDAY"
        }
        // BYYEARDAY or BYWEEKNO: every kind of year (leap or not, each weekday of January 1st) is among the
        // 28 years 2001-2028, and the year after each, for the weeks that cross into it. A scan of 10,227 days,
        // so its answers are kept by the day parts that decide them (feeds repeat their rules).
        let weekdays: UInt8 = e.hasByDay ? e.weekdayMask | e.ordinalWeekdays.reduce(0) { $0 | 1 << UInt8($1.weekday) } : 0x7F << 1
        let key = DayPartsKey(e, weekdays: weekdays)
        if let known = dayScanCache.withLock({ $0[key] }) { return known.reason }
        var found = false
        var cursor = DayCursor(day: CivilDate(year: 2001, month: 1, day: 1).daysSinceEpoch)
        let end = CivilDate(year: 2030, month: 1, day: 1).daysSinceEpoch
        while cursor.day < end {
            if e.dayCouldMatch(cursor, weekdays: weekdays) { found = true; break }
            cursor.advance()
        }
        let reason: String? = found ? nil
            : e.hasWeekNo ? "no day is in BYWEEKNO and the rule's other day parts at once" : "no day is in BYYEARDAY and the rule's other day parts at once"
        dayScanCache.withLock {
            if $0.count >= 4096 { $0.removeAll(keepingCapacity: true) }
            $0[key] = ScanAnswer(reason: reason)
        }
        return reason
    }
}

/// What decides the day scan of `RuleEngine.dayReason`: the rule's day parts as its engine holds them.
private struct DayPartsKey: Hashable {
    var months: UInt16
    var weekdays: UInt8
    var weekStart: Int
    var monthDayPositive: UInt32
    var monthDayNegative: UInt32
    var hasMonthDay: Bool
    var weekNoPositive: UInt64
    var weekNoNegative: UInt64
    var hasWeekNo: Bool
    var yearDays: [UInt64]

    init(_ e: RuleEngine, weekdays: UInt8) {
        months = e.monthMask
        self.weekdays = weekdays
        weekStart = e.weekStart
        monthDayPositive = e.monthDayPositive
        monthDayNegative = e.monthDayNegative
        hasMonthDay = e.hasMonthDay
        weekNoPositive = e.weekNoPositive
        weekNoNegative = e.weekNoNegative
        hasWeekNo = e.hasWeekNo
        var bits = [UInt64](repeating: 0, count: e.hasYearDay ? 12 : 0)
        if e.hasYearDay {
            for d in 0..<367 {
                if e.yearDayPositive[d] { bits[d / 64] |= 1 << UInt64(d % 64) }
                if e.yearDayNegative[d] { bits[6 + d / 64] |= 1 << UInt64(d % 64) }
            }
        }
        yearDays = bits
    }
}

private struct ScanAnswer { var reason: String? }

/// The day scans' answers, shared by the threads that make engines (the expand stage's and its series worker).
private let dayScanCache = Locked<[DayPartsKey: ScanAnswer]>([:])
