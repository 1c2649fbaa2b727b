/// A stable identifier per day entry, for apps that key rows (list diffing, deep links): the same input
/// gives the same id on every run and machine; different occurrences and different days of one occurrence
/// get different ids.
///
/// It is the FNV-1a 64-bit hash, as 16 lower-case hex digits, of the entry's identity: the source's name,
/// the event's UID, the instance (its RECURRENCE-ID as the instant and offset its ISO text shows, none for a
/// single event) and the day. These are also the key columns of the SQLite sink's rows (`source`, `uid`,
/// `instance`, `day`), so `calpipe query` computes the same ids (`stableID(source:uid:instance:day:)`).
/// Titles, times of an override and the like are not part of it, so an edited event keeps its ids. Not a
/// secret and not collision-proof against a malicious feed: 64 bits keep accidental collisions unlikely.
extension DayEntry {
    public var stableID: String { StableHash.hexDigits(stableIDValue) }

    /// The id as a number (its 16 hex digits are `stableID`).
    public var stableIDValue: UInt64 {
        var hash = StableHash()
        occurrence.withEvent { event in
            hash.add(event.metadata["source"] ?? "")
            hash.add(event.uid)
        }
        hash.add(instance: occurrence.recurrenceID)
        hash.add(Int64(day.daysSinceEpoch))
        return hash.value
    }

    /// The id of the entry with this source, UID, instance (`EventTime.iso8601` text of its RECURRENCE-ID,
    /// "" for none) and day; nil when the instance text cannot be read.
    public static func stableIDValue(source: String, uid: String, instance: String, day: CivilDate) -> UInt64? {
        var time: EventTime?
        if !instance.isEmpty {
            guard let parsed = StableHash.instance(fromISO: instance) else { return nil }
            time = parsed
        }
        var hash = StableHash()
        hash.add(source)
        hash.add(uid)
        hash.add(instance: time)
        hash.add(Int64(day.daysSinceEpoch))
        return hash.value
    }
}

/// FNV-1a, 64 bits, over a sequence of fields (each followed by a separator byte, so "ab"+"c" and "a"+"bc" differ).
package struct StableHash {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// The hash of one text: FNV-1a 64 of its UTF-8 bytes and the separator byte 0xFF (`calpipe run --shard`, the
    /// postgres sink's advisory locks). Stable across processes, machines and calpipe versions.
    package static func of(_ text: String) -> UInt64 {
        var hash = StableHash()
        hash.add(text)
        return hash.value
    }

    @inline(__always)
    private mutating func byte(_ b: UInt8) {
        value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var v = value
            for b in bytes { v = (v ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            value = v
        }
        byte(0xFF)
    }

    mutating func add(_ n: Int64) {
        var v = UInt64(bitPattern: n)
        for _ in 0..<8 {
            byte(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        byte(0xFF)
    }

    /// The instance as its ISO text shows it: a date, a UTC time, a local time with its offset (zoned: the
    /// instant and the offset, not the zone's name), or a floating local time.
    mutating func add(instance t: EventTime?) {
        switch t {
        case nil:
            byte(0)
        case .date(let d)?:
            byte(1)
            add(Int64(d.daysSinceEpoch))
        case .utc(let s)?:
            byte(2)
            add(s)
        case .zoned(let l, let z)?:
            byte(3)
            let instant = z.utc(fromLocal: l)
            add(instant)
            add(Int64(z.offset(atUTC: instant)))
        case .floating(let l)?:
            byte(4)
            add(l.secondsSinceEpoch)
        }
        byte(0xFF)
    }

    /// Reads an instance key back (the `EventTime.iso8601` text the SQLite sink stores): "2026-11-10",
    /// "...T10:00:00Z", "...T10:00:00+01:00" (as a fixed-offset zone: the same instant and offset), "...T10:00:00"
    /// (floating).
    package static func instance(fromISO text: String) -> EventTime? {
        if text.count == 10 { return ISODate.parseDate(text).map(EventTime.date) }
        guard text.count >= 19, let local = ISODate.parseDate(String(text.prefix(10))).flatMap({ date -> CivilDateTime? in
            let clock = Array(text.utf8)[11..<19]
            guard let h = Int(String(decoding: clock[11..<13], as: UTF8.self)), let m = Int(String(decoding: clock[14..<16], as: UTF8.self)),
                  let s = Int(String(decoding: clock[17..<19], as: UTF8.self)) else { return nil }
            return CivilDateTime(secondsSinceEpoch: CivilDateTime(date: date).secondsSinceEpoch + Int64(h * 3600 + m * 60 + s))
        }) else { return nil }
        let rest = text.dropFirst(19)
        if rest.isEmpty { return .floating(local) }
        if rest == "Z" { return .utc(local.secondsSinceEpoch) }
        let sign: Int = rest.first == "-" ? -1 : 1
        let parts = rest.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard rest.first == "+" || rest.first == "-", parts.count >= 2 else { return nil }
        let offset = sign * (parts[0] * 3600 + parts[1] * 60 + (parts.count > 2 ? parts[2] : 0))
        return .zoned(local, Zone.fixed(offsetSeconds: offset))
    }

    static func hexDigits(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 16)
        var v = value
        for i in (0..<16).reversed() {
            out[i] = digits[Int(v & 15)]
            v >>= 4
        }
        return String(decoding: out, as: UTF8.self)
    }
}
