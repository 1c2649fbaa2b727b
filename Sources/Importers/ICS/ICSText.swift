#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading iCalendar TEXT values (RFC 5545 3.3.11): escapes and lists. (Writing: `ICSTextEscaping` in Exporters.)
package enum ICSText {
    /// Decodes `\\ \; \, \n \N`; any other backslash pair is kept as written.
    package static func unescape(_ value: String) -> String {
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
    package static func unescapeList(_ value: String) -> [String] {
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

    /// UTF-8 text as it is (`valid`). Anything else (`valid` false): text with UTF-8 sequences in it keeps them and
    /// each stray byte becomes U+FFFD; text with none is read as Windows-1252 (which Outlook and old Windows tools
    /// write; its bytes 0xA0-0xFF are Latin-1's). Decoding replaces each invalid sequence with U+FFFD, so the
    /// bytes come out unchanged exactly when they were valid UTF-8 (one fast pass instead of the generic
    /// `String(validating:)`).
    static func decode(_ b: UnsafeBufferPointer<UInt8>) -> (text: String, valid: Bool) {
        let decoded = String(decoding: b, as: UTF8.self)
        var check = decoded
        let valid = check.withUTF8 { u in
            u.count == b.count && (u.isEmpty || memcmp(u.baseAddress!, b.baseAddress!, u.count) == 0)
        }
        if valid { return (decoded, true) }
        if hasUTF8Sequence(b) { return (decoded, false) }
        var scalars = String.UnicodeScalarView()
        for c in b {
            if c >= 0x80, c < 0xA0, let mapped = Unicode.Scalar(windows1252[Int(c - 0x80)]) {
                scalars.append(mapped)
            } else {
                scalars.append(Unicode.Scalar(c))
            }
        }
        return (String(scalars), false)
    }

    /// Whether the bytes hold at least one well-formed UTF-8 sequence of two or more bytes.
    private static func hasUTF8Sequence(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < b.count {
            let c = b[i]
            let length = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? (c < 0xF0 ? 3 : 0) : c >= 0xC2 ? 2 : 0
            if length > 0, i + length <= b.count, (1..<length).allSatisfy({ b[i + $0] & 0xC0 == 0x80 }) { return true }
            i += 1
        }
        return false
    }

    /// Windows-1252's characters for the bytes 0x80-0x9F (the five it leaves undefined stay C1 controls, as
    /// WHATWG's decoder does).
    private static let windows1252: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// The text without leading and trailing spaces and tabs; the same string when there are none (no copy).
    package static func trimmed(_ text: String) -> String {
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
