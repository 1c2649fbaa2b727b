import Foundation
import Pipeline

/// Incremental runs (docs/incremental.md, "Events left unparsed"): the `ics` source hashes what surrounds the
/// events of its files (the context: calendar properties, VTIMEZONEs, other components, the zone database) and,
/// when a source is read event by event with the context the sink stored, leaves out unparsed every event whose
/// raw text is that of a stored single event (`IncrementalRun.unchangedTextCheck`).
extension ICSSource {
    /// The check for the reader (nil: parse every event). Also notes the context, which the sinks store.
    func unchangedCheck(files: [InputSpec.Input], context: RunContext) -> UnchangedEvents? {
        guard let run = context.runState.incremental, run.enabled, let label = context.runState.currentSourceLabel,
              run.current[label]?.input != nil, !files.contains(where: { $0.path == "-" }) else { return nil }
        switch run.plan(for: label) {
        case .skipped, .kept: return nil
        case .full, .events: break
        }
        var sha = Fingerprint.ContextHasher()
        sha.update(Self.zoneDatabaseStamp)
        var scan = IncrementalRun.TextScan()
        // The memory found once: the pass asks it about every event.
        let memory = run.memory(for: label)
        let known: (Int64) -> StoredText?
        let events: Bool
        if case .events = run.plan(for: label), let memory {
            known = { memory.stored(textHash: $0) }
            events = true
        } else {
            known = { _ in StoredText(id: 0, startUTC: 0, spanEndUTC: nil, series: nil) }
            events = false
        }
        var regions: [ICSUnchangedRegions?] = []
        for file in files {
            var found: ICSUnchangedRegions?
            guard let hash = Self.scan(path: file.path, into: &scan, known: known, regions: events ? { found = $0 } : nil) else { return nil }
            sha.update(hash)
            regions.append(found)
        }
        run.setContext(sha.finishHex(), files: files.map(\.label), for: label)
        return run.unchangedTextCheck(source: label, scan: scan).map { UnchangedEvents(check: $0, regions: regions) }
    }

    /// What the quick pass leaves to the reading of the files.
    struct UnchangedEvents {
        /// `IncrementalRun.unchangedTextCheck`: the hash of an event's text, its stored event if found, its file's
        /// index and its line.
        let check: (Int64, StoredText?, Int, Int) -> Bool
        /// Per file (in the order read), where its events with a stored text lie (nil: none noted).
        let regions: [ICSUnchangedRegions?]
    }

    /// Size and modification time of the system's zone data: events naming an IANA zone take its rules from it.
    static var zoneDatabaseStamp: String {
        var info = stat()
        for path in ["/usr/share/zoneinfo/tzdata.zi", "/usr/share/zoneinfo"] where stat(path, &info) == 0 {
            return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return "no zone data"
    }

    /// A quick pass over a file, lines unfolded as the scanner does (CR before LF dropped, a line that starts
    /// with a blank continues the one before, blank lines skipped). Returns SHA-256 (hex) of every line that is not
    /// inside a VEVENT (from a `BEGIN:VEVENT` line to the next `END:VEVENT` line, in any letter case), and adds
    /// to `scan` the raw-text hash (its lines with CRLF, as `Event.sourceText`) of each VEVENT whose text `known`
    /// gives as a stored series part and, for a text `known`
    /// does not know (nil), its UID (a UID line with parameters, or two of them, make `newUIDs` nil). Read in 1 MiB
    /// chunks; nil when the file cannot be read or holds a line longer than 8 MiB (then no event is skipped).
    /// With `regions`, hands it where each event with a `known` text lies (`ICSUnchangedRegions`) at the end.
    static func scan(path: String, into scan: inout IncrementalRun.TextScan, known: (Int64) -> StoredText?,
                     regions: ((ICSUnchangedRegions?) -> Void)? = nil, chunkSize: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var found = regions != nil ? ICSUnchangedRegions.FileIdentity(descriptor: fd).map(ICSUnchangedRegions.init) : nil
        defer { regions?(found) }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var logical: [UInt8] = []
        var haveLogical = false
        var sha = Fingerprint.ContextHasher()
        var block: [UInt8] = []
        var inEvent = false
        var uid: [UInt8]?
        var uidLines = 0
        var uidUnsafe = false
        // The event's region (`ICSUnchangedRegions`): where its BEGIN line starts (offset, line feeds before it),
        // the VALARMs open in it, whether one was, and whether it holds anything else the scanner reads otherwise.
        var eventStart = (offset: 0, lineFeeds: 0)
        var alarmsOpen = 0
        var hadAlarm = false
        var plain = true
        // A logical line, with where it starts and where the next one starts (offset, line feeds before it).
        func logicalLine(_ l: UnsafeRawBufferPointer, start: (offset: Int, lineFeeds: Int), next: (offset: Int, lineFeeds: Int)) {
            if l.isEmpty || (l[0] == 0x20 && !l.contains { $0 != 0x20 && $0 != 0x09 }) { return }
            if inEvent {
                block.append(contentsOf: l)
                block.append(0x0D); block.append(0x0A)
                if l.count >= 3, Self.isPrefix(l, "UID"), l.count > 3, l[3] == 0x3A || l[3] == 0x3B {
                    uidLines += 1
                    if l[3] == 0x3B { uidUnsafe = true } else { uid = Array(UnsafeRawBufferPointer(rebasing: l[4...])) }
                }
                // Only a line that starts with B or E can begin or end a component.
                let first = l[0] | 0x20
                var end = false
                if first == 0x62 {
                    if Self.isKeyword(l, "BEGIN:", "VALARM") {
                        alarmsOpen += 1
                        hadAlarm = true
                    } else if Self.isPrefix(l, "BEGIN:") {
                        plain = false
                    }
                } else if first == 0x65 {
                    if Self.isKeyword(l, "END:", "VEVENT") {
                        end = true
                    } else if Self.isKeyword(l, "END:", "VALARM") {
                        if alarmsOpen == 0 { plain = false }
                        alarmsOpen -= 1
                    } else if Self.isPrefix(l, "END:") {
                        plain = false
                    }
                }
                guard end else { return }
                inEvent = false
                let hash = block.withUnsafeBytes { Fingerprint.rawText(bytes: $0) }
                guard let stored = known(hash) else {
                    if uidLines > 1 || uidUnsafe {
                        scan.newUIDs = nil
                    } else if let uid {
                        scan.newUIDs?.insert(String(decoding: uid, as: UTF8.self))
                    }
                    return
                }
                if stored.series != nil { scan.texts[hash, default: 0] += 1 }
                if found != nil, plain, alarmsOpen == 0, !hadAlarm || !block.contains(where: { $0 >= 0x80 }) {
                    found?.append(start: eventStart.offset, end: next.offset, lines: next.lineFeeds - eventStart.lineFeeds,
                                  stored: stored, depth: hadAlarm ? 1 : 0)
                }
            } else if Self.isKeyword(l, "BEGIN:", "VEVENT") {
                inEvent = true
                block.removeAll(keepingCapacity: true)
                block.append(contentsOf: l)
                block.append(0x0D); block.append(0x0A)
                uid = nil
                uidLines = 0
                uidUnsafe = false
                eventStart = start
                alarmsOpen = 0
                hadAlarm = false
                plain = true
            } else {
                sha.update(l)
                sha.update("\n")
            }
        }
        // A line whose end and next line's first byte are in the chunk is handled where it is; one that is folded
        // or crosses chunks is assembled in `logical` (`midLine`: its last physical line has not ended yet).
        var midLine = false
        // Where the chunk starts in the file, the line feeds read, where the pending logical line started.
        var fileOffset = 0
        var lineFeeds = 0
        var pending = (offset: 0, lineFeeds: 0)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { all in
                let chunk = UnsafeRawBufferPointer(rebasing: all[0..<n])
                let base = chunk.baseAddress!
                func lineFeed(from i: Int) -> Int? {
                    memchr(base + i, 0x0A, n - i).map { base.distance(to: UnsafeRawPointer($0)) }
                }
                var i = 0
                while i < n {
                    if midLine {
                        guard let end = lineFeed(from: i) else {
                            logical.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[i..<n]))
                            break
                        }
                        logical.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[i..<end]))
                        if logical.last == 0x0D { logical.removeLast() }
                        midLine = false
                        i = end + 1
                        lineFeeds += 1
                        continue
                    }
                    if haveLogical {
                        if chunk[i] == 0x20 || chunk[i] == 0x09 {
                            i += 1  // folded: the rest of this line continues the logical one
                            midLine = true
                            continue
                        }
                        logical.withUnsafeBytes { logicalLine($0, start: pending, next: (fileOffset + i, lineFeeds)) }
                        logical.removeAll(keepingCapacity: true)
                        haveLogical = false
                    }
                    guard let end = lineFeed(from: i) else {
                        logical.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[i..<n]))
                        pending = (fileOffset + i, lineFeeds)
                        haveLogical = true
                        midLine = true
                        break
                    }
                    let stop = end > i && chunk[end - 1] == 0x0D ? end - 1 : end
                    if end + 1 < n, chunk[end + 1] != 0x20, chunk[end + 1] != 0x09 {
                        logicalLine(UnsafeRawBufferPointer(rebasing: chunk[i..<stop]), start: (fileOffset + i, lineFeeds),
                                    next: (fileOffset + end + 1, lineFeeds + 1))
                    } else {
                        logical.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[i..<stop]))
                        pending = (fileOffset + i, lineFeeds)
                        haveLogical = true
                    }
                    i = end + 1
                    lineFeeds += 1
                }
            }
            fileOffset += n
            if logical.count > 8 << 20 { return nil }
        }
        if haveLogical {
            if midLine, logical.last == 0x0D { logical.removeLast() }
            // The last line: no region ends at the end of the file (`next` before `start`).
            logical.withUnsafeBytes { logicalLine($0, start: pending, next: (-1, lineFeeds)) }
        }
        return sha.finishHex()
    }

    /// Whether `bytes` starts with `prefix` in any letter case (ASCII; `prefix` in upper case).
    private static func isPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        let p = prefix.utf8Start
        for i in 0..<prefix.utf8CodeUnitCount {
            let b = bytes[i]
            if (b >= 0x61 && b <= 0x7A ? b - 0x20 : b) != p[i] { return false }
        }
        return true
    }

    /// Whether the line is `prefix` + `name` (any letter case, blanks after it allowed), as the scanner reads
    /// BEGIN and END lines.
    private static func isKeyword(_ bytes: UnsafeRawBufferPointer, _ prefix: StaticString, _ name: StaticString) -> Bool {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard end == prefix.utf8CodeUnitCount + name.utf8CodeUnitCount, isPrefix(bytes, prefix) else { return false }
        return isPrefix(UnsafeRawBufferPointer(rebasing: bytes[prefix.utf8CodeUnitCount..<end]), name)
    }
}
