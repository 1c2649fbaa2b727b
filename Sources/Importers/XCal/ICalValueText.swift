import Pipeline

/// Conversions between the value forms of xCal/jCal (RFC 6321 3.6, RFC 7265 3.5) and iCalendar text.
enum ICalValueText {
    /// "2006-01-02" -> "20060102"; nil when the text is not that form.
    /// A value that does not have the form its type asks for, handed on as written (line breaks as spaces) for
    /// the iCalendar reader to judge: it repairs what it can (an unreadable RDATE/EXDATE value or rule is left
    /// out with a warning) and rejects what it cannot (DTSTART), with the same messages for all three formats.
    static func unreadable(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }

    static func basicDate(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        let digits = b[0..<4] + b[5..<7] + b[8..<10]
        guard digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let basic = String(decoding: digits, as: UTF8.self)
        guard case .date? = BasicDateText.parse(basic) else { return nil }
        return basic
    }

    /// "12:00:00" / "12:00:00Z" -> "120000" / "120000Z".
    static func basicTime(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 8 || (b.count == 9 && b[8] == UInt8(ascii: "Z")), b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: ":") else { return nil }
        let digits = b[0..<2] + b[3..<5] + b[6..<8]
        guard digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: digits, as: UTF8.self) + (b.count == 9 ? "Z" : "")
    }

    /// "2006-01-02T12:00:00(Z)" -> "20060102T120000(Z)".
    static func basicDateTime(_ text: String) -> String? {
        guard let t = text.firstIndex(of: "T"), let date = basicDate(String(text[..<t])),
              let time = basicTime(String(text[text.index(after: t)...])) else { return nil }
        return date + "T" + time
    }

    /// A date or a date-time (RDATE/EXDATE/UNTIL values, period starts).
    static func basicDateOrDateTime(_ text: String) -> String? {
        text.contains("T") ? basicDateTime(text) : basicDate(text)
    }

    /// "-05:00" -> "-0500", "+05:45:30" -> "+054530".
    static func basicUTCOffset(_ text: String) -> String? {
        let b = Array(text.utf8)
        guard b.count == 6 || b.count == 9, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":") else { return nil }
        var out = [b[0]] + b[1..<3] + b[4..<6]
        if b.count == 9 {
            guard b[6] == UInt8(ascii: ":") else { return nil }
            out += b[7..<9]
        }
        guard out.dropFirst().allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// "20060102" -> "2006-01-02".
    static func extendedDate(_ basic: String) -> String? {
        let b = Array(basic.utf8)
        guard b.count == 8, b.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: b[0..<4], as: UTF8.self) + "-" + String(decoding: b[4..<6], as: UTF8.self) + "-" + String(decoding: b[6..<8], as: UTF8.self)
    }

    /// "120000Z" -> "12:00:00Z".
    static func extendedTime(_ basic: String) -> String? {
        let b = Array(basic.utf8)
        guard b.count == 6 || (b.count == 7 && b[6] == UInt8(ascii: "Z")), b[0..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: b[0..<2], as: UTF8.self) + ":" + String(decoding: b[2..<4], as: UTF8.self) + ":"
            + String(decoding: b[4..<6], as: UTF8.self) + (b.count == 7 ? "Z" : "")
    }

    /// "20060102T120000Z" -> "2006-01-02T12:00:00Z".
    static func extendedDateTime(_ basic: String) -> String? {
        guard let t = basic.firstIndex(of: "T"), let date = extendedDate(String(basic[..<t])),
              let time = extendedTime(String(basic[basic.index(after: t)...])) else { return nil }
        return date + "T" + time
    }

    static func extendedDateOrDateTime(_ basic: String) -> String? {
        basic.contains("T") ? extendedDateTime(basic) : extendedDate(basic)
    }

    /// "-0500" -> "-05:00".
    static func extendedUTCOffset(_ basic: String) -> String? {
        let b = Array(basic.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"),
              b.dropFirst().allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var out = String(decoding: b[0..<3], as: UTF8.self) + ":" + String(decoding: b[3..<5], as: UTF8.self)
        if b.count == 7 { out += ":" + String(decoding: b[5..<7], as: UTF8.self) }
        return out
    }

    /// The RECUR parts in RFC 5545 order ("FREQ=..;COUNT=..") as (name, values) pairs.
    static func recurParts(_ text: String) -> [(String, [String])] {
        text.split(separator: ";").compactMap { part in
            guard let eq = part.firstIndex(of: "=") else { return nil }
            return (String(part[..<eq]).uppercased(), part[part.index(after: eq)...].split(separator: ",").map(String.init))
        }
    }

    /// Splits a period "start/end-or-duration".
    static func periodParts(_ text: String) -> (String, String)? {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        return (String(text[..<slash]), String(text[text.index(after: slash)...]))
    }
}
