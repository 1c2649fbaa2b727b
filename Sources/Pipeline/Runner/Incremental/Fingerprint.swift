import CalHash
import Foundation

/// Fingerprints for incremental runs (docs/incremental.md): of an input file (size, modification time and
/// SHA-256 of its bytes) and of an event (a content hash of everything a sink stores of it).
package enum Fingerprint {
    /// "size:mtime:sha256" of a file, read in 1 MiB chunks (memory does not grow with the file).
    package static func file(atPath path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CalpipeError("cannot read: " + FileProblem.readProblem(path: path, errorNumber: errno), file: path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CalpipeError("cannot read: " + FileProblem.readProblem(path: path, errorNumber: errno), file: path) }
        defer { close(fd) }
        var sha = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw CalpipeError("cannot read: " + FileProblem.reason(errorNumber: errno), file: path)
            }
            if n == 0 { break }
            sha.update(buffer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return "\(info.st_size):\(mtime):" + sha.finishHex()
    }

    /// The raw-text hash of an event's component (its unfolded text, BEGIN to END: `Event.sourceText`), 64 bits. A
    /// source whose reader sees a text with a stored hash leaves the event unparsed
    /// (`IncrementalRun.unchangedTextCheck`), so this runs over every byte of a feed: a multiply-and-rotate mix of
    /// 8 bytes per step in two lanes (SHA-256 took a tenth of a one-event-changed run), not for hostile input. Two
    /// texts that collide would keep the row of the other one; for n stored events that is about n / 2^64 per event.
    package static func rawText(bytes: UnsafeRawBufferPointer) -> Int64 {
        let k0: UInt64 = 0x9E37_79B9_7F4A_7C15, k1: UInt64 = 0xC2B2_AE3D_27D4_EB4F, k2: UInt64 = 0x1656_67B1_9E37_79F9
        var a: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count), b: UInt64 = 0x1319_8A2E_0370_7344
        var i = 0
        let n = bytes.count
        while i + 16 <= n {
            let x = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let y = bytes.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            a = ((a ^ x) &* k0).rotateLeft31 &+ b
            b = ((b ^ y) &* k1).rotateLeft29 &+ a
            i += 16
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            if shift == 64 {
                a = ((a ^ tail) &* k0).rotateLeft31 &+ b
                tail = 0
                shift = 0
            }
            i += 1
        }
        b = ((b ^ tail) &* k1).rotateLeft29 &+ a
        var h = a ^ (b &* k2)
        h = (h ^ (h >> 33)) &* k0
        h = (h ^ (h >> 29)) &* k1
        return Int64(bitPattern: h ^ (h >> 32))
    }

    /// A running SHA-256 for a reader's context hash (`IncrementalRun.setContext`).
    package struct ContextHasher {
        private var sha = SHA256()

        package init() {}

        package mutating func update(_ bytes: UnsafeRawBufferPointer) { sha.update(buffer: bytes) }

        package mutating func update(_ text: String) { sha.update(Array(text.utf8)) }

        package mutating func finishHex() -> String { sha.finishHex() }
    }

    /// SHA-256 of a text, in hex (config fingerprints).
    package static func text(_ text: String) -> String {
        SHA256.hex(of: Array(text.utf8))
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Event {
    /// `Fingerprint.rawText` of the event's raw text (`sourceText`, its bytes as read, not decoded), nil without one.
    package var rawTextHash: Int64? {
        source?.withUTF8 { Fingerprint.rawText(bytes: UnsafeRawBufferPointer($0)) }
    }
}

private extension UInt64 {
    var rotateLeft31: UInt64 { self << 31 | self >> 33 }
    var rotateLeft29: UInt64 { self << 29 | self >> 35 }
}

/// The content hash of events: SHA-256 of the event's binary form (`Event.encode(to:zones:)`) without its
/// origin (file and line: not part of change detection, so an event moved within its file is unchanged),
/// with each zone's name and rules, truncated to 64 bits. Equal events give equal hashes in every run and
/// process. One per thread (it reuses its buffers).
package final class EventHasher {
    private var writer = ByteWriter(capacity: 4096)
    private var zoneDigests: [ObjectIdentifier: [UInt8]] = [:]

    package init() {}

    package func hash(_ event: Event) -> Int64 {
        writer.removeAll()
        let zones = ZoneTable()
        event.encode(to: &writer, zones: zones, includeOrigin: false)
        var sha = SHA256()
        writer.bytes.withUnsafeBytes { sha.update(buffer: $0) }
        var i = 0
        while let zone = zones.zone(at: i) {
            sha.update(digest(of: zone))
            i += 1
        }
        var out: UInt64 = 0
        for b in sha.finish().prefix(8) { out = out << 8 | UInt64(b) }
        return Int64(bitPattern: out)
    }

    private func digest(of zone: Zone) -> [UInt8] {
        let id = ObjectIdentifier(zone)
        if let known = zoneDigests[id] { return known }
        var w = ByteWriter()
        w.string(zone.identifier)
        w.count(zone.transitions.count)
        for t in zone.transitions { w.signed(t) }
        for o in zone.offsets { w.signed(Int64(o)) }
        var zoneHasher = SHA256()
        zoneHasher.update(w.bytes)
        let d = zoneHasher.finish()
        zoneDigests[id] = d
        return d
    }
}
