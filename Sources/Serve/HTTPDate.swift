import Foundation
import Pipeline

/// HTTP dates (RFC 9110 5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`), made and read with `CivilDate`.
enum HTTPDate {
    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func string(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = CivilDate(daysSinceEpoch: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let clock = seconds - day.daysSinceEpoch * 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekdays[day.isoWeekday - 1]), \(two(day.day)) \(months[day.month - 1]) \(day.year) "
            + "\(two(clock / 3600)):\(two(clock / 60 % 60)):\(two(clock % 60)) GMT"
    }

    /// An IMF-fixdate; nil for anything else (the obsolete forms are not sent by today's clients).
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let d = Int(parts[1]), let m = months.firstIndex(of: String(parts[2])), let y = Int(parts[3]),
              let day = CivilDate.validated(year: y, month: m + 1, day: d) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }
}
