/// A calendar date with no time and no zone, stored as days since 1970-01-01 (proleptic Gregorian).
public struct CivilDate: Hashable, Comparable, Sendable {
    public var daysSinceEpoch: Int

    public init(daysSinceEpoch: Int) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// Builds a date from its parts; the parts must form a real date (see `isValid`).
    public init(year: Int, month: Int, day: Int) {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        daysSinceEpoch = era * 146_097 + doe - 719_468
    }

    /// Returns the date when the parts form a real date (no February 30th), else nil.
    public static func validated(year: Int, month: Int, day: Int) -> CivilDate? {
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        return CivilDate(year: year, month: month, day: day)
    }

    /// Year, month (1-12) and day (1-31).
    public var components: (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// ISO weekday: 1 = Monday ... 7 = Sunday.
    public var isoWeekday: Int {
        let w = (daysSinceEpoch + 3) % 7  // 1970-01-01 was a Thursday
        return (w < 0 ? w + 7 : w) + 1
    }

    public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    /// "YYYY-MM-DD".
    public var iso8601: String {
        let (y, m, d) = components
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// "YYYYMMDD" as iCalendar writes dates.
    public var basicFormat: String {
        let (y, m, d) = components
        return pad(y, 4) + pad(m, 2) + pad(d, 2)
    }

    /// English weekday name, for view models.
    public var weekdayName: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][isoWeekday - 1]
    }
}

/// Zero-padded decimal text, without Foundation's formatters.
@inlinable
func pad(_ value: Int, _ width: Int) -> String {
    let negative = value < 0
    var digits = String(negative ? -value : value)
    if digits.count < width { digits = String(repeating: "0", count: width - digits.count) + digits }
    return negative ? "-" + digits : digits
}
