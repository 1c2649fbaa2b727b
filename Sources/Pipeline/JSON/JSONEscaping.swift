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

    /// The index of the first byte at or after `from` that needs an escape, or `count`. Sixteen bytes at a time
    /// (strings are mostly plain: this test, not the copy, was the JSON sinks' largest cost).
    @inlinable
    static func firstEscaped(_ base: UnsafePointer<UInt8>, from: Int, count: Int) -> Int {
        var i = from
        let raw = UnsafeRawPointer(base)
        let space = SIMD16<UInt8>(repeating: 0x20), quote = SIMD16<UInt8>(repeating: 0x22), backslash = SIMD16<UInt8>(repeating: 0x5C)
        while i + 16 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            if any((v .< space) .| (v .== quote) .| (v .== backslash)) { break }
            i += 16
        }
        while i < count {
            let u = base[i]
            if u < 0x20 || u == 0x22 || u == 0x5C { return i }
            i += 1
        }
        return count
    }

    /// The most bytes the escaped form of `count` bytes takes (every byte a `\u00xx`).
    @inlinable
    public static func worstCase(_ count: Int) -> Int { count * 6 }

    /// Writes the escaped form of `utf8` (without quotes) at `out`, which has room for `worstCase(utf8.count)`
    /// bytes; returns the position after it.
    @inlinable
    public static func escape(_ utf8: UnsafeBufferPointer<UInt8>, to start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        guard let base = utf8.baseAddress else { return start }
        var out = start
        var i = 0
        let n = utf8.count
        while i < n {
            // The plain run up to the next byte to escape, copied at once.
            let next = firstEscaped(base, from: i, count: n)
            if next > i {
                out.update(from: base + i, count: next - i)
                out += next - i
            }
            guard next < n else { break }
            let u = base[next]
            i = next + 1
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

    @inlinable
    static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? 0x30 + v : 0x61 + v - 10
    }
}
