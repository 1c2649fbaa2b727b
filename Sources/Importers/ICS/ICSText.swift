/// Reading iCalendar TEXT values (RFC 5545 3.3.11): escapes and lists. (Writing: `ICSTextEscaping` in Exporters.)
public enum ICSText {
    /// Decodes `\\ \; \, \n \N`; any other backslash pair is kept as written.
    public static func unescape(_ value: String) -> String {
        guard value.utf8.contains(0x5C) else { return value }
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        var escaped = false
        for c in value.utf8 {
            if escaped {
                switch c {
                case 0x6E, 0x4E: out.append(0x0A)
                case 0x5C, 0x3B, 0x2C: out.append(c)
                default: out.append(0x5C); out.append(c)
                }
                escaped = false
            } else if c == 0x5C {
                escaped = true
            } else {
                out.append(c)
            }
        }
        if escaped { out.append(0x5C) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Splits a list value (CATEGORIES, RESOURCES) on commas that are not escaped, then unescapes each item.
    public static func unescapeList(_ value: String) -> [String] {
        var items: [String] = []
        var current: [UInt8] = []
        var escaped = false
        for c in value.utf8 {
            if escaped {
                current.append(0x5C); current.append(c); escaped = false
            } else if c == 0x5C {
                escaped = true
            } else if c == 0x2C {
                items.append(unescape(String(decoding: current, as: UTF8.self))); current.removeAll(keepingCapacity: true)
            } else {
                current.append(c)
            }
        }
        if escaped { current.append(0x5C) }
        items.append(unescape(String(decoding: current, as: UTF8.self)))
        return items
    }

    /// The text without leading and trailing spaces and tabs; the same string when there are none (no copy).
    public static func trimmed(_ text: String) -> String {
        let u = text.utf8
        guard let first = u.first, let last = u.last else { return text }
        if first != 0x20, first != 0x09, last != 0x20, last != 0x09 { return text }
        var start = u.startIndex
        var end = u.endIndex
        while start < end, u[start] == 0x20 || u[start] == 0x09 { start = u.index(after: start) }
        while end > start, u[u.index(before: end)] == 0x20 || u[u.index(before: end)] == 0x09 { end = u.index(before: end) }
        return String(text[start..<end])
    }

    /// True when `text` starts with the ASCII `prefix`, ignoring case.
    public static func hasPrefixIgnoringCase(_ text: String, _ prefix: StaticString) -> Bool {
        let p = prefix.utf8Start
        let count = prefix.utf8CodeUnitCount
        var i = 0
        for c in text.utf8 {
            if i == count { return true }
            let upper = (c >= 0x61 && c <= 0x7A) ? c - 32 : c
            let expected = (p[i] >= 0x61 && p[i] <= 0x7A) ? p[i] - 32 : p[i]
            if upper != expected { return false }
            i += 1
        }
        return i == count
    }
}
