import Foundation
import Pipeline

/// A streaming iCalendar (RFC 5545) reader: feed it bytes in chunks of any size, it calls back with each
/// VEVENT as an `Event`, each rejected component with its location and reason, and each warning.
///
/// This is the reusable entry point for everything that carries iCalendar text: the `ics` source feeds it file
/// chunks; the CalDAV importer feeds it the text of each `calendar-data` element, with `firstLine` set to where
/// that text starts in the XML document so messages point at the right line.
///
/// ```swift
/// let reader = ICSReader(label: "team.ics", zones: context.environment.zones, fallbackZone: context.zone,
///                        handlers: .init(event: { events.append($0) },
///                                        reject: { context.report.reject($0, $1) },
///                                        warn: { context.warn($0) },
///                                        skip: { context.report.count("skipped " + $0) }))
/// try reader.feed(chunk)   // any number of times
/// try reader.finish()
/// ```
///
/// Guarantees: bytes are scanned for line ends and split on bytes; Strings are made only for the content lines
/// of components that are kept (VEVENT, VALARM, VTIMEZONE); one component at a time is held in memory (plus
/// events whose TZID is defined by a VTIMEZONE that comes later in the same VCALENDAR). Malformed lines,
/// bad values and BEGIN/END mismatches reject the enclosing VEVENT and reading goes on. Lines longer than
/// `Limits.maxLineBytes` and nesting deeper than `Limits.maxDepth` are rejected the same way. The only error
/// thrown by the reader itself is `ICSError` for input that is not iCalendar at all; errors thrown by the
/// handlers propagate.
public final class ICSReader {
    /// Callbacks. `event` and `reject` may throw; the error stops reading and comes out of `feed`/`finish`.
    public struct Handlers {
        /// Takes the event (consuming: a handler that stores it needs no copy).
        public var event: (consuming Event) throws -> Void
        public var reject: (SourceLocation, String) throws -> Void
        public var warn: (String) -> Void
        /// Called once per skipped top-level component (VTODO, VJOURNAL, VFREEBUSY, ...) with its name.
        public var skip: (String) -> Void

        public init(event: @escaping (consuming Event) throws -> Void, reject: @escaping (SourceLocation, String) throws -> Void,
                    warn: @escaping (String) -> Void = { _ in }, skip: @escaping (String) -> Void = { _ in }) {
            self.event = event
            self.reject = reject
            self.warn = warn
            self.skip = skip
        }
    }

    /// Caps that keep hostile input from exhausting memory.
    public struct Limits: Sendable {
        public var maxLineBytes: Int
        public var maxDepth: Int
        public init(maxLineBytes: Int = 4 << 20, maxDepth: Int = 16) {
            self.maxLineBytes = maxLineBytes
            self.maxDepth = maxDepth
        }
    }

    /// The file label used in every location and message.
    public let label: String
    let zones: ZoneDatabase
    let fallbackZone: Zone
    let limits: Limits
    let handlers: Handlers

    // Line assembly.
    @exclusivity(unchecked) private var line: [UInt8] = []
    @exclusivity(unchecked) private var lineOverlong = false
    @exclusivity(unchecked) private var haveLine = false
    @exclusivity(unchecked) private var atLineStart = true
    @exclusivity(unchecked) private var physicalLine: Int
    @exclusivity(unchecked) private var logicalStart: Int
    private var checkedHeader = false
    private var headerBuffer: [UInt8] = []
    private var sawLatin1Warning = false

    // Component state.
    @exclusivity(unchecked) var stack: [Frame] = []
    /// Names of the components being skipped (innermost last); empty when not skipping.
    @exclusivity(unchecked) private var skipping: [String] = []
    private var skippingLine = 0
    /// Whether the skipped component is counted (VTODO, ...) or was already reported as an error.
    private var skippingCounts = false
    /// Zones defined by VTIMEZONE components of this input, by TZID.
    var fileZones: [String: Zone] = [:]
    /// VTIMEZONE components of this input not yet built, by TZID, with their line.
    var fileZoneDefinitions: [String: (RawComponent, Int)] = [:]
    var zoneCache: [String: Zone] = [:]
    /// The two TZIDs resolved last (feeds alternate between a few zones): checked before hashing into `zoneCache`.
    var recentZones: (last: (tzid: String, zone: Zone)?, previous: (tzid: String, zone: Zone)?) = (nil, nil)
    /// Parsed RRULE/EXRULE values by text.
    var ruleCache: [String: RecurrenceRule] = [:]
    /// X-WR-TIMEZONE of the current VCALENDAR.
    var calendarZone: Zone?
    /// Events waiting for a VTIMEZONE that may come later in the VCALENDAR.
    var pending: [Frame] = []
    /// At most this many events wait for a later VTIMEZONE; then waiting stops for the rest of the VCALENDAR.
    static let maxPending = 1000
    /// Set once `maxPending` was reached in the current VCALENDAR: unknown TZIDs fall back at once.
    var deferralDisabled = false
    private var sawCalendar = false

    /// - Parameters:
    ///   - label: the file name (or URL) for messages.
    ///   - zones: the run's zone database (IANA names, prefixes, Windows names).
    ///   - fallbackZone: the zone for a TZID nothing defines (with a warning), usually the pipeline's zone.
    ///   - firstLine: the line number of the first byte fed, for text embedded in another document.
    public init(label: String, zones: ZoneDatabase, fallbackZone: Zone, firstLine: Int = 1, limits: Limits = Limits(), handlers: Handlers) {
        self.label = label
        self.zones = zones
        self.fallbackZone = fallbackZone
        self.limits = limits
        self.handlers = handlers
        physicalLine = firstLine
        logicalStart = firstLine
        line.reserveCapacity(4096)
    }

    /// Reads a whole buffer (feed + finish).
    public func parse(_ bytes: [UInt8]) throws {
        try feed(bytes)
        try finish()
    }

    /// Reads a whole string (feed + finish).
    public func parse(_ text: String) throws {
        try parse(Array(text.utf8))
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try feed($0) }
    }

    /// Feeds the next bytes of the input. Lines may be split anywhere, even inside a UTF-8 character.
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if !checkedHeader {
            headerBuffer.append(contentsOf: bytes)
            if try !checkHeader(final: false) { return }
            let buffered = headerBuffer
            headerBuffer = []
            try buffered.withUnsafeBufferPointer { try scan($0) }
            return
        }
        try scan(bytes)
    }

    /// Ends the input: processes the last line and reports components that were never closed.
    public func finish() throws {
        if !checkedHeader {
            if try !checkHeader(final: true) { return }
            let buffered = headerBuffer
            headerBuffer = []
            try buffered.withUnsafeBufferPointer { try scan($0) }
        }
        if haveLine {
            if line.last == 0x0D { line.removeLast() }
            try processLine()
            haveLine = false
        }
        // Unclosed components.
        if !skipping.isEmpty, skippingCounts {
            handlers.warn("\(label):\(skippingLine): BEGIN:\(skipping[0]) has no END:\(skipping[0])")
            skipping = []
        }
        while let frame = stack.popLast() {
            switch frame.kind {
            case .event:
                try handlers.reject(SourceLocation(file: label, line: frame.beginLine), "BEGIN:VEVENT at line \(frame.beginLine) has no END:VEVENT")
            case .calendar:
                try flushPending()
            default:
                if let event = stack.lastIndex(where: { $0.kind == .event }) { stack[event].fail(line: frame.beginLine, "BEGIN:\(frame.name) at line \(frame.beginLine) has no END:\(frame.name)") }
            }
        }
        try flushPending()
    }

    // MARK: - Header check

    /// Returns true once enough bytes were seen to know the input is iCalendar; throws when it is not.
    private func checkHeader(final: Bool) throws -> Bool {
        var start = 0
        let b = headerBuffer
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { start = 3 }
        while start < b.count, b[start] == 0x20 || b[start] == 0x09 || b[start] == 0x0D || b[start] == 0x0A { start += 1 }
        let expected = Array("BEGIN:VCALENDAR".utf8)
        let available = b.count - start
        if available < expected.count && !final && b.count < 4096 { return false }
        if available == 0 {
            checkedHeader = true
            handlers.warn("\(label): empty input, no VCALENDAR")
            return false
        }
        var matches = available >= expected.count
        if matches {
            for k in 0..<expected.count {
                let c = b[start + k]
                if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != expected[k] { matches = false; break }
            }
        }
        if matches {
            checkedHeader = true
            if start == 3 || (start > 0 && b[0] == 0xEF) { headerBuffer.removeFirst(3) }
            return true
        }
        let head = b[start..<min(b.count, start + 200)]
        if head.contains(0) || head.filter({ $0 < 0x09 || ($0 > 0x0D && $0 < 0x20) }).count > 2 {
            throw ICSError(label: label, message: "not an iCalendar file (binary data; expected BEGIN:VCALENDAR)")
        }
        var firstLine = String(decoding: head.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        if firstLine.count > 40 { firstLine = String(firstLine.prefix(40)) + "..." }
        throw ICSError(label: label, message: "not an iCalendar file (expected BEGIN:VCALENDAR, found \"\(firstLine)\")")
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
        if line.isEmpty || (line[0] == 0x20 && !line.contains { $0 != 0x20 && $0 != 0x09 }) { return }
        try line.withUnsafeBufferPointer { b in
            if !skipping.isEmpty {
                if let name = Self.keyword(b, "BEGIN:") {
                    skipping.append(name)
                } else if let name = Self.keyword(b, "END:") {
                    if name == skipping.last { skipping.removeLast() }
                    if skipping.isEmpty, skippingCounts { handlers.skip(name) }
                }
                return
            }
            if let name = Self.keyword(b, "BEGIN:") {
                try begin(name, line: number, text: b)
            } else if let name = Self.keyword(b, "END:") {
                try end(name, line: number, text: b)
            } else {
                try property(b, line: number)
            }
        }
    }

    /// "BEGIN:VEVENT" -> "VEVENT" (upper-cased, trailing blanks removed) when the line starts with `prefix`.
    private static func keyword(_ b: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> String? {
        let p = prefix.utf8Start
        let count = prefix.utf8CodeUnitCount
        guard b.count > count else { return nil }
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

    enum Kind { case calendar, event, timezone, nested }

    /// A component being read.
    struct Frame {
        var kind: Kind
        var name: String
        var beginLine: Int
        var properties: [ICSContentLine] = []
        var children: [RawComponent] = []
        /// The unfolded text of an event, CRLF after each line.
        var text: [UInt8] = []
        /// The first problem found inside an event: it is rejected at its END.
        var failure: (line: Int, reason: String)?

        mutating func fail(line: Int, _ reason: String) {
            if failure == nil { failure = (line, reason) }
        }

        var rawComponent: RawComponent {
            RawComponent(name: name, properties: properties.map(\.rawProperty), components: children)
        }
    }

    private var eventIndex: Int? { stack.lastIndex { $0.kind == .event } }

    private func appendText(_ b: UnsafeBufferPointer<UInt8>) {
        guard let e = eventIndex else { return }
        stack[e].text.append(contentsOf: b)
        stack[e].text.append(0x0D)
        stack[e].text.append(0x0A)
    }

    /// A problem with one line: rejects the enclosing event, or the line itself outside of events.
    private func lineError(_ number: Int, _ reason: String) throws {
        if let e = eventIndex {
            stack[e].fail(line: number, reason)
        } else {
            try handlers.reject(SourceLocation(file: label, line: number), reason)
        }
    }

    private func begin(_ name: String, line number: Int, text: UnsafeBufferPointer<UInt8>) throws {
        if stack.count >= limits.maxDepth {
            try lineError(number, "components nested deeper than \(limits.maxDepth) levels")
            skip(name, line: number, counted: false)
            return
        }
        guard let top = stack.last else {
            if name == "VCALENDAR" {
                stack.append(Frame(kind: .calendar, name: name, beginLine: number))
                calendarZone = nil
                deferralDisabled = false
                sawCalendar = true
            } else {
                try handlers.reject(SourceLocation(file: label, line: number), "BEGIN:\(name) outside of a VCALENDAR")
                skip(name, line: number, counted: false)
            }
            return
        }
        switch top.kind {
        case .calendar:
            switch name {
            case "VEVENT":
                var frame = Frame(kind: .event, name: name, beginLine: number)
                frame.text.reserveCapacity(1024)
                frame.properties.reserveCapacity(24)
                stack.append(frame)
                appendText(text)
            case "VTIMEZONE":
                stack.append(Frame(kind: .timezone, name: name, beginLine: number))
            default:
                // VTODO, VJOURNAL, VFREEBUSY, VAVAILABILITY, x-components: skipped and counted.
                skip(name, line: number, counted: true)
            }
        case .event where name == "VEVENT":
            // A VEVENT that never ended: reject it and start the new one.
            let open = stack.removeLast()
            try handlers.reject(SourceLocation(file: label, line: open.beginLine), "BEGIN:VEVENT at line \(open.beginLine) has no END:VEVENT")
            try begin(name, line: number, text: text)
        case .event, .nested, .timezone:
            stack.append(Frame(kind: .nested, name: name, beginLine: number))
            appendText(text)
        }
    }

    private func skip(_ name: String, line number: Int, counted: Bool) {
        skipping = [name]
        skippingLine = number
        skippingCounts = counted
    }

    private func end(_ name: String, line number: Int, text: UnsafeBufferPointer<UInt8>) throws {
        guard let top = stack.last else {
            try handlers.reject(SourceLocation(file: label, line: number), "END:\(name) without a matching BEGIN")
            return
        }
        if name != top.name {
            if let match = stack.lastIndex(where: { $0.name == name }) {
                // Close the components that were never ended, then the matching one.
                while stack.count - 1 > match {
                    let open = stack[stack.count - 1]
                    let reason = "BEGIN:\(open.name) at line \(open.beginLine) has no END:\(open.name)"
                    if open.kind == .event {
                        stack.removeLast()
                        try handlers.reject(SourceLocation(file: label, line: open.beginLine), reason)
                    } else {
                        try lineError(open.beginLine, reason)
                        try closeTop(line: number)
                    }
                }
            } else {
                try lineError(number, "END:\(name) does not match BEGIN:\(top.name) at line \(top.beginLine)")
                if top.kind == .calendar { return }
            }
        }
        appendText(text)
        try closeTop(line: number)
    }

    private func closeTop(line number: Int) throws {
        let frame = stack.removeLast()
        switch frame.kind {
        case .calendar:
            try flushPending()
            calendarZone = nil
        case .event:
            try finishEvent(frame, final: false)
        case .timezone:
            defineZone(frame)
        case .nested:
            stack[stack.count - 1].children.append(frame.rawComponent)
        }
    }

    /// Keeps a VTIMEZONE; it is turned into a `Zone` only when a TZID is not known to the zone database
    /// (most files name IANA or Windows zones, whose VTIMEZONEs then cost nothing).
    private func defineZone(_ frame: Frame) {
        var component = frame.rawComponent
        // TZID is TEXT: "Amsterdam\, Berlin" names the zone "Amsterdam, Berlin" that TZID parameters use.
        if let i = component.properties.firstIndex(where: { $0.name == "TZID" }) {
            component.properties[i].value = ICSText.unescape(component.properties[i].value)
        }
        guard let tzid = component.properties.first(where: { $0.name == "TZID" })?.value, !tzid.isEmpty else {
            handlers.warn("\(label):\(frame.beginLine): VTIMEZONE has no TZID, ignored")
            return
        }
        fileZoneDefinitions[tzid] = (component, frame.beginLine)
        fileZones[tzid] = nil
        zoneCache[tzid] = nil
        recentZones = (nil, nil)
    }

    /// The zone a VTIMEZONE of this input defines for `tzid`, built on first use.
    func fileZone(_ tzid: String) -> Zone? {
        if let built = fileZones[tzid] { return built }
        guard let (component, line) = fileZoneDefinitions[tzid] else { return nil }
        do {
            let zone = try VTimeZone.zone(from: component)
            fileZones[tzid] = zone
            return zone
        } catch {
            fileZoneDefinitions[tzid] = nil
            handlers.warn("\(label):\(line): VTIMEZONE \"\(tzid)\" cannot be used: \(error)")
            return nil
        }
    }

    private func property(_ b: UnsafeBufferPointer<UInt8>, line number: Int) throws {
        guard let top = stack.last else {
            try handlers.reject(SourceLocation(file: label, line: number), "content outside of a VCALENDAR")
            return
        }
        if top.kind == .calendar {
            // Calendar properties: only X-WR-TIMEZONE matters; don't build strings for the others.
            guard Self.hasPrefix(b, "X-WR-TIMEZONE") else {
                if !b.contains(0x3A) { try lineError(number, ICSContentLine.SyntaxError.noColon.reason) }
                return
            }
            if let parsed = try? ICSContentLine.parse(b, line: number, decodeValue: decode), parsed.name == "X-WR-TIMEZONE" {
                let name = parsed.value.trimmingCharacters(in: .whitespaces)
                if let zone = zones.zone(named: name) {
                    calendarZone = zone
                } else {
                    handlers.warn("\(label):\(number): unknown X-WR-TIMEZONE \"\(name)\", floating times stay floating")
                }
            }
            return
        }
        appendText(b)
        do {
            let parsed = try ICSContentLine.parse(b, line: number, decodeValue: decode)
            stack[stack.count - 1].properties.append(parsed)
        } catch {
            try lineError(number, error.reason)
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

    /// UTF-8 values as they are; anything else is read as Latin-1 (with one warning per input).
    private func decode(_ b: UnsafeBufferPointer<UInt8>) -> String {
        let decoded = String(decoding: b, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, so the bytes come out unchanged exactly when
        // they were valid UTF-8. (One fast pass instead of the generic `String(validating:)`.)
        var check = decoded
        let valid = check.withUTF8 { u in
            u.count == b.count && (u.isEmpty || memcmp(u.baseAddress!, b.baseAddress!, u.count) == 0)
        }
        if valid { return decoded }
        if !sawLatin1Warning {
            sawLatin1Warning = true
            handlers.warn("\(label):\(logicalStart): text is not valid UTF-8, read as Latin-1")
        }
        return String(b.map { Character(Unicode.Scalar($0)) })
    }

    // MARK: - Events

    private func finishEvent(_ frame: Frame, final: Bool) throws {
        if let failure = frame.failure {
            try handlers.reject(SourceLocation(file: label, line: failure.line), failure.reason)
            return
        }
        switch buildEvent(frame, final: final) {
        case .event(let event): try handlers.event(event)
        case .rejected(let line, let reason): try handlers.reject(SourceLocation(file: label, line: line), reason)
        case .waitForZone:
            pending.append(frame)
            // Producers write VTIMEZONEs first; a feed full of TZIDs nothing defines must not be held whole.
            if pending.count >= Self.maxPending {
                deferralDisabled = true
                try flushPending()
            }
        }
    }

    private func flushPending() throws {
        let waiting = pending
        pending = []
        for frame in waiting { try finishEvent(frame, final: true) }
    }
}

/// Input that is not iCalendar at all (an HTML error page, a binary file): one error for the whole input.
public struct ICSError: Error, CustomStringConvertible, Sendable {
    public var label: String
    public var message: String

    public init(label: String, message: String) {
        self.label = label
        self.message = message
    }

    public var description: String { "\(label): \(message)" }
}
