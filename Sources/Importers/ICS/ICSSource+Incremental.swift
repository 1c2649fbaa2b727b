import Foundation
import Pipeline

/// Incremental runs (docs/incremental.md, "Events left unparsed"): the `ics` source hashes what surrounds the
/// events of its files (the context: calendar properties, VTIMEZONEs, other components, the zone database) and,
/// when a source is read event by event with the context the sink stored, leaves out unparsed every event whose
/// raw text is that of a stored single event (`IncrementalRun.unchangedTextCheck`).
extension ICSSource {
    /// The check for the reader (nil: parse every event). Also notes the context, which the sinks store.
    func unchangedCheck(files: [InputSpec.Input], context: RunContext) -> ((UnsafeRawBufferPointer, Int, Int) -> Bool)? {
        guard let run = context.incremental, run.enabled, let label = context.currentSourceLabel,
              run.current[label]?.input != nil, !files.contains(where: { $0.path == "-" }) else { return nil }
        switch run.plan(for: label) {
        case .skipped, .kept: return nil
        case .full, .events: break
        }
        var sha = Fingerprint.ContextHasher()
        sha.update(Self.zoneDatabaseStamp)
        for file in files {
            guard let hash = Self.contextHash(path: file.path) else { return nil }
            sha.update(hash)
        }
        run.setContext(sha.finishHex(), files: files.map(\.label), for: label)
        return run.unchangedTextCheck(source: label)
    }

    /// Size and modification time of the system's zone data: events naming an IANA zone take its rules from it.
    static var zoneDatabaseStamp: String {
        var info = stat()
        for path in ["/usr/share/zoneinfo/tzdata.zi", "/usr/share/zoneinfo"] where stat(path, &info) == 0 {
            return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return "no zone data"
    }

    /// SHA-256 (hex) of every line of the file that is not inside a VEVENT (from a `BEGIN:VEVENT` line to the next
    /// `END:VEVENT` line, in any letter case). Read in 1 MiB chunks; nil when the file cannot be read or holds a
    /// line longer than 8 MiB (then no event is skipped).
    static func contextHash(path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let chunkSize = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var carry: [UInt8] = []
        var sha = Fingerprint.ContextHasher()
        var inEvent = false
        func line(_ l: UnsafeRawBufferPointer) {
            var n = l.count
            if n > 0 && l[n - 1] == 0x0D { n -= 1 }
            let bytes = UnsafeRawBufferPointer(rebasing: l[0..<n])
            if inEvent {
                if Self.isLine(bytes, "END:VEVENT") { inEvent = false }
            } else if Self.isLine(bytes, "BEGIN:VEVENT") {
                inEvent = true
            } else {
                sha.update(bytes)
                sha.update("\n")
            }
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            let ok: Bool = buffer.withUnsafeBytes { all in
                let chunk = UnsafeRawBufferPointer(rebasing: all[0..<n])
                var start = 0
                while start < n, let p = memchr(chunk.baseAddress! + start, 0x0A, n - start) {
                    let end = chunk.baseAddress!.distance(to: UnsafeRawPointer(p))
                    if carry.isEmpty {
                        line(UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
                    } else {
                        carry.append(contentsOf: chunk[start..<end])
                        carry.withUnsafeBytes { line($0) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    start = end + 1
                }
                carry.append(contentsOf: chunk[start..<n])
                return carry.count <= 8 << 20
            }
            if !ok { return nil }
        }
        carry.withUnsafeBytes { line($0) }
        return sha.finishHex()
    }

    /// Whether `bytes` is `name` in any letter case (ASCII).
    private static func isLine(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let p = name.utf8Start
        for i in 0..<bytes.count {
            let b = bytes[i]
            if (b >= 0x61 && b <= 0x7A ? b - 0x20 : b) != p[i] { return false }
        }
        return true
    }
}
