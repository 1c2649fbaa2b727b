import Foundation
import Pipeline

/// The first half of the iCalendar reader: bytes in chunks of any size to content lines and components.
/// It assembles unfolded lines on bytes, splits them into `ICSContentLine`s for the components that are kept
/// (VEVENT, VALARM, VTIMEZONE), tracks nesting, skips VTODO and the like, and reports what it finds to `emit`
/// as `ICSCommand`s in input order. It knows nothing about zones or events: that is `ICSEventBuilder`.
///
/// The property lines of a top-level VEVENT are only collected (`ICSFrame.deferred`: the unfolded text and
/// each line's number); whoever makes the event parses them, on this thread or on a worker
/// (`ICSParallelBuilder`). Anything unusual inside such an event (a nested component, a line error, an END
/// that does not match, the end of the input) first parses the lines collected so far, so the event comes
/// out exactly as if each line had been parsed when it was read.
final class ICSScanner {
    let label: String
    let limits: ICSReader.Limits
    /// Problems outside of events (a stray line, a component outside a VCALENDAR) are rejections, not warnings.
    let strict: Bool
    /// Receives the commands in input order; errors it throws stop reading and come out of `feed`/`finish`.
    let emit: (ICSCommand) throws -> Void
    /// `ICSReader.Handlers.unchanged`: events it knows are left out before they are made.
    var unchanged: ((Int64, Int) -> Bool)?
    // Line assembly.
    @exclusivity(unchecked) private var line: [UInt8] = []
    @exclusivity(unchecked) private var lineOverlong = false
    @exclusivity(unchecked) private var haveLine = false
    @exclusivity(unchecked) private var atLineStart = true
    @exclusivity(unchecked) private var physicalLine: Int
    @exclusivity(unchecked) private var logicalStart: Int
    private var checkedHeader = false
    private var headerBuffer: [UInt8] = []
    private var sawLatin1 = false

    // Component state.
    @exclusivity(unchecked) private var stack: [ICSFrame] = []
    /// Names of the components being skipped (innermost last); empty when not skipping.
    @exclusivity(unchecked) private var skipping: [String] = []
    private var skippingLine = 0
    /// Whether the skipped component is counted (VTODO, ...) or was already reported as an error.
    private var skippingCounts = false
    /// BEGINs inside skipped components beyond `limits.maxDepth` (their names are not kept: memory stays bounded).
    private var skippingOverflow = 0
    /// Whether content outside of any VCALENDAR was reported since the last component.
    private var warnedOutside = false

    // Line-end repair: bare CR line ends and NUL bytes (see `normalize`).
    /// Set once the input showed a bare CR or a NUL byte: every later chunk is normalized before it is scanned.
    private var normalizing = false
    private var normalizeLastWasCR = false
    private var normalized: [UInt8] = []

    init(label: String, firstLine: Int, limits: ICSReader.Limits, strict: Bool = false, emit: @escaping (ICSCommand) throws -> Void) {
        self.label = label
        self.limits = limits
        self.strict = strict
        self.emit = emit
        physicalLine = firstLine
        logicalStart = firstLine
        line.reserveCapacity(4096)
    }

    /// Feeds the next bytes of the input. Lines may be split anywhere, even inside a UTF-8 character.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if !checkedHeader {
            headerBuffer.append(contentsOf: bytes)
            if try !checkHeader(final: false) { return }
            let buffered = headerBuffer
            headerBuffer = []
            try buffered.withUnsafeBufferPointer { try process($0) }
            return
        }
        try process(bytes)
    }

    /// Scans a chunk; once the input showed a bare CR or a NUL byte, chunks are normalized first.
    private func process(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if !normalizing {
            // A CR that ended the previous chunk was a line end of its own when no LF follows it.
            if haveLine, !atLineStart, line.last == 0x0D, base[0] != 0x0A {
                line.removeLast()
                physicalLine += 1
                atLineStart = true
                try startNormalizing(reason: "lines end with a bare CR (read as line ends)", line: physicalLine - 1)
            } else if let (reason, offset) = Self.needsNormalizing(bytes) {
                // The line of the first such byte, whatever the chunks (the lines before it end with LF).
                var line = physicalLine
                var i = 0
                while i < offset, let p = memchr(base + i, 0x0A, offset - i) {
                    line += 1
                    i = base.distance(to: p.assumingMemoryBound(to: UInt8.self)) + 1
                }
                try startNormalizing(reason: reason, line: line)
            }
        }
        if normalizing {
            normalize(bytes)
            let chunk = normalized
            try chunk.withUnsafeBufferPointer { try scan($0) }
        } else {
            try scan(bytes)
        }
    }

    /// Why a chunk cannot be scanned as it is: a NUL byte, or a CR that no LF follows (one `memchr` per CR; a CR
    /// at the end of the chunk is decided with the next chunk).
    private static func needsNormalizing(_ b: UnsafeBufferPointer<UInt8>) -> (reason: String, offset: Int)? {
        let base = b.baseAddress!
        let n = b.count
        // The common case first, 16 bytes at a time: no NUL, and every CR followed by LF.
        var j = 0
        var clean = true
        let raw = UnsafeRawPointer(base)
        let cr = SIMD16<UInt8>(repeating: 0x0D), lf = SIMD16<UInt8>(repeating: 0x0A), zero = SIMD16<UInt8>(repeating: 0)
        while j + 17 <= n {
            let v = raw.loadUnaligned(fromByteOffset: j, as: SIMD16<UInt8>.self)
            let next = raw.loadUnaligned(fromByteOffset: j + 1, as: SIMD16<UInt8>.self)
            if any((v .== cr) .& (next .!= lf) .| (v .== zero)) {
                clean = false
                break
            }
            j += 16
        }
        if clean {
            // The last bytes one by one (a CR at the very end is decided with the next chunk).
            while j < n {
                if base[j] == 0 || (base[j] == 0x0D && j + 1 < n && base[j + 1] != 0x0A) {
                    clean = false
                    break
                }
                j += 1
            }
            if clean { return nil }
        }
        var found: (String, Int)?
        if let p = memchr(base, 0, n) { found = ("NUL bytes in the input (removed)", base.distance(to: p.assumingMemoryBound(to: UInt8.self))) }
        var i = 0
        while i < n, let p = memchr(base + i, 0x0D, n - i) {
            let k = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
            if let f = found, f.1 < k { break }
            guard k + 1 < n else { break }
            if base[k + 1] != 0x0A { return ("lines end with a bare CR (read as line ends)", k) }
            i = k + 2
        }
        return found
    }

    private func startNormalizing(reason: String, line: Int) throws {
        normalizing = true
        // A repair of the file's bytes, not of the event they may be in.
        if reason.hasPrefix("NUL") {
            try fileRepair(.nulBytes, line, "NUL bytes in the input", "removed")
        } else {
            try fileRepair(.bareCR, line, "lines end with a bare CR", "read as line ends")
        }
    }

    /// The chunk with CRLF and bare CR as LF and NUL bytes removed, into `normalized`.
    private func normalize(_ b: UnsafeBufferPointer<UInt8>) {
        normalized.removeAll(keepingCapacity: true)
        normalized.reserveCapacity(b.count)
        for c in b {
            if c == 0x0D {
                normalized.append(0x0A)
                normalizeLastWasCR = true
                continue
            }
            defer { normalizeLastWasCR = false }
            if c == 0 || (c == 0x0A && normalizeLastWasCR) { continue }
            normalized.append(c)
        }
    }

    /// Ends the input: processes the last line and reports components that were never closed.
    func finish() throws {
        if !checkedHeader {
            if try !checkHeader(final: true) { return }
            let buffered = headerBuffer
            headerBuffer = []
            try buffered.withUnsafeBufferPointer { try process($0) }
        }
        if haveLine {
            if line.last == 0x0D { line.removeLast() }
            try processLine()
            haveLine = false
        }
        try settleEvent()
        // Unclosed components: what was read of them is kept (issue 15: a truncated feed keeps its events).
        try endSkipping(at: nil)
        while !stack.isEmpty { try closeUnclosed(at: nil) }
        try emit(.flushPending)
    }

    /// `ICSReader.skipEvent`: the next bytes are a whole VEVENT of `lines` physical lines. It is left out, as
    /// `closeTop` leaves out an unchanged event, only where reading it would have made a top-level event frame:
    /// past the header, at a line start, inside a calendar and outside skipped components, with room for its
    /// nesting. The line read before it is handled first.
    func skipEvent(lines: Int, depth: Int, leaveOut: (Int) -> Bool) throws -> Bool {
        guard checkedHeader, atLineStart, !lineOverlong else { return false }
        if haveLine {
            // The next line starts with "BEGIN:", not a blank: the pending line is whole (as `scan` handles it).
            try processLine()
            haveLine = false
        }
        guard skipping.isEmpty, let top = stack.last, top.kind == .calendar, stack.count + depth < limits.maxDepth,
              leaveOut(physicalLine) else { return false }
        warnedOutside = false  // as `begin` does
        physicalLine += lines
        return true
    }

    // MARK: - Header check

    /// Returns true once enough bytes were seen to know the input is iCalendar; throws when it is not.
    private func checkHeader(final: Bool) throws -> Bool {
        var start = 0
        let b = headerBuffer
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { start = 3 }
        while start < b.count, b[start] == 0x20 || b[start] == 0x09 || b[start] == 0x0D || b[start] == 0x0A { start += 1 }
        // A calendar, or a component without its VCALENDAR (read as if in one).
        let expected = Array("BEGIN:".utf8)
        let available = b.count - start
        // Decide on 64 bytes: enough to quote the first line and to see binary data.
        if !final, b.count < 4096, available < 64 { return false }
        if available == 0 {
            checkedHeader = true
            try emit(.warn("\(label): empty input, no VCALENDAR"))
            return false
        }
        var matches = available > expected.count
        if matches {
            for k in 0..<expected.count {
                let c = b[start + k]
                if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != expected[k] { matches = false; break }
            }
            let first = b[start + expected.count] | 0x20
            if first < 0x61 || first > 0x7A { matches = false }
        }
        if matches {
            checkedHeader = true
            if start == 3 || (start > 0 && b[0] == 0xEF) { headerBuffer.removeFirst(3) }
            return true
        }
        let head = b[start..<min(b.count, start + 200)]
        if head.contains(0) || head.filter({ $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }).count > 2 {
            throw CalpipeError("not an iCalendar file (binary data; expected BEGIN:VCALENDAR)", file: label)
        }
        var firstLine = String(decoding: head.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        if firstLine.count > 40 { firstLine = String(firstLine.prefix(40)) + "..." }
        throw CalpipeError("not an iCalendar file (expected BEGIN:VCALENDAR, found \"\(firstLine)\")", file: label)
    }

    // MARK: - Line assembly

    private func scan(_ buffer: UnsafeBufferPointer<UInt8>) throws {
        guard let base = buffer.baseAddress else { return }
        let n = buffer.count
        var i = 0
        while i < n {
            if atLineStart {
                let c = base[i]
                atLineStart = false
                if haveLine, c == 0x20 || c == 0x09 {
                    i += 1  // folded continuation: drop the leading white space
                    continue
                }
                if haveLine { try processLine() }
                haveLine = true
                logicalStart = physicalLine
                continue
            }
            let end: Int
            let foundLF: Bool
            if let p = memchr(base + i, 0x0A, n - i) {
                end = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
                foundLF = true
            } else {
                end = n
                foundLF = false
            }
            // A whole line in this chunk, not folded (the next one starts with no blank): handled where it is.
            if foundLF, line.isEmpty, !lineOverlong, end + 1 < n, base[end + 1] != 0x20, base[end + 1] != 0x09,
               end - i <= limits.maxLineBytes {
                let stop = end > i && base[end - 1] == 0x0D ? end - 1 : end
                try handle(UnsafeBufferPointer(start: base + i, count: stop - i), number: logicalStart)
                haveLine = false
                physicalLine += 1
                atLineStart = true
                i = end + 1
                continue
            }
            if end > i {
                if line.count + (end - i) > limits.maxLineBytes {
                    lineOverlong = true
                } else {
                    line.append(contentsOf: UnsafeBufferPointer(start: base + i, count: end - i))
                }
            }
            if foundLF {
                if line.last == 0x0D { line.removeLast() }
                physicalLine += 1
                atLineStart = true
                i = end + 1
            } else {
                i = n
            }
        }
    }

    /// Handles the completed logical line in `line`, then clears it.
    private func processLine() throws {
        defer {
            line.removeAll(keepingCapacity: true)
            if line.capacity > 1 << 16 { line = []; line.reserveCapacity(4096) }
            lineOverlong = false
        }
        let number = logicalStart
        if lineOverlong {
            try lineError(number, "line is longer than \(limits.maxLineBytes) bytes")
            return
        }
        try line.withUnsafeBufferPointer { try handle($0, number: number) }
    }

    /// Handles one complete logical line (not overlong).
    private func handle(_ b: UnsafeBufferPointer<UInt8>, number: Int) throws {
        if b.isEmpty || (b[0] == 0x20 && !b.contains { $0 != 0x20 && $0 != 0x09 }) { return }
        if b[0] == 0xEF, b.count >= 3, b[1] == 0xBB, b[2] == 0xBF {
            // A byte order mark inside the input (concatenated files): dropped.
            return try handle(UnsafeBufferPointer(rebasing: b[3...]), number: number)
        }
        if !skipping.isEmpty {
            if let name = Self.keyword(b, "BEGIN:") {
                if Self.calendarLevel.contains(name) {
                    // A component that can only stand at calendar level: what is skipped was never closed.
                    // Resynchronise here (issue 15: `END:VTOOD` must not swallow the rest of the file).
                    try endSkipping(at: number)
                } else {
                    if skipping.count < limits.maxDepth { skipping.append(name) } else { skippingOverflow += 1 }
                    return
                }
            } else if let name = Self.keyword(b, "END:") {
                if skippingOverflow > 0 {
                    skippingOverflow -= 1
                } else if name == skipping.last {
                    skipping.removeLast()
                }
                if skipping.isEmpty, skippingCounts { try emit(.skip(name)) }
                return
            } else {
                return
            }
        }
        // Most lines are properties: only a line starting with B or E can be BEGIN: or END:.
        let first = b[0] | 0x20
        if first == 0x62, let name = Self.keyword(b, "BEGIN:") {
            try begin(name, line: number, text: b)
        } else if first == 0x65, let name = Self.keyword(b, "END:") {
            try end(name, line: number, text: b)
        } else {
            try property(b, line: number)
        }
    }

    /// "BEGIN:VEVENT" -> "VEVENT" (upper-cased, trailing blanks removed) when the line starts with `prefix`.
    private static func keyword(_ b: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> String? {
        let p = prefix.utf8Start
        let count = prefix.utf8CodeUnitCount
        guard b.count >= count else { return nil }  // "BEGIN:" with no name is a component too (with a bad name)
        for k in 0..<count {
            let c = b[k]
            if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != p[k] { return nil }
        }
        var end = b.count
        while end > count, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
        return String(unsafeUninitializedCapacity: end - count) { out in
            for k in count..<end {
                let c = b[k]
                out[k - count] = (c >= 0x61 && c <= 0x7A) ? c - 32 : c
            }
            return end - count
        }
    }

    // MARK: - Components

    private var eventIndex: Int? { stack.lastIndex { $0.kind == .event } }

    private func appendText(_ b: UnsafeBufferPointer<UInt8>) {
        guard let e = eventIndex else { return }
        stack[e].text.append(contentsOf: b)
        stack[e].text.append(0x0D)
        stack[e].text.append(0x0A)
    }

    /// A problem with one line: inside an event the line is dropped (a repair of that event); outside of events
    /// the line is ignored with a warning (a rejection under `strict`).
    /// Parses the lines an open event left unparsed, before anything else happens to it (see the type's note).
    private func settleEvent() throws {
        guard let e = eventIndex, stack[e].deferred else { return }
        stack[e].parseDeferredLines { try? noteLatin1(line: $0) }
    }

    private func lineError(_ number: Int, _ reason: String) throws {
        try settleEvent()
        try repair(.malformedLine, number, reason, "the line is dropped")
    }

    /// Something in the structure was wrong and was repaired: recorded on the enclosing event (reported with its
    /// UID), else a warning (a rejection under `strict`).
    private func repair(_ kind: RepairKind, _ number: Int, _ reason: String, _ action: String) throws {
        if let e = eventIndex {
            stack[e].repair(kind, line: number, reason, action)
        } else {
            try fileRepair(kind, number, reason, action)
        }
    }

    /// A repair that belongs to no event: reported without UID, or a rejection under `strict`.
    private func fileRepair(_ kind: RepairKind, _ number: Int, _ reason: String, _ action: String) throws {
        if strict {
            try emit(.reject(line: number, reason: reason))
        } else {
            try emit(.repair(line: number, reason: reason, action: action, kind: kind))
        }
    }

    /// Components that stand only at calendar level: their BEGIN ends whatever was left open inside the calendar.
    static let calendarLevel: Set<String> = ["VCALENDAR", "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY"]

    /// RFC 5545 3.1: a name is an iana-token or x-name, letters, digits and "-" only. Anything else would make
    /// every writer's output malformed (issue 16), so such components are skipped on input.
    static func isValidName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { b in
            guard !b.isEmpty else { return false }
            for c in b where !((c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D) {
                return false
            }
            return true
        }
    }

    private func begin(_ name: String, line number: Int, text: UnsafeBufferPointer<UInt8>) throws {
        if stack.last?.kind == .event { try settleEvent() }
        warnedOutside = false
        guard Self.isValidName(name) else {
            try repair(.invalidComponentName, number, "BEGIN:\(Self.shown(name)) is not a valid component name", "the component is skipped")
            skip(name, line: number, counted: false)
            return
        }
        if let open = stack.last, open.kind != .calendar, Self.calendarLevel.contains(name) {
            // Resynchronise: what is open inside the calendar was never closed; it is closed here and kept.
            while let top = stack.last, top.kind != .calendar { try closeUnclosed(at: number) }
        }
        // Every component counts, whatever its name (issue 16).
        if stack.count >= limits.maxDepth {
            try repair(.nestingTooDeep, number, "components nested deeper than \(limits.maxDepth) levels", "the component is skipped")
            skip(name, line: number, counted: false)
            return
        }
        if stack.isEmpty, name != "VCALENDAR" {
            // A component without its VCALENDAR (a bare VEVENT): read as if it had one.
            try repair(.componentOutsideCalendar, number, "BEGIN:\(name) outside of a VCALENDAR", "read as if inside one")
            if strict {
                skip(name, line: number, counted: false)
                return
            }
            let calendar = ICSFrame(kind: .calendar, name: "VCALENDAR", beginLine: number)
            calendar.implicit = true
            stack.append(calendar)
            try emit(.calendarBegin)
        }
        guard let top = stack.last else {
            stack.append(ICSFrame(kind: .calendar, name: name, beginLine: number))
            try emit(.calendarBegin)
            return
        }
        switch top.kind {
        case .calendar:
            switch name {
            case "VEVENT":
                let frame = ICSFrame(kind: .event, name: name, beginLine: number)
                frame.text.reserveCapacity(960)
                frame.deferred = true
                frame.lineNumbers.reserveCapacity(16)
                stack.append(frame)
                appendText(text)
            case "VTIMEZONE":
                stack.append(ICSFrame(kind: .timezone, name: name, beginLine: number))
            case "VCALENDAR":
                // A VCALENDAR nested in a VCALENDAR: its components are read like the outer one's.
                stack.append(ICSFrame(kind: .calendar, name: name, beginLine: number))
                try emit(.calendarBegin)
            default:
                // VTODO, VJOURNAL, VFREEBUSY, VAVAILABILITY, x-components: skipped and counted.
                skip(name, line: number, counted: true)
            }
        case .event, .nested, .timezone:
            stack.append(ICSFrame(kind: .nested, name: name, beginLine: number))
            appendText(text)
        }
    }

    /// A name as shown in a message (an empty one as such).
    private static func shown(_ name: String) -> String {
        name.isEmpty ? "" : name.count > 40 ? String(name.prefix(40)) + "..." : name
    }

    private func skip(_ name: String, line number: Int, counted: Bool) {
        skipping = [name]
        skippingOverflow = 0
        skippingLine = number
        skippingCounts = counted
    }

    /// Ends skipping a component that was never closed (at line `number`, or at the end of the input: nil).
    private func endSkipping(at number: Int?) throws {
        guard !skipping.isEmpty else { return }
        let name = skipping[0]
        if skippingCounts {
            let action = number.map { "skipped up to line \($0)" } ?? "skipped to the end of the input"
            if strict {
                try emit(.reject(line: skippingLine, reason: "BEGIN:\(name) has no END:\(name)"))
            } else {
                try emit(.warn("\(label):\(skippingLine): BEGIN:\(name) has no END:\(name): \(action)"))
            }
            try emit(.skip(name))
        }
        skipping = []
        skippingOverflow = 0
    }

    /// Closes the innermost open component, which was never closed (the END never came): what was read of it is
    /// kept. `number` is the line where this was noticed (nil: the end of the input).
    private func closeUnclosed(at number: Int?) throws {
        guard let open = stack.last else { return }
        let reason = "BEGIN:\(open.name) at line \(open.beginLine) has no END:\(open.name)"
        let action = number.map { "closed at line \($0)" } ?? "closed at the end of the input"
        switch open.kind {
        case .calendar:
            // A missing END:VCALENDAR loses nothing, but the file is not whole (a truncated download).
            if !open.implicit { try fileRepair(.unclosedCalendar, open.beginLine, reason, action) }
        case .event:
            try settleEvent()
            open.repair(.unclosedComponent, line: open.beginLine, reason, action)
        case .nested:
            try settleEvent()
            if let e = stack.dropLast().lastIndex(where: { $0.kind == .event }) {
                stack[e].repair(.unclosedComponent, line: open.beginLine, reason, action)
            }
        case .timezone:
            try fileRepair(.unclosedComponent, open.beginLine, reason, action)
        }
        try closeTop(line: number ?? open.beginLine)
    }

    private func end(_ name: String, line number: Int, text: UnsafeBufferPointer<UInt8>) throws {
        guard let top = stack.last else {
            try repair(.endWithoutBegin, number, "END:\(Self.shown(name)) without a matching BEGIN", "ignored")
            return
        }
        if name != top.name {
            try settleEvent()
            if stack.contains(where: { $0.name == name }) {
                // Close the components that were never ended, then the matching one.
                while let open = stack.last, open.name != name { try closeUnclosed(at: number) }
            } else {
                // An END nothing open has (`END:VTOOD`): ignored; the next BEGIN at calendar level resynchronises.
                try repair(.endMismatch, number, "END:\(Self.shown(name)) does not match BEGIN:\(top.name) at line \(top.beginLine)", "ignored")
                return
            }
        }
        appendText(text)
        try closeTop(line: number)
    }

    private func closeTop(line number: Int) throws {
        let frame = stack.removeLast()
        switch frame.kind {
        case .calendar:
            try emit(.calendarEnd)
        case .event:
            if let unchanged, frame.failure == nil, unchanged(frame.text.withUnsafeBytes(Fingerprint.rawText(bytes:)), frame.beginLine) { return }
            try emit(.event(frame))
        case .timezone:
            try emit(.timezone(frame))
        case .nested:
            stack[stack.count - 1].children.append(frame.rawComponent)
        }
    }

    private func property(_ b: UnsafeBufferPointer<UInt8>, line number: Int) throws {
        guard let top = stack.last else {
            // Once per stretch of such lines.
            if !warnedOutside || strict { try repair(.contentOutsideCalendar, number, "content outside of a VCALENDAR", "ignored") }
            warnedOutside = true
            return
        }
        if top.kind == .calendar {
            // Calendar properties: only X-WR-TIMEZONE, the calendar's name and its colour matter; don't build strings
            // for the others.
            guard Self.hasPrefix(b, "X-WR-TIMEZONE") || Self.hasPrefix(b, "X-WR-CALNAME") || Self.hasPrefix(b, "NAME")
                || Self.hasPrefix(b, "COLOR") || Self.hasPrefix(b, "X-APPLE-CALENDAR-COLOR") || Self.hasPrefix(b, "X-WR-CALCOLOR") else {
                if !b.contains(0x3A) { try lineError(number, ICSContentLine.SyntaxError.noColon.reason) }
                return
            }
            var dropped: [ICSContentLine.DroppedParameter] = []
            let parsed: ICSContentLine
            do {
                parsed = try ICSContentLine.parse(b, line: number, decodeValue: decode, dropped: &dropped)
            } catch {
                try lineError(number, error.reason)  // said, not silently ignored
                return
            }
            for d in dropped { try repair(.malformedParameter, number, d.reason, d.action) }
            do {
                switch parsed.name {
                case "X-WR-TIMEZONE": try emit(.calendarTimeZone(name: parsed.value.trimmingCharacters(in: .whitespaces), line: number))
                case "X-WR-CALNAME", "NAME":
                    let name = ICSText.unescape(parsed.value).trimmingCharacters(in: .whitespaces)
                    if !name.isEmpty { try emit(.calendarName(name)) }
                case "COLOR", "X-APPLE-CALENDAR-COLOR", "X-WR-CALCOLOR":
                    // A value that is not a colour is left out (the events keep the source's or the page's colour).
                    if let hex = CSSColor.hex(ICSText.unescape(parsed.value), allowAlpha: true) {
                        try emit(.calendarColor(hex, rank: parsed.name == "COLOR" ? 0 : parsed.name == "X-APPLE-CALENDAR-COLOR" ? 1 : 2))
                    }
                default: break
                }
            }
            return
        }
        if top.kind == .event {
            top.text.append(contentsOf: b)
            top.text.append(0x0D)
            top.text.append(0x0A)
            if top.deferred {
                top.lineNumbers.append(number)
                if ICSContentLine.isAttendee(b) { top.attendeeLines += 1 }
                return
            }
        } else {
            appendText(b)
        }
        var dropped: [ICSContentLine.DroppedParameter] = []
        do {
            try top.addProperty(b, line: number, decode: decode, dropped: &dropped)
        } catch {
            try lineError(number, error.reason)
            return
        }
        if !dropped.isEmpty {
            try settleEvent()  // the event's earlier lines say their repairs first
            for d in dropped { try repair(.malformedParameter, number, d.reason, d.action) }
        }
    }

    private static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let p = prefix.utf8Start
        let count = prefix.utf8CodeUnitCount
        guard b.count >= count else { return false }
        for k in 0..<count {
            let c = b[k]
            if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != p[k] { return false }
        }
        return true
    }

    /// UTF-8 values as they are; anything else is read as Windows-1252 or with U+FFFD (`ICSText.decode`) (the builder warns once per input).
    private func decode(_ b: UnsafeBufferPointer<UInt8>) -> String {
        let (text, valid) = ICSText.decode(b)
        if !valid { try? noteLatin1(line: logicalStart) }
        return text
    }

    /// Reports a line that is not UTF-8. The builder keeps the first in input order; this spares it the repeats
    /// from the lines read here (events left to the workers report theirs themselves).
    private func noteLatin1(line: Int) throws {
        // Under strict such text in an event rejects the event (at its END), not the file.
        if strict, let e = eventIndex {
            stack[e].fail(line: line, ICSEventBuilder.notUTF8)
            return
        }
        guard !sawLatin1 else { return }
        sawLatin1 = true
        try emit(.latin1(line: line))
    }
}
