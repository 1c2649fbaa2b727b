import Pipeline

/// HTTP dates (RFC 9110 5.6.7): the preferred IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", and the two
/// obsolete forms a recipient must still read: RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT" and asctime
/// "Sun Nov  6 08:49:37 1994". Returns seconds since 1970, or nil for anything else.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    package static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if let comma = trimmed.firstIndex(of: ",") {
            let rest = trimmed[trimmed.index(after: comma)...].split(separator: " ", omittingEmptySubsequences: true)
            if rest.count == 5 {
                // IMF-fixdate: day month year time GMT
                guard rest[4].uppercased() == "GMT", let day = Int(rest[0]), let month = month(rest[1]), let year = Int(rest[2]) else { return nil }
                return instant(year: year, month: month, day: day, time: rest[3])
            }
            if rest.count == 3 {
                // RFC 850: dd-Mon-yy time GMT
                guard rest[2].uppercased() == "GMT" else { return nil }
                let parts = rest[0].split(separator: "-")
                guard parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]), var year = Int(parts[2]) else { return nil }
                if parts[2].count == 2 { year += year < 70 ? 2000 : 1900 }
                return instant(year: year, month: month, day: day, time: rest[1])
            }
            return nil
        }
        // asctime: Sun Nov  6 08:49:37 1994
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 5, let month = month(parts[1]), let day = Int(parts[2]), let year = Int(parts[4]) else { return nil }
        return instant(year: year, month: month, day: day, time: parts[3])
    }

    private static func month(_ text: Substring) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    private static func instant(year: Int, month: Int, day: Int, time: Substring) -> Int64? {
        let hms = time.split(separator: ":")
        guard hms.count == 3, let h = Int(hms[0]), let m = Int(hms[1]), let s = Int(hms[2]),
              (0...23).contains(h), (0...59).contains(m), (0...60).contains(s),
              let date = CivilDate.validated(year: year, month: month, day: day) else { return nil }
        return CivilDateTime(date: date, hour: h, minute: m, second: min(s, 59)).secondsSinceEpoch
    }

    /// IMF-fixdate text for an instant.
    package static func format(_ seconds: Int64) -> String {
        let t = CivilDateTime(secondsSinceEpoch: seconds)
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let (y, mo, d) = t.date.components
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(names[t.date.isoWeekday - 1]), \(two(d)) \(monthNames[mo - 1]) \(y) \(two(t.hour)):\(two(t.minute)):\(two(t.second)) GMT"
    }
}
