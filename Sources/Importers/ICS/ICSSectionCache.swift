#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Pipeline

/// Remembers what the parameter sections of content lines parsed to, by their bytes: feeds repeat them
/// (`;TZID=Europe/Berlin`, an attendee's `;CN=Anna Müller;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED`), and a
/// hit costs one hash and one compare instead of a parse and an array, a string and a values array per
/// parameter.
///
/// Exact: a section is stored with the bytes from its first ';' up to the ':' that ended it in a successful
/// parse. Parsing a section reads nothing beyond that ':', so a line with the same bytes followed by ':'
/// parses to the same result. Sections are found by a hash of the bytes up to the first ':' (a quoted value
/// may hold a ':', so that can be shorter than the section: such lines then simply miss), and checked in full.
/// Direct-mapped: a new section replaces the one in its slot. One per builder (not shared between threads).
final class ICSSectionCache<Value> {
    private var keys: [[UInt8]]
    private var values: [Value?]
    private let mask: Int

    /// `slots`: a power of two.
    init(slots: Int = 512) {
        keys = Array(repeating: [], count: slots)
        values = Array(repeating: nil, count: slots)
        mask = slots - 1
    }

    /// The value of the section that starts at `start` (a ';') and the index of the ':' after it.
    func lookup(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Value, colon: Int)? {
        let slot = Self.slot(b, from: start, mask: mask)
        guard let value = values[slot] else { return nil }
        let matches = keys[slot].withUnsafeBufferPointer { key -> Bool in
            let end = start + key.count
            return end < b.count && b[end] == 0x3A && memcmp(key.baseAddress!, b.baseAddress! + start, key.count) == 0
        }
        return matches ? (value, start + keys[slot].count) : nil
    }

    /// Keeps the value of the section `b[start..<colon]` that a parse just read.
    func store(_ b: UnsafeBufferPointer<UInt8>, from start: Int, colon: Int, _ value: Value) {
        guard colon > start, colon - start <= 512 else { return }
        let slot = Self.slot(b, from: start, mask: mask)
        keys[slot] = Array(UnsafeBufferPointer(rebasing: b[start..<colon]))
        values[slot] = value
    }

    private static func slot(_ b: UnsafeBufferPointer<UInt8>, from start: Int, mask: Int) -> Int {
        let base = b.baseAddress! + start
        let available = b.count - start
        let end = memchr(base, 0x3A, available).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? available
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(truncatingIfNeeded: end &+ 1)
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i + 8 <= end {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01B3
            h ^= h >> 29
            i += 8
        }
        while i < end {
            h = (h ^ UInt64(base[i])) &* 0x100_0000_01B3
            i += 1
        }
        h ^= h >> 32
        return Int(truncatingIfNeeded: h) & mask
    }
}

/// A builder's two section caches: plain parameter lists, and ATTENDEE sections read into an attendee (all but
/// the address, which is the value).
final class ICSParameterCaches {
    let parameters: ICSSectionCache<[Parameter]>
    let attendees: ICSSectionCache<Attendee>

    init(slots: Int = 512) {
        parameters = ICSSectionCache(slots: slots)
        attendees = ICSSectionCache(slots: slots)
    }
}
