import Crypto

/// SHA-256 (FIPS 180-4), streaming: `update` with bytes as they come, `finish` once. The one hash of calpipe:
/// HTTP cache bodies, source fingerprints and event content hashes all go through it.
///
/// A thin value over swift-crypto's SHA-256 (BoringSSL, which uses the CPU's SHA instructions where there are
/// some): an unchanged 72 MB feed is fingerprinted on every scheduled run, so the hash's speed is the run's.
/// Checked against the FIPS 180-4 / NIST example vectors and against Python's hashlib on generated inputs
/// (Tests/PipelineTests/SHA256Tests).
package struct SHA256 {
    private var hasher = Crypto.SHA256()

    package init() {}

    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { update(buffer: UnsafeRawBufferPointer($0)) }
        if handled == nil { Array(bytes).withUnsafeBytes { update(buffer: $0) } }
    }

    package mutating func update(buffer: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: buffer)
    }

    /// The 32-byte digest.
    package mutating func finish() -> [UInt8] {
        Array(hasher.finalize())
    }

    /// The digest as 64 lower-case hex digits.
    package mutating func finishHex() -> String {
        Self.hex(finish())
    }

    package static func hex(_ bytes: [UInt8]) -> String {
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
    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finishHex()
    }
}
