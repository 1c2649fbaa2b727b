/// Appends values to a byte buffer in calpipe's compact binary form (read back by `ByteReader`): unsigned
/// integers as LEB128 varints, signed ones zigzag-encoded first, strings as their UTF-8 length and bytes,
/// an optional string as length + 1 with 0 for nil, doubles as their 64-bit pattern.
///
/// The form is private to one run (it holds events on a scratch file): no version, no portability promise.
public struct ByteWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    /// Empties the buffer, keeping its storage for the next record.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    public mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    @inline(__always)
    public mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    @inline(__always)
    public mutating func unsigned(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    @inline(__always)
    public mutating func signed(_ value: Int64) {
        unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    @inline(__always)
    public mutating func int(_ value: Int) {
        signed(Int64(value))
    }

    /// A count or length (never negative).
    @inline(__always)
    public mutating func count(_ value: Int) {
        unsigned(UInt64(value))
    }

    public mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func optionalString(_ value: String?) {
        guard let value else { return bytes.append(0) }
        var text = value
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count) + 1)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Bytes written as `optionalString` writes a string's UTF-8 (so either reads them back).
    mutating func optionalBytes(_ value: UnsafeBufferPointer<UInt8>) {
        unsigned(UInt64(value.count) + 1)
        bytes.append(contentsOf: value)
    }

    public mutating func strings(_ values: [String]) {
        count(values.count)
        for v in values { string(v) }
    }

    public mutating func ints(_ values: [Int]) {
        count(values.count)
        for v in values { int(v) }
    }
}
