/// The one JSON string escaper of calpipe: `"` `\` and control characters (`\n`, `\r`, `\t`, else `\u00xx`);
/// everything else, non-ASCII included, as is (byte by byte is the same as scalar by scalar: no byte of a
/// multi-byte UTF-8 sequence is below 0x80). The byte writer (`JSONBytes`) behind every JSON output writes
/// strings through it. Public and inlinable, so the sinks' hot loops in other modules inline it.
public enum JSONEscaping {
    /// True when no byte needs an escape.
    @inlinable
    public static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        return firstEscaped(base, from: 0, count: utf8.count) == utf8.count
    }

    /// The index of the first byte at or after `from` that needs an escape, or `count`. Sixteen bytes at a time,
    /// then eight (strings are mostly plain: this test, not the copy, was the JSON sinks' largest cost).
    @inlinable
    static func firstEscaped(_ base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int {
        var i = from
        let raw = UnsafeRawPointer(base)
        while i + 16 <= count {
            if let k = escapedIndex16(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)) { return i + k }
            i += 16
        }
        while i + 8 <= count {
            let bits = escapedBits(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if bits != 0 { return i + firstByte(bits) }
            i += 8
        }
        while i < count {
            if needsEscape(base[i]) { return i }
            i += 1
        }
        return count
    }

    /// The most bytes the escaped form of `count` bytes takes (every byte a `\u00xx`).
    @inlinable
    public static func worstCase(_ count: Int) -> Int { count * 6 }

    /// Writes the escaped form of `utf8` (without quotes) at `out`, which has room for `worstCase(utf8.count)`
    /// bytes; returns the position after it. One pass: plain bytes are stored 16 (then 8) at a time as they are
    /// checked, and the position of an escape comes from the check itself. A block stored past an escape is
    /// overwritten by what follows; the room for the worst case covers the overhang.
    @inlinable
    public static func escape(_ utf8: UnsafeBufferPointer<UInt8>, to start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        guard let base = utf8.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        var out = start
        var i = 0
        let n = utf8.count
        while i < n {
            // The plain run up to the next byte to escape, stored as it is checked.
            var hit = false
            while i + 16 <= n {
                let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(out).storeBytes(of: v, as: SIMD16<UInt8>.self)
                if let k = escapedIndex16(v) { out += k; i += k; hit = true; break }
                out += 16
                i += 16
            }
            while !hit, i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                UnsafeMutableRawPointer(out).storeBytes(of: w, as: UInt64.self)
                let bits = escapedBits(w)
                if bits != 0 { let k = firstByte(bits); out += k; i += k; hit = true; break }
                out += 8
                i += 8
            }
            while !hit, i < n {
                if needsEscape(base[i]) { break }
                out.pointee = base[i]
                out += 1
                i += 1
            }
            guard i < n else { break }
            let u = base[i]
            i += 1
            out[0] = 0x5C
            switch u {
            case 0x22: out[1] = 0x22
            case 0x5C: out[1] = 0x5C
            case 0x0A: out[1] = 0x6E  // n
            case 0x0D: out[1] = 0x72  // r
            case 0x09: out[1] = 0x74  // t
            default:
                out[1] = 0x75  // u
                out[2] = 0x30
                out[3] = 0x30
                out[4] = hexDigit(u >> 4)
                out[5] = hexDigit(u & 15)
                out += 6
                continue
            }
            out += 2
        }
        return out
    }

    @inlinable @inline(__always)
    static func needsEscape(_ u: UInt8) -> Bool { u < 0x20 || u == 0x22 || u == 0x5C }

    /// The offset of the first byte of the block that needs an escape, or nil: a vector test for the block (most
    /// are plain), then the two halves as words for the position.
    @inlinable @inline(__always)
    static func escapedIndex16(_ v: SIMD16<UInt8>) -> Int? {
        let space = SIMD16<UInt8>(repeating: 0x20), quote = SIMD16<UInt8>(repeating: 0x22), backslash = SIMD16<UInt8>(repeating: 0x5C)
        guard any((v .< space) .| (v .== quote) .| (v .== backslash)) else { return nil }
        let words = unsafeBitCast(v, to: SIMD2<UInt64>.self)
        let low = escapedBits(words[0])
        return low != 0 ? firstByte(low) : 8 + firstByte(escapedBits(words[1]))
    }

    /// For eight bytes read as a word (the first byte lowest), a word whose lowest set bit is the high bit of the
    /// first byte below 0x20 or equal to `"` or `\`; zero when there is none. (The borrow of a subtraction may
    /// mark bytes after a real one, never before it, so only the lowest bit is meaningful.)
    @inlinable @inline(__always)
    static func escapedBits(_ word: UInt64) -> UInt64 {
        let x = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let q = x ^ (ones &* 0x22), b = x ^ (ones &* 0x5C)
        let control = (x &- ones &* 0x20) & ~x
        let quote = (q &- ones) & ~q
        let backslash = (b &- ones) & ~b
        return (control | quote | backslash) & (ones &* 0x80)
    }

    /// The byte offset of the lowest set bit of `escapedBits`.
    @inlinable @inline(__always)
    static func firstByte(_ bits: UInt64) -> Int { bits.trailingZeroBitCount >> 3 }

    @inlinable
    static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? 0x30 + v : 0x61 + v - 10
    }
}
