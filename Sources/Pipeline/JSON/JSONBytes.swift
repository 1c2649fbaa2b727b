/// calpipe's one JSON writer: JSON written straight into a UTF-8 byte buffer. `JSONWriter` walks a `JSONValue`
/// tree into it; the JSON sinks (`JSONBytes+Events`, `+AgendaDay`) and the sqlite sink's JSON columns
/// (`SQLiteJSONText`) write their values into it directly, without a tree or a String on the way. Keys in the
/// order given, strings escaped by `JSONEscaping`, numbers as `JSONWriter.numberText` (integers without a
/// fraction), two-space indents when `pretty`.
///
/// Containers are written by hand: `raw("{")`, then `key(_:level:first:)` before each member (it writes the
/// comma and, when pretty, the newline and indent), then `close(_:level:empty:)`. `level` is the indent
/// level of the container itself.
///
/// A class owning its buffer (not an Array): the JSON sink writes a few hundred small pieces per day entry,
/// and an Array's uniqueness and capacity checks on each append cost more than the bytes. Inlinable, so the
/// sinks in other modules write as fast as from inside this one: that is why the class is `public` (its members
/// are `package`): the compiler inlines no `@inlinable` member of a `package` type into another module.
///
/// The buffer's state sits behind a pointer the class owns, not in stored `var`s: the sinks live in other
/// modules, where every write to a class's stored property is checked for exclusive access at run time (that
/// check cost more than the JSON).
public final class JSONBytes {
    @usableFromInline struct State {
        @usableFromInline var base: UnsafeMutablePointer<UInt8>
        @usableFromInline var capacity: Int
        /// Bytes written so far.
        @usableFromInline var length: Int
    }

    @usableFromInline let state: UnsafeMutablePointer<State>
    @usableFromInline package let pretty: Bool

    package init(pretty: Bool, capacity: Int = 1 << 12) {
        self.pretty = pretty
        let capacity = max(capacity, 64)
        state = .allocate(capacity: 1)
        state.initialize(to: State(base: .allocate(capacity: capacity), capacity: capacity, length: 0))
    }

    deinit {
        state.pointee.base.deallocate()
        state.deallocate()
    }

    @inlinable var base: UnsafeMutablePointer<UInt8> { state.pointee.base }

    @inlinable var length: Int {
        get { state.pointee.length }
        set { state.pointee.length = newValue }
    }

    @inlinable package var count: Int { length }

    /// The bytes written so far, valid until the next write.
    @inlinable package var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: length) }

    /// A copy of the bytes written so far.
    package var bytes: [UInt8] { Array(buffer) }

    /// The text written so far.
    package var string: String { String(decoding: buffer, as: UTF8.self) }

    @inlinable package func removeAll() { length = 0 }

    /// Room for `extra` more bytes.
    @inlinable @inline(__always)
    func reserve(_ extra: Int) {
        if length + extra > state.pointee.capacity { grow(extra) }
    }

    @usableFromInline func grow(_ extra: Int) {
        let bigger = max(state.pointee.capacity * 2, length + extra)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        storage.update(from: base, count: length)
        base.deallocate()
        state.pointee.base = storage
        state.pointee.capacity = bigger
    }

    // MARK: Structure

    @inlinable package func raw(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    @inlinable @inline(__always)
    package func byte(_ b: UInt8) {
        reserve(1)
        base[length] = b
        length += 1
    }

    @inlinable package func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + length).update(from: source, count: bytes.count)
        length += bytes.count
    }

    /// The UTF-8 of `text`, as is (no quotes, no escaping).
    @inlinable package func append(_ text: String) {
        Self.withUTF8(text) { append($0) }
    }

    /// Calls `body` with the text's UTF-8 bytes where the String keeps them (its contiguous storage), without
    /// the copy (and the retain and release of the storage) that `var copy = text; copy.withUTF8` costs.
    @inlinable @inline(__always)
    package static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return try copy.withUTF8(body)
    }

    /// When pretty: a newline and `level` two-space indents.
    @inlinable package func newline(_ level: Int) {
        guard pretty else { return }
        // The line feed and up to 7 spaces (the indents of the events document) as one word, stored whole:
        // what lies past the indent is overwritten by what follows (a call to memset cost more than the bytes).
        reserve(8 + 2 * level)
        let out = base + length
        UnsafeMutableRawPointer(out).storeBytes(of: UInt64(littleEndian: 0x2020_2020_2020_200A), as: UInt64.self)
        if level > 3 { (out + 8).update(repeating: 0x20, count: 2 * level - 7) }
        length += 1 + 2 * level
    }

    /// Before a member of the object at indent `level`: a comma unless it is the first, the newline and
    /// indent, the quoted key and the colon. `key` must need no escaping (plain ASCII letters and `_`).
    @inlinable package func key(_ key: StaticString, level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
        key.withUTF8Buffer { name in
            let n = name.count
            reserve(n + 4)
            base[length] = 0x22
            if let source = name.baseAddress { (base + length + 1).update(from: source, count: n) }
            base[length + n + 1] = 0x22
            base[length + n + 2] = 0x3A
            length += n + 3
        }
        if pretty { byte(0x20) }
    }

    /// `"name": "value"` when the value is there; nothing when it is nil.
    @inlinable package func optionalQuoted(_ name: StaticString, _ value: String?, level: Int, first: inout Bool) {
        guard let value else { return }
        key(name, level: level, first: &first)
        quoted(value)
    }

    /// As `key(_:level:first:)` for a key only known at run time (escaped).
    @inlinable package func key(_ key: String, level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
        quoted(key)
        byte(0x3A)
        if pretty { byte(0x20) }
    }

    /// Before an element of the array at indent `level`.
    @inlinable package func element(level: Int, first: inout Bool) {
        if !first { byte(0x2C) }
        first = false
        newline(level + 1)
    }

    /// Closes the container at indent `level` with `bracket` ("}" or "]"); an empty one stays on its line.
    @inlinable package func close(_ bracket: StaticString, level: Int, empty: Bool) {
        if !empty { newline(level) }
        raw(bracket)
    }

    // MARK: Values

    @inlinable package func null() { raw("null") }

    @inlinable package func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// The string quoted, or `null`.
    @inlinable package func string(_ text: String?) {
        if let text { quoted(text) } else { null() }
    }

    /// A JSON string, escaped by `JSONEscaping`.
    @inlinable package func quoted(_ text: String) {
        Self.withUTF8(text) { quoted($0) }
    }

    /// The UTF-8 text quoted and escaped as `quoted(_: String)` does.
    @inlinable package func quoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Room for the worst case, so the loop needs no checks.
        reserve(JSONEscaping.worstCase(utf8.count) + 2)
        var out = base + length
        out.pointee = 0x22
        out += 1
        // One pass: checked and copied together (a check, then a copy, read every byte twice).
        out = JSONEscaping.escape(utf8, to: out)
        out.pointee = 0x22
        length = out + 1 - base
    }

    /// `text` lowercased as `String.lowercased()` does, quoted.
    @inlinable package func quotedLowercased(_ text: String) {
        let lowered: Bool = Self.withUTF8(text) { utf8 in
            for u in utf8 where u >= 0x80 { return false }
            // ASCII: only A-Z change.
            reserve(JSONEscaping.worstCase(utf8.count) + 2)
            var out = base + length
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
            length = out + 1 - base
            return true
        }
        if !lowered { quoted(text.lowercased()) }
    }

    /// An integer as `number(Double(value))` writes it.
    @inlinable package func integer(_ value: Int64) {
        guard value > -1_000_000_000_000_000, value < 1_000_000_000_000_000 else { return numberText(Double(value)) }
        if value < 0 { byte(0x2D) }
        digits(value.magnitude, width: 1)
    }

    /// A number as `JSONWriter.numberText` writes it: integers (below 1e15) without a fraction, NaN and the
    /// infinities as `null`, other numbers in Swift's shortest round-trip form.
    @inlinable package func number(_ n: Double) {
        if n == n.rounded(), abs(n) < 1e15 { return integer(Int64(n)) }
        numberText(n)
    }

    @usableFromInline func numberText(_ n: Double) {
        append(JSONWriter.numberText(n))
    }

    /// The decimal digits of `value`, zero-padded to `width`.
    @inlinable package func digits(_ value: UInt64, width: Int) {
        var n = 1
        var rest = value / 10
        while rest > 0 {
            n += 1
            rest /= 10
        }
        n = max(n, width)
        reserve(n)
        var v = value
        var at = base + length + n
        for _ in 0..<n {
            at -= 1
            at.pointee = 0x30 + UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        length += n
    }

    /// Two digits of a value below 100.
    @inlinable @inline(__always)
    func twoDigits(_ v: Int) {
        reserve(2)
        base[length] = 0x30 + UInt8(truncatingIfNeeded: v / 10)
        base[length + 1] = 0x30 + UInt8(truncatingIfNeeded: v % 10)
        length += 2
    }

    // MARK: Dates and times (the text of CivilDate.iso8601, CivilDateTime.iso8601, Zone.offsetText)

    /// "YYYY-MM-DD", unquoted.
    @inlinable package func date(_ d: CivilDate) {
        let (y, m, day) = d.components
        guard y >= 0 else { return append(d.iso8601) }
        digits(UInt64(y), width: 4)
        byte(0x2D)
        twoDigits(m)
        byte(0x2D)
        twoDigits(day)
    }

    /// "YYYY-MM-DDTHH:MM:SS", unquoted.
    @inlinable package func dateTime(_ t: CivilDateTime) {
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
    @inlinable package func shortTime(_ t: CivilDateTime) {
        let s = t.secondOfDay
        twoDigits(s / 3600)
        byte(0x3A)
        twoDigits(s / 60 % 60)
    }

    /// "+01:00" (`Zone.offsetText`), unquoted.
    @inlinable package func offset(_ seconds: Int) {
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
