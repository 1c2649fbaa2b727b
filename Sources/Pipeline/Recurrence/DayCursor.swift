/// One day with the calendar fields the BY* day parts test, stepped one day at a time without re-deriving
/// the date from the day number.
struct DayCursor {
    /// Days since 1970-01-01.
    var day: Int
    var year: Int
    var month: Int
    /// 1...31.
    var monthDay: Int
    var monthLength: Int
    /// 0-based day of the year.
    var yearDay: Int
    var yearLength: Int
    /// ISO weekday, 1 = Monday.
    var weekday: Int

    init(day: Int) {
        let date = CivilDate(daysSinceEpoch: day)
        let (y, m, d) = date.components
        self.day = day
        year = y
        month = m
        monthDay = d
        monthLength = CivilDate.daysInMonth(year: y, month: m)
        yearDay = day - CivilDate(year: y, month: 1, day: 1).daysSinceEpoch
        yearLength = CivilDate.isLeapYear(y) ? 366 : 365
        weekday = date.isoWeekday
    }

    @inline(__always)
    mutating func advance() {
        day += 1
        weekday = weekday == 7 ? 1 : weekday + 1
        yearDay += 1
        monthDay += 1
        if monthDay > monthLength {
            monthDay = 1
            month += 1
            if month > 12 {
                month = 1
                year += 1
                yearDay = 0
                yearLength = CivilDate.isLeapYear(year) ? 366 : 365
            }
            monthLength = CivilDate.daysInMonth(year: year, month: month)
        }
    }
}
