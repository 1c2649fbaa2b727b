import Pipeline

/// JSON written straight into a UTF-8 byte buffer: the same bytes `JSONWriter` writes for the same values
/// (keys in the order given, strings escaped as `JSONWriter.appendQuoted` does, integers without a fraction,
/// two-space indents when `pretty`), without building a `JSONValue` tree or a String on the way.
///
/// Containers are written by hand: `raw("{")`, then `key(_:level:first:)` before each member (it writes the
/// comma and, when pretty, the newline and indent), then `close(_:level:empty:)`. `level` is the indent
/// level of the container itself, as `JSONWriter.write(_:into:indent:)` takes it.
///
/// A class owning its buffer (not an Array): the JSON sink writes a few hundred small pieces per day entry,
/// and an Array's uniqueness and capacity checks on each append cost more than the bytes.
final class JSONBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    let pretty: Bool
    /// Attendee initials, worked out once per attendee list (`attendeesWithInitials`).
    let attendeeInitials = AttendeeInitials()

    init(pretty: Bool, capacity: Int = 1 << 12) {
        self.pretty = pretty
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far, valid until the next write.
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// A copy of the bytes written so far.
    var bytes: [UInt8] { Array(buffer) }

    func removeAll() {
        count = 0
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    private func grow(_ extra: Int) {
        let bigger = max(capacity * 2, count + extra)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        storage.update(from: base, count: count)
        base.deallocate()
        base = storage
        capacity = bigger
    }

    // MARK: Structure

    func raw(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    @inline(__always)
    func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// The UTF-8 of `text`, as is (no quotes, no escaping).
    func append(_ text: String) {
        Self.withUTF8(text) { append($0) }
    }

    /// Calls `body` with the text's UTF-8 bytes where the String keeps them (its contiguous storage), without
    /// the copy (and the retain and release of the storage) that `var copy = text; copy.withUTF8` costs.
    @inline(__always)
    static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return try copy.withUTF8(body)
    }

    /// When pretty: a newline and `level` two-space indents.
    func newline(_ level: Int) {
        guard pretty else { return }
        reserve(1 + 2 * level)
        base[count] = 0x0A
        (base + count + 1).update(repeating: 0x20, count: 2 * level)
        count += 1 + 2 * level
    }

    /// Before a member of the object at indent `level`: a comma unless it is the first, the newline and
    /// indent, the quoted key and the colon. `key` must need no escaping (plain ASCII letters and `_`).
    func key(_ key: StaticString, level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
        key.withUTF8Buffer { name in
            let n = name.count
            reserve(n + 4)
            base[count] = 0x22
            if let source = name.baseAddress { (base + count + 1).update(from: source, count: n) }
            base[count + n + 1] = 0x22
            base[count + n + 2] = 0x3A
            count += n + 3
        }
        if pretty { byte(0x20) }
    }

    /// As `key(_:level:first:)` for a key only known at run time (escaped).
    /// `"name": "value"` when the value is there; nothing when it is nil.
    func optionalQuoted(_ name: StaticString, _ value: String?, level: Int, first: inout Bool) {
        guard let value else { return }
        key(name, level: level, first: &first)
        quoted(value)
    }

    func key(_ key: String, level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
        quoted(key)
        byte(0x3A)
        if pretty { byte(0x20) }
    }

    /// Before an element of the array at indent `level`.
    func element(level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
    }

    /// Closes the container at indent `level` with `bracket` ("}" or "]"); an empty one stays on its line.
    func close(_ bracket: StaticString, level: Int, empty: Bool) {
        if !empty { newline(level) }
        raw(bracket)
    }

    // MARK: Values

    func null() { raw("null") }

    func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// The string quoted, or `null`.
    func string(_ text: String?) {
        if let text { quoted(text) } else { null() }
    }

    /// A JSON string, escaped by `JSONEscaping` (as `JSONWriter.appendQuoted` writes it).
    func quoted(_ text: String) {
        Self.withUTF8(text) { quoted($0) }
    }

    /// The UTF-8 text quoted and escaped as `quoted(_: String)` does.
    func quoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Room for the worst case, so the loop needs no checks.
        reserve(JSONEscaping.worstCase(utf8.count) + 2)
        var out = base + count
        out.pointee = 0x22
        out += 1
        if JSONEscaping.isPlain(utf8) {
            if let source = utf8.baseAddress { out.update(from: source, count: utf8.count) }
            out += utf8.count
        } else {
            out = JSONEscaping.escape(utf8, to: out)
        }
        out.pointee = 0x22
        count = out + 1 - base
    }

    /// `text` lowercased as `String.lowercased()` does, quoted.
    func quotedLowercased(_ text: String) {
        let lowered: Bool = Self.withUTF8(text) { utf8 in
            for u in utf8 where u >= 0x80 { return false }
            // ASCII: only A-Z change.
            reserve(utf8.count * 6 + 2)
            var out = base + count
            out.pointee = 0x22
            out += 1
            for u in utf8 {
                switch u {
                case 0x41...0x5A:
                    out.pointee = u | 0x20
                    out += 1
                case 0x22, 0x5C, 0..<0x20:
                    out = withUnsafePointer(to: u) { JSONEscaping.escape(UnsafeBufferPointer(start: $0, count: 1), to: out) }
                default:
                    out.pointee = u
                    out += 1
                }
            }
            out.pointee = 0x22
            count = out + 1 - base
            return true
        }
        if !lowered { quoted(text.lowercased()) }
    }

    /// An integer as `JSONWriter.numberText(Double(value))` writes it.
    func integer(_ value: Int64) {
        guard value > -1_000_000_000_000_000, value < 1_000_000_000_000_000 else { return append(JSONWriter.numberText(Double(value))) }
        if value < 0 { byte(0x2D) }
        digits(value.magnitude, width: 1)
    }

    /// A number as `JSONWriter.numberText` writes it.
    func number(_ n: Double) {
        if n == n.rounded(), abs(n) < 1e15 { return integer(Int64(n)) }
        append(JSONWriter.numberText(n))
    }

    /// The decimal digits of `value`, zero-padded to `width`.
    func digits(_ value: UInt64, width: Int) {
        var n = 1
        var rest = value / 10
        while rest > 0 {
            n += 1
            rest /= 10
        }
        n = max(n, width)
        reserve(n)
        var v = value
        var at = base + count + n
        for _ in 0..<n {
            at -= 1
            at.pointee = 0x30 + UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        count += n
    }

    /// Two digits of a value below 100.
    @inline(__always)
    private func twoDigits(_ v: Int) {
        reserve(2)
        base[count] = 0x30 + UInt8(truncatingIfNeeded: v / 10)
        base[count + 1] = 0x30 + UInt8(truncatingIfNeeded: v % 10)
        count += 2
    }

    // MARK: Dates and times (the text of CivilDate.iso8601, CivilDateTime.iso8601, Zone.offsetText)

    /// "YYYY-MM-DD", unquoted.
    func date(_ d: CivilDate) {
        let (y, m, day) = d.components
        guard y >= 0 else { return append(d.iso8601) }
        digits(UInt64(y), width: 4)
        byte(0x2D)
        twoDigits(m)
        byte(0x2D)
        twoDigits(day)
    }

    /// "YYYY-MM-DDTHH:MM:SS", unquoted.
    func dateTime(_ t: CivilDateTime) {
        date(t.date)
        byte(0x54)
        let s = t.secondOfDay
        twoDigits(s / 3600)
        byte(0x3A)
        twoDigits(s / 60 % 60)
        byte(0x3A)
        twoDigits(s % 60)
    }

    /// "HH:MM", unquoted.
    func shortTime(_ t: CivilDateTime) {
        let s = t.secondOfDay
        twoDigits(s / 3600)
        byte(0x3A)
        twoDigits(s / 60 % 60)
    }

    /// "+01:00" (`Zone.offsetText`), unquoted.
    func offset(_ seconds: Int) {
        byte(seconds < 0 ? 0x2D : 0x2B)
        let magnitude = UInt64(seconds.magnitude)
        digits(magnitude / 3600, width: 2)
        byte(0x3A)
        digits(magnitude / 60 % 60, width: 2)
        if magnitude % 60 != 0 {
            byte(0x3A)
            digits(magnitude % 60, width: 2)
        }
    }
}
