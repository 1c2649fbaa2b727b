/// A stable identifier per day entry, for apps that key rows (list diffing, deep links): the same input
/// gives the same id on every run and machine; different occurrences and different days of one occurrence
/// get different ids.
///
/// It is the FNV-1a 64-bit hash, as 16 lower-case hex digits, of the entry's identity: the source's name,
/// the event's UID, the instance (RECURRENCE-ID, else the occurrence's start as written: local time and
/// zone name, UTC, floating or date) and the day. Titles, times of an override and the like are not part
/// of it, so an edited event keeps its ids. Not a secret and not collision-proof against a malicious feed:
/// 64 bits keep accidental collisions unlikely (about 1 in 10^8 for a million entries).
extension DayEntry {
    public var stableID: String { StableHash.hexDigits(stableIDValue) }

    /// The id as a number (its 16 hex digits are `stableID`).
    public var stableIDValue: UInt64 {
        var hash = StableHash()
        occurrence.withEvent { event in
            hash.add(event.metadata["source"] ?? "")
            hash.add(event.uid)
        }
        hash.add(occurrence.recurrenceID ?? occurrence.start)
        hash.add(Int64(day.daysSinceEpoch))
        return hash.value
    }
}

/// FNV-1a, 64 bits, over a sequence of fields (each followed by a separator byte, so "ab"+"c" and "a"+"bc" differ).
struct StableHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

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

    mutating func add(_ t: EventTime) {
        switch t {
        case .date(let d):
            byte(1)
            add(Int64(d.daysSinceEpoch))
        case .utc(let s):
            byte(2)
            add(s)
        case .zoned(let l, let z):
            byte(3)
            add(l.secondsSinceEpoch)
            add(z.identifier)
        case .floating(let l):
            byte(4)
            add(l.secondsSinceEpoch)
        }
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
