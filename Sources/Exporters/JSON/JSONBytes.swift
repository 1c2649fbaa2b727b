import Pipeline

/// JSON written straight into a UTF-8 byte buffer: the same bytes `JSONWriter` writes for the same values
/// (keys in the order given, strings escaped as `JSONWriter.appendQuoted` does, integers without a fraction,
/// two-space indents when `pretty`), without building a `JSONValue` tree or a String on the way.
///
/// Containers are written by hand: `raw("{")`, then `key(_:level:first:)` before each member (it writes the
/// comma and, when pretty, the newline and indent), then `close(_:level:empty:)`. `level` is the indent
/// level of the container itself, as `JSONWriter.write(_:into:indent:)` takes it.
struct JSONBytes {
    var bytes: [UInt8] = []
    let pretty: Bool

    init(pretty: Bool, capacity: Int = 1 << 12) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Structure

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func byte(_ b: UInt8) {
        bytes.append(b)
    }

    /// The UTF-8 of `text`, as is (no quotes, no escaping).
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// When pretty: a newline and `level` two-space indents.
    mutating func newline(_ level: Int) {
        guard pretty else { return }
        bytes.append(0x0A)
        if level > 0 { bytes.append(contentsOf: repeatElement(0x20, count: 2 * level)) }
    }

    /// Before a member of the object at indent `level`: a comma unless it is the first, the newline and
    /// indent, the quoted key and the colon. `key` must need no escaping (plain ASCII letters and `_`).
    mutating func key(_ key: StaticString, level: Int, first: inout Bool) {
        if !first { bytes.append(0x2C) }
        first = false
        newline(level + 1)
        bytes.append(0x22)
        raw(key)
        bytes.append(0x22)
        bytes.append(0x3A)
        if pretty { bytes.append(0x20) }
    }

    /// As `key(_:level:first:)` for a key only known at run time (escaped).
    mutating func key(_ key: String, level: Int, first: inout Bool) {
        if !first { bytes.append(0x2C) }
        first = false
        newline(level + 1)
        quoted(key)
        bytes.append(0x3A)
        if pretty { bytes.append(0x20) }
    }

    /// Before an element of the array at indent `level`.
    mutating func element(level: Int, first: inout Bool) {
        if !first { bytes.append(0x2C) }
        first = false
        newline(level + 1)
    }

    /// Closes the container at indent `level` with `bracket` ("}" or "]"); an empty one stays on its line.
    mutating func close(_ bracket: StaticString, level: Int, empty: Bool) {
        if !empty { newline(level) }
        raw(bracket)
    }

    // MARK: Values

    mutating func null() { raw("null") }

    mutating func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// The string quoted, or `null`.
    mutating func string(_ text: String?) {
        if let text { quoted(text) } else { null() }
    }

    /// A JSON string, escaped as `JSONWriter.appendQuoted` does: `"` `\` and control characters (`\n`, `\r`,
    /// `\t`, else `\u00xx`); everything else, non-ASCII included, as is. (Byte by byte gives the same as
    /// scalar by scalar: no byte of a multi-byte UTF-8 sequence is below 0x80.)
    mutating func quoted(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { appendEscaped($0) }
        bytes.append(0x22)
    }

    /// `text` lowercased as `String.lowercased()` does, quoted.
    mutating func quotedLowercased(_ text: String) {
        var text = text
        let ascii = text.withUTF8 { utf8 in
            for u in utf8 where u >= 0x80 { return false }
            return true
        }
        guard ascii else { return quoted(text.lowercased()) }
        bytes.append(0x22)
        text.withUTF8 { utf8 in
            for u in utf8 {
                switch u {
                case 0x41...0x5A: bytes.append(u | 0x20)
                case 0x22, 0x5C, 0..<0x20: escape(u)
                default: bytes.append(u)
                }
            }
        }
        bytes.append(0x22)
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for i in 0..<utf8.count {
            let u = utf8[i]
            guard u < 0x20 || u == 0x22 || u == 0x5C else { continue }
            if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i])) }
            start = i + 1
            escape(u)
        }
        if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
    }

    /// The escape sequence of `"`, `\` or a control character.
    private mutating func escape(_ u: UInt8) {
        bytes.append(0x5C)
        switch u {
        case 0x22: bytes.append(0x22)
        case 0x5C: bytes.append(0x5C)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            raw("u00")
            bytes.append(Self.hexDigit(u >> 4))
            bytes.append(Self.hexDigit(u & 15))
        }
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? 0x30 + v : 0x61 + v - 10
    }

    /// An integer as `JSONWriter.numberText(Double(value))` writes it.
    mutating func integer(_ value: Int64) {
        guard value > -1_000_000_000_000_000, value < 1_000_000_000_000_000 else { return append(JSONWriter.numberText(Double(value))) }
        if value < 0 { bytes.append(0x2D) }
        digits(value.magnitude, width: 1)
    }

    /// A number as `JSONWriter.numberText` writes it.
    mutating func number(_ n: Double) {
        if n == n.rounded(), abs(n) < 1e15 { return integer(Int64(n)) }
        append(JSONWriter.numberText(n))
    }

    /// The decimal digits of `value`, zero-padded to `width`.
    mutating func digits(_ value: UInt64, width: Int) {
        var v = value
        var n = 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            repeat {
                n += 1
                buffer[24 - n] = 0x30 + UInt8(v % 10)
                v /= 10
            } while v > 0 || n < width
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(24 - n)...]))
        }
    }

    // MARK: Dates and times (the text of CivilDate.iso8601, CivilDateTime.iso8601, Zone.offsetText)

    /// "YYYY-MM-DD", unquoted.
    mutating func date(_ d: CivilDate) {
        let (y, m, day) = d.components
        guard y >= 0 else { return append(d.iso8601) }
        digits(UInt64(y), width: 4)
        bytes.append(0x2D)
        digits(UInt64(m), width: 2)
        bytes.append(0x2D)
        digits(UInt64(day), width: 2)
    }

    /// "YYYY-MM-DDTHH:MM:SS", unquoted.
    mutating func dateTime(_ t: CivilDateTime) {
        date(t.date)
        bytes.append(0x54)
        let s = t.secondOfDay
        digits(UInt64(s / 3600), width: 2)
        bytes.append(0x3A)
        digits(UInt64(s / 60 % 60), width: 2)
        bytes.append(0x3A)
        digits(UInt64(s % 60), width: 2)
    }

    /// "HH:MM", unquoted.
    mutating func shortTime(_ t: CivilDateTime) {
        let s = t.secondOfDay
        digits(UInt64(s / 3600), width: 2)
        bytes.append(0x3A)
        digits(UInt64(s / 60 % 60), width: 2)
    }

    /// "+01:00" (`Zone.offsetText`), unquoted.
    mutating func offset(_ seconds: Int) {
        bytes.append(seconds < 0 ? 0x2D : 0x2B)
        let magnitude = UInt64(seconds.magnitude)
        digits(magnitude / 3600, width: 2)
        bytes.append(0x3A)
        digits(magnitude / 60 % 60, width: 2)
        if magnitude % 60 != 0 {
            bytes.append(0x3A)
            digits(magnitude % 60, width: 2)
        }
    }
}
