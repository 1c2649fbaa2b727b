#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading iCalendar TEXT values (RFC 5545 3.3.11): escapes and lists. (Writing: `ICSTextEscaping` in Exporters.)
public enum ICSText {
    /// Decodes `\\ \; \, \n \N`; any other backslash pair is kept as written.
    public static func unescape(_ value: String) -> String {
        var value = value
        let unescaped = value.withUTF8 { b -> String? in
            guard let base = b.baseAddress, let hit = memchr(base, 0x5C, b.count) else { return nil }
            let first = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            return String(unsafeUninitializedCapacity: b.count) { out in
                var o = 0
                for k in 0..<first { out[k] = b[k] }
                o = first
                var k = first
                while k < b.count {
                    let c = b[k]
                    if c == 0x5C, k + 1 < b.count {
                        let next = b[k + 1]
                        switch next {
                        case 0x6E, 0x4E: out[o] = 0x0A; o += 1; k += 2; continue
                        case 0x5C, 0x3B, 0x2C: out[o] = next; o += 1; k += 2; continue
                        default: break
                        }
                    }
                    out[o] = c
                    o += 1
                    k += 1
                }
                return o
            }
        }
        // No escapes: the same string, no copy.
        return unescaped ?? value
    }

    /// Splits a list value (CATEGORIES, RESOURCES) on commas that are not escaped, then unescapes each item.
    public static func unescapeList(_ value: String) -> [String] {
        var value = value
        // Byte offsets of the separating commas (escape pairs such as "\\," stay inside their item).
        var cuts: [Int] = []
        value.withUTF8 { b in
            var escaped = false
            for k in 0..<b.count {
                let c = b[k]
                if escaped {
                    escaped = false
                } else if c == 0x5C {
                    escaped = true
                } else if c == 0x2C {
                    cuts.append(k)
                }
            }
        }
        let u = value.utf8
        var items: [String] = []
        items.reserveCapacity(cuts.count + 1)
        var from = u.startIndex
        // Cuts sit on ASCII commas: the slices are valid UTF-8 and need no re-validation.
        for cut in cuts {
            let to = u.index(u.startIndex, offsetBy: cut)
            items.append(unescape(String(Substring(u[from..<to]))))
            from = u.index(after: to)
        }
        items.append(unescape(String(Substring(u[from...]))))
        return items
    }

    /// The text without leading and trailing spaces and tabs; the same string when there are none (no copy).
    /// UTF-8 text as it is; anything else read as Latin-1 (`valid` false). Decoding replaces each invalid
    /// sequence with U+FFFD, so the bytes come out unchanged exactly when they were valid UTF-8 (one fast pass
    /// instead of the generic `String(validating:)`).
    static func decode(_ b: UnsafeBufferPointer<UInt8>) -> (text: String, valid: Bool) {
        let decoded = String(decoding: b, as: UTF8.self)
        var check = decoded
        let valid = check.withUTF8 { u in
            u.count == b.count && (u.isEmpty || memcmp(u.baseAddress!, b.baseAddress!, u.count) == 0)
        }
        if valid { return (decoded, true) }
        return (String(b.map { Character(Unicode.Scalar($0)) }), false)
    }

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
}
