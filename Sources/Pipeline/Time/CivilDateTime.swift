/// A wall-clock date and time with no zone, stored as seconds since 1970-01-01T00:00:00 of that wall clock.
public struct CivilDateTime: Hashable, Comparable, Sendable {
    public var secondsSinceEpoch: Int64

    public init(secondsSinceEpoch: Int64) {
        self.secondsSinceEpoch = secondsSinceEpoch
    }

    public init(date: CivilDate, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        secondsSinceEpoch = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.init(date: CivilDate(year: year, month: month, day: day), hour: hour, minute: minute, second: second)
    }

    public var date: CivilDate {
        CivilDate(daysSinceEpoch: Int(floorDiv(secondsSinceEpoch, 86_400)))
    }

    /// Seconds since the start of the day, 0..<86400.
    public var secondOfDay: Int { Int(secondsSinceEpoch - Int64(date.daysSinceEpoch) * 86_400) }

    public var hour: Int { secondOfDay / 3600 }
    public var minute: Int { secondOfDay / 60 % 60 }
    public var second: Int { secondOfDay % 60 }

    public func adding(seconds: Int64) -> CivilDateTime { CivilDateTime(secondsSinceEpoch: secondsSinceEpoch + seconds) }

    public static func < (lhs: CivilDateTime, rhs: CivilDateTime) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }

    /// "YYYY-MM-DDTHH:MM:SS".
    public var iso8601: String { date.iso8601 + "T" + timeText }

    /// "HH:MM:SS".
    public var timeText: String { pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) }

    /// "HH:MM", for view models.
    public var shortTimeText: String { pad(hour, 2) + ":" + pad(minute, 2) }

    /// "YYYYMMDDTHHMMSS" as iCalendar writes local date-times.
    public var basicFormat: String { date.basicFormat + "T" + pad(hour, 2) + pad(minute, 2) + pad(second, 2) }
}

@inlinable
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
