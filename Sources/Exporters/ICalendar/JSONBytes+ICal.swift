import Pipeline

/// What the xCal and jCal writers add to the byte writer: names, XML text, extended date forms.
extension JSONBytes {
    /// `count` spaces.
    func spaces(_ count: Int) {
        for _ in 0..<count { byte(0x20) }
    }

    /// An iCalendar name lower case, as xCal elements and jCal names are written; characters other than letters,
    /// digits and "-" become "-", as the iCalendar writer writes them (an empty name is "x-").
    func lowercasedName(_ name: String) {
        if name.isEmpty { return raw("x-") }
        Self.withUTF8(name) { utf8 in
            for c in utf8 {
                switch c {
                case 0x41...0x5A: byte(c + 32)
                case 0x61...0x7A, 0x30...0x39, 0x2D: byte(c)
                default: byte(0x2D)
                }
            }
        }
    }

    /// A quoted JSON string of a lower-case name.
    func quotedName(_ name: String) {
        byte(0x22)
        lowercasedName(name)
        byte(0x22)
    }

    /// Text for XML 1.0 character data: `& < > "` escaped, a line break (CRLF, CR or LF) as LF, tab kept,
    /// other control characters and U+FFFE/U+FFFF (which XML cannot carry) dropped.
    func xmlText(_ text: String) {
        Self.withUTF8(text) { utf8 in
            var plain = true
            for c in utf8 where c < 0x20 || c == 0x26 || c == 0x3C || c == 0x3E || c == 0x22 || c == 0xEF {
                plain = false
                break
            }
            if plain { return append(utf8) }
            var i = 0
            let n = utf8.count
            while i < n {
                let c = utf8[i]
                switch c {
                case 0x26: raw("&amp;")
                case 0x3C: raw("&lt;")
                case 0x3E: raw("&gt;")
                case 0x22: raw("&quot;")
                case 0x0A, 0x09: byte(c)
                case 0x0D: if i + 1 >= n || utf8[i + 1] != 0x0A { byte(0x0A) }
                case 0xEF where i + 2 < n && utf8[i + 1] == 0xBF && (utf8[i + 2] == 0xBE || utf8[i + 2] == 0xBF):
                    i += 3
                    continue
                default:
                    if c >= 0x20 && c != 0x7F { byte(c) }
                }
                i += 1
            }
        }
    }

    /// A TEXT value as JSON: line breaks (CRLF, CR, LF) as `\n`, other control characters but tab dropped,
    /// as the iCalendar writer keeps them.
    func quotedText(_ text: String) {
        let clean: Bool = Self.withUTF8(text) { utf8 in
            for c in utf8 where (c < 0x20 && c != 0x0A && c != 0x09) || c == 0x7F { return false }
            return true
        }
        if clean { return quoted(text) }
        var bytes: [UInt8] = []
        var previousCR = false
        for c in text.utf8 {
            switch c {
            case 0x0D: bytes.append(0x0A); previousCR = true; continue
            case 0x0A: if !previousCR { bytes.append(c) }
            case 0x09: bytes.append(c)
            case 0x00..<0x20, 0x7F: break
            default: bytes.append(c)
            }
            previousCR = false
        }
        quoted(String(decoding: bytes, as: UTF8.self))
    }

    /// A date or date-time in extended form: "2006-01-02", "2006-01-02T12:00:00", "...Z" for UTC (unquoted).
    func extended(_ t: EventTime) {
        switch t {
        case .date(let d): date(d)
        case .utc(let s): dateTime(CivilDateTime(secondsSinceEpoch: s)); byte(0x5A)
        case .zoned(let local, _), .floating(let local): dateTime(local)
        }
    }
}

extension ICalValue {
    /// The xCal/jCal value type of a typed value.
    var typeName: StaticString {
        switch self {
        case .text, .texts: return "text"
        case .verbatim(let type, _): return type
        case .time(let t): return t.isDate ? "date" : "date-time"
        case .period, .periodWithDuration: return "period"
        case .duration: return "duration"
        case .recur: return "recur"
        case .geo: return "float"
        case .utcOffset: return "utc-offset"
        case .raw: return "unknown"
        }
    }

    /// A rule's parts as xCal/jCal write them: lower-case names, values split on commas, UNTIL in extended form.
    static func recurParts(_ rule: RecurrenceRule) -> [(name: String, values: [String])] {
        rule.text.split(separator: ";").compactMap { part in
            guard let eq = part.firstIndex(of: "=") else { return nil }
            let key = part[..<eq].lowercased()
            var values = part[part.index(after: eq)...].split(separator: ",").map(String.init)
            if key == "until", let u = values.first.flatMap(ICalRawValue.extendedDateOrDateTime) { values = [u] }
            return (key, values)
        }
    }
}

extension [Parameter] {
    /// Without VALUE: xCal and jCal carry the type apart.
    var withoutValueType: [Parameter] {
        guard contains(where: { $0.name.utf8.count == 5 && $0.name.uppercased() == "VALUE" }) else { return self }
        return filter { $0.name.uppercased() != "VALUE" }
    }
}
