/// iCalendar's basic date forms: "20260329", "20260329T020000", "20260329T010000Z".
package enum BasicDateText {
    /// Parses a date, a UTC date-time or a floating date-time. Zoned times are made by the caller.
    package static func parse(_ text: String) -> EventTime? {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int? {
            var n = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48, c <= 57 else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        guard b.count >= 8, let y = num(0, 4), let m = num(4, 2), let d = num(6, 2),
              let date = CivilDate.validated(year: y, month: m, day: d) else { return nil }
        if b.count == 8 { return .date(date) }
        guard b.count == 15 || (b.count == 16 && (b[15] == UInt8(ascii: "Z") || b[15] == UInt8(ascii: "z"))),
              b[8] == UInt8(ascii: "T") || b[8] == UInt8(ascii: "t"),
              let hh = num(9, 2), let mm = num(11, 2), let ss = num(13, 2), hh < 24, mm < 60, ss <= 60 else { return nil }
        // A leap second is read as the last second of the minute.
        let local = CivilDateTime(date: date, hour: hh, minute: mm, second: min(ss, 59))
        return b.count == 16 ? .utc(local.secondsSinceEpoch) : .floating(local)
    }

    /// Writes "20260329", "20260329T010000Z" (UTC) or "20260329T020000" (local wall clock of zoned/floating).
    package static func format(_ time: EventTime) -> String {
        switch time {
        case .date(let d): return d.basicFormat
        case .utc(let s): return CivilDateTime(secondsSinceEpoch: s).basicFormat + "Z"
        case .zoned(let local, _), .floating(let local): return local.basicFormat
        }
    }
}
