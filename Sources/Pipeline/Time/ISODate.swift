/// ISO-8601 / RFC 3339 text as feeds write it: "2026-11-23", "2026-11-23T09:00", "2026-11-23T09:00:00+01:00",
/// "2026-11-23T08:00:00Z", "2026-11-23 09:00:00.250Z" (fractions are dropped). Byte-level, no Foundation formatters.
public enum ISODate {
    public enum Parsed: Equatable {
        case date(CivilDate)
        case local(CivilDateTime)
        /// With an offset: the instant and the offset it was written with.
        case instant(Int64, offsetSeconds: Int)
    }

    public static func parseDate(_ text: String) -> CivilDate? {
        if case .date(let d)? = parse(text) { return d }
        return nil
    }

    public static func parse(_ text: String) -> Parsed? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += n
            return v
        }
        func accept(_ c: Character) -> Bool {
            if i < b.count, b[i] == c.asciiValue! { i += 1; return true }
            return false
        }
        guard let y = digits(4) else { return nil }
        let extended = accept("-")
        guard let m = digits(2) else { return nil }
        if extended { guard accept("-") else { return nil } }
        guard let d = digits(2), let date = CivilDate.validated(year: y, month: m, day: d) else { return nil }
        if i == b.count { return .date(date) }
        guard accept("T") || accept("t") || accept(" ") else { return nil }
        guard let hh = digits(2), hh <= 24 else { return nil }
        if extended { guard accept(":") else { return nil } }
        guard let mm = digits(2), mm < 60 else { return nil }
        var ss = 0
        if i < b.count, extended ? b[i] == UInt8(ascii: ":") : (b[i] >= 48 && b[i] <= 57) {
            if extended { i += 1 }
            guard let s = digits(2), s <= 60 else { return nil }
            ss = min(s, 59)
        }
        if accept(".") || accept(",") {
            var any = false
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1; any = true }
            guard any else { return nil }
        }
        if hh == 24 && (mm != 0 || ss != 0) { return nil }
        let local = CivilDateTime(date: date, hour: 0, minute: mm, second: ss).adding(seconds: Int64(hh) * 3600)
        if i == b.count { return .local(local) }
        if accept("Z") || accept("z") {
            return i == b.count ? .instant(local.secondsSinceEpoch, offsetSeconds: 0) : nil
        }
        guard i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
        let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let oh = digits(2), oh <= 18 else { return nil }
        _ = accept(":")
        var om = 0
        if i < b.count { guard let v = digits(2), v < 60 else { return nil }; om = v }
        guard i == b.count else { return nil }
        let offset = sign * (oh * 3600 + om * 60)
        return .instant(local.secondsSinceEpoch - Int64(offset), offsetSeconds: offset)
    }
}
