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
}
