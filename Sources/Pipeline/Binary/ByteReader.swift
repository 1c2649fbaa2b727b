/// Reads what `ByteWriter` wrote, from bytes it does not own (use it inside `withUnsafeBytes`). Every read
/// checks the bounds and throws a `CalpipeError` past the end or on a value out of range, so damaged
/// bytes give an error, never a crash.
public struct ByteReader {
    private let base: UnsafeRawBufferPointer
    public private(set) var position: Int

    public init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        base = bytes
        self.position = position
    }

    public var isAtEnd: Bool { position >= base.count }

    @inline(__always)
    public mutating func byte() throws -> UInt8 {
        guard position < base.count else { throw CalpipeError("unexpected end of record at byte \(position)") }
        let b = base[position]
        position += 1
        return b
    }

    public mutating func bool() throws -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let b: throw CalpipeError("byte \(b) at \(position - 1) is not a boolean")
        }
    }

    @inline(__always)
    public mutating func unsigned() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64 else { throw CalpipeError("varint too long at byte \(position)") }
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    @inline(__always)
    public mutating func signed() throws -> Int64 {
        let u = try unsigned()
        return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }

    public mutating func int() throws -> Int {
        let v = try signed()
        guard let i = Int(exactly: v) else { throw CalpipeError("integer \(v) out of range at byte \(position)") }
        return i
    }

    public mutating func int32() throws -> Int32 {
        let v = try signed()
        guard let i = Int32(exactly: v) else { throw CalpipeError("integer \(v) out of range at byte \(position)") }
        return i
    }

    /// A count or length; at most the bytes left, since every counted item takes at least one byte.
    public mutating func count() throws -> Int {
        let v = try unsigned()
        guard v <= UInt64(base.count - position) else { throw CalpipeError("count \(v) at byte \(position) runs past the end") }
        return Int(v)
    }

    public mutating func double() throws -> Double {
        guard base.count - position >= 8 else { throw CalpipeError("unexpected end of record at byte \(position)") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(base[position + i]) << UInt64(i * 8) }
        position += 8
        return Double(bitPattern: bits)
    }

    private mutating func text(length: UInt64) throws -> String {
        guard length <= UInt64(base.count - position) else { throw CalpipeError("string of \(length) bytes at byte \(position) runs past the end") }
        let length = Int(length)
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<(position + length)])
        position += length
        return String(decoding: slice, as: UTF8.self)
    }

    public mutating func string() throws -> String {
        try text(length: try unsigned())
    }

    /// What `ByteWriter.optionalBytes` (or `optionalString`) wrote, as bytes.
    mutating func optionalBytes() throws -> [UInt8]? {
        let n = try unsigned()
        if n == 0 { return nil }
        guard n - 1 <= UInt64(base.count - position) else { throw CalpipeError("bytes of \(n - 1) at byte \(position) run past the end") }
        let length = Int(n - 1)
        defer { position += length }
        return Array(UnsafeRawBufferPointer(rebasing: base[position..<(position + length)]))
    }

    public mutating func optionalString() throws -> String? {
        let n = try unsigned()
        if n == 0 { return nil }
        return try text(length: n - 1)
    }

    public mutating func strings() throws -> [String] {
        let n = try count()
        var out: [String] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try string()) }
        return out
    }

    public mutating func ints() throws -> [Int] {
        let n = try count()
        var out: [Int] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try int()) }
        return out
    }
}
