import Pipeline

/// Reads iCalendar DATE and DATE-TIME values ("20260329", "20260329T020000", "20260329T010000Z") straight from
/// a string's UTF-8 bytes, without allocating: the reader's hot path. Same results as `BasicDateText.parse`
/// (a leap second reads as second 59; "t" and "z" are accepted in lower case).
enum ICSDateText {
    static func parse(_ text: String) -> EventTime? {
        var text = text
        return text.withUTF8 { b -> EventTime? in
            @inline(__always) func num(_ from: Int, _ count: Int) -> Int? {
                var n = 0
                for i in from..<(from + count) {
                    let c = b[i]
                    guard c >= 48, c <= 57 else { return nil }
                    n = n * 10 + Int(c - 48)
                }
                return n
            }
            guard b.count == 8 || b.count == 15 || b.count == 16,
                  let y = num(0, 4), let m = num(4, 2), let d = num(6, 2),
                  let date = CivilDate.validated(year: y, month: m, day: d) else { return nil }
            if b.count == 8 { return .date(date) }
            guard b[8] == UInt8(ascii: "T") || b[8] == UInt8(ascii: "t"),
                  b.count == 15 || b[15] == UInt8(ascii: "Z") || b[15] == UInt8(ascii: "z"),
                  let hh = num(9, 2), let mm = num(11, 2), let ss = num(13, 2), hh < 24, mm < 60, ss <= 60 else { return nil }
            let local = CivilDateTime(date: date, hour: hh, minute: mm, second: min(ss, 59))
            return b.count == 16 ? .utc(local.secondsSinceEpoch) : .floating(local)
        }
    }
}
