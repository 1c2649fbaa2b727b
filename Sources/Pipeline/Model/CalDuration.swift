/// An iCalendar duration (RFC 5545 3.3.6): nominal days (weeks are seven days) and exact seconds, signed.
public struct CalDuration: Hashable, Sendable {
    public var days: Int
    public var seconds: Int64

    public init(days: Int = 0, seconds: Int64 = 0) {
        self.days = days
        self.seconds = seconds
    }

    public static let zero = CalDuration()

    public var isNegative: Bool { days < 0 || seconds < 0 }

    /// Parses "P1W", "P15DT5H0M20S", "-PT15M", "+P1D". Returns nil for anything else.
    public init?(iCalendar text: String) {
        var bytes = Array(text.utf8)[...]
        var sign = 1
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            if first == UInt8(ascii: "-") { sign = -1 }
            bytes = bytes.dropFirst()
        }
        guard bytes.first == UInt8(ascii: "P") else { return nil }
        bytes = bytes.dropFirst()
        var days = 0
        var seconds: Int64 = 0
        var inTime = false
        var number: Int64? = nil
        var sawPart = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int64(byte - UInt8(ascii: "0"))
                let (m, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(digit)
                guard !o1, !o2, s < 10_000_000_000 else { return nil }
                number = s
            case UInt8(ascii: "T"):
                guard !inTime, number == nil else { return nil }
                inTime = true
            case UInt8(ascii: "W"):
                guard !inTime, let n = number else { return nil }
                days += Int(n) * 7; number = nil; sawPart = true
            case UInt8(ascii: "D"):
                guard !inTime, let n = number else { return nil }
                days += Int(n); number = nil; sawPart = true
            case UInt8(ascii: "H"):
                guard inTime, let n = number else { return nil }
                seconds += n * 3600; number = nil; sawPart = true
            case UInt8(ascii: "M"):
                guard inTime, let n = number else { return nil }
                seconds += n * 60; number = nil; sawPart = true
            case UInt8(ascii: "S"):
                guard inTime, let n = number else { return nil }
                seconds += n; number = nil; sawPart = true
            default:
                return nil
            }
        }
        guard sawPart, number == nil else { return nil }
        self.days = days * sign
        self.seconds = seconds * Int64(sign)
    }

    /// iCalendar text, e.g. "PT1H30M", "P2D", "-PT15M", "P1W" for whole weeks, "PT0S" for zero.
    public var iCalendarText: String {
        let negative = isNegative
        let d = abs(days)
        let s = abs(seconds)
        var text = negative ? "-P" : "P"
        if d == 0 && s == 0 { return "PT0S" }
        if s == 0 && d % 7 == 0 { return text + "\(d / 7)W" }
        if d > 0 { text += "\(d)D" }
        if s > 0 {
            text += "T"
            let h = s / 3600, m = s / 60 % 60, sec = s % 60
            if h > 0 { text += "\(h)H" }
            if m > 0 { text += "\(m)M" }
            if sec > 0 { text += "\(sec)S" }
        }
        return text
    }
}
