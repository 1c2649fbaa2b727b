/// SHA-256 (FIPS 180-4), streaming: `update` with bytes as they come, `finish` once.
///
/// Written here rather than taken from swift-crypto: calpipe needs one hash (HTTP cache bodies, source
/// fingerprints), and swift-crypto builds BoringSSL, minutes on the 2-core build machine. Checked against the
/// FIPS 180-4 / NIST example vectors and against Python's hashlib on generated inputs (Tests/PipelineTests/SHA256Tests).
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes not yet hashed (less than one 64-byte block).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {
        pending.reserveCapacity(64)
    }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: UnsafeRawBufferPointer($0)) }
        if handled == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update(buffer: $0) }
        }
    }

    public mutating func update(buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        length &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, buffer.count)
            pending.append(contentsOf: buffer[0..<take])
            offset = take
            guard pending.count == 64 else { return }
            let block = pending
            block.withUnsafeBytes { compress($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        let blocks = (buffer.count - offset) / 64
        if blocks > 0 {
            compress(buffer, from: offset, blocks: blocks)
            offset += blocks * 64
        }
        if offset < buffer.count { pending.append(contentsOf: buffer[offset...]) }
    }

    /// The digest (32 bytes). The value is used up: call `finish` once.
    public mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                compress(raw, at: offset)
                offset += 64
            }
        }
        pending.removeAll()
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in words {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    /// The digest as 64 lower-case hex digits.
    public mutating func finishHex() -> String {
        Self.hex(finish())
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hex digest of bytes in memory.
    public static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finishHex()
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress(_ buffer: UnsafeRawBufferPointer, at offset: Int) {
        compress(buffer, from: offset, blocks: 1)
    }

    /// Hashes `blocks` 64-byte blocks of `buffer` starting at `offset`, keeping the working state in locals.
    private mutating func compress(_ buffer: UnsafeRawBufferPointer, from offset: Int, blocks: Int) {
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            Self.k.withUnsafeBufferPointer { k in
                var base = buffer.baseAddress! + offset
                for _ in 0..<blocks {
                    for i in 0..<16 {
                        w[i] = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                    }
                    for i in 16..<64 {
                        let w15 = w[i - 15], w2 = w[i - 2]
                        let s0 = Self.rotr(w15, 7) ^ Self.rotr(w15, 18) ^ (w15 >> 3)
                        let s1 = Self.rotr(w2, 17) ^ Self.rotr(w2, 19) ^ (w2 >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for i in 0..<64 {
                        let S1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = h &+ S1 &+ ch &+ k[i] &+ w[i]
                        let S0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = S0 &+ maj
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                    base += 64
                }
            }
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }
}
