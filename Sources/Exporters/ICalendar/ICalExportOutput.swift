import Pipeline

/// The shared body of the `ics`, `xcal` and `jcal` sinks. Events (or occurrences) are walked by
/// `ICalEventWriter` into typed properties and rendered straight into the chosen syntax, batch by batch, into
/// a scratch file; at commit the calendar head (`ICalCalendarHead`) and the VTIMEZONEs of the zones used are
/// written, then the events, atomically.
///
/// @unchecked Sendable: its scratch file and counts are the run's, used as the `Sink` contract says (open, write,
/// commit in turn, never two at once, one run at a time).
final class ICalExportOutput: @unchecked Sendable {
    enum Format { case ics, xcal, jcal }

    let path: String
    let expand: Bool
    let format: Format
    let head: ICalCalendarHead
    private var file: AtomicFile?
    private var scratch: ScratchFile?
    private var ics = ICalEventWriter(output: ICSLineWriter())
    private var xcal: ICalEventWriter<XCalContentWriter>
    private var jcal: ICalEventWriter<JCalContentWriter>
    private let bytes = JSONBytes(pretty: false, capacity: 1 << 16)
    private var rows = 0
    /// With a window and without `expand`: the window bounds what is exported. A single event is written with the
    /// batch that brings its occurrence (none: it is left out); the parts of series wait in `spool` until commit,
    /// and only those that had an occurrence in the window (`inWindow`, from the expand stage's occurrences, which
    /// for a series come at the end of the run) are written, series still as series, after the single events.
    let windowed: Bool
    private var spool: EventSpool?
    private var spooledKeys: [Int] = []
    private var inWindow: Set<Int> = []
    /// Events left out for having no occurrence in the window, for the summary.
    private(set) var outsideWindow = 0

    init(path: String, expand: Bool, format: Format, head: ICalCalendarHead = ICalCalendarHead(), windowed: Bool = false) {
        self.path = path
        self.expand = expand
        self.windowed = windowed && !expand
        self.format = format
        self.head = head
        xcal = ICalEventWriter(output: XCalContentWriter(out: bytes, indent: 3))
        jcal = ICalEventWriter(output: JCalContentWriter(out: bytes, indent: 2))
    }

    func open(context: RunContext) throws {
        file = try AtomicFile(path: path, cancellation: context.cancellation)
        scratch = try ScratchFile()
        let year = max(2037, context.window?.to.year ?? 0)
        let stamp = context.environment.now
        ics = ICalEventWriter(output: ICSLineWriter(), openEndedYear: year, stamp: stamp)
        xcal = ICalEventWriter(output: XCalContentWriter(out: bytes, indent: 3), openEndedYear: year, stamp: stamp)
        jcal = ICalEventWriter(output: JCalContentWriter(out: bytes, indent: 2), openEndedYear: year, stamp: stamp)
        bytes.removeAll()
        rows = 0
        outsideWindow = 0
        spooledKeys = []
        inWindow = []
        spool = windowed && context.window != nil ? EventSpool() : nil
    }

    /// An event's identity for the window test: its source, UID, RECURRENCE-ID and line (events of one feed that
    /// share a UID stay apart).
    private static func key(_ event: Event) -> Int {
        var hasher = Hasher()
        hasher.combine(event.metadata["source"])
        hasher.combine(event.uid)
        hasher.combine(event.recurrenceID)
        hasher.combine(event.origin?.line)
        return hasher.finalize()
    }

    func write(_ batch: Batch) throws {
        if let spool {
            // A single event's occurrence comes in its own batch (the expand stage hands it on at once): it is
            // written now, or left out when it has none. Only the parts of series wait, since their occurrences
            // come at the end of the run.
            var here: Set<Int> = []
            if batch.content.contains(.occurrences) {
                for occurrence in batch.occurrences {
                    let event = occurrence.event
                    if event.isRecurring || event.recurrenceID != nil { inWindow.insert(Self.key(event)) } else { here.insert(Self.key(event)) }
                }
            }
            var singles: [Event] = []
            for i in batch.events.indices {
                if batch.events[i].isRecurring || batch.events[i].recurrenceID != nil {
                    try spool.append(batch.events[i])
                    spooledKeys.append(Self.key(batch.events[i]))
                } else if here.contains(Self.key(batch.events[i])) {
                    singles.append(batch.events[i])
                } else {
                    outsideWindow += 1
                }
            }
            if !singles.isEmpty { try render(Batch(events: singles)) }
            return
        }
        try render(batch)
    }

    /// Writes the spooled events that had an occurrence in the window, in the order they came.
    private func writeSpooled(_ spool: EventSpool) throws {
        var chunk: [Event] = []
        try spool.forEach(where: { self.inWindow.contains(self.spooledKeys[$0]) }) { event in
            chunk.append(event)
            if chunk.count >= 512 {
                try render(Batch(events: chunk))
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { try render(Batch(events: chunk)) }
        outsideWindow += spooledKeys.count - spooledKeys.filter { inWindow.contains($0) }.count
        spool.close()
        self.spool = nil
    }

    private func render(_ batch: Batch) throws {
        guard let scratch else { return }
        switch format {
        case .ics:
            if expand {
                for occurrence in batch.effectiveOccurrences { ics.write(occurrence); rows += 1 }
            } else {
                for event in batch.events { ics.write(event); rows += 1 }
            }
            _ = try scratch.append(ics.output.bytes)
            ics.output.removeAll()
        case .xcal:
            if expand {
                for occurrence in batch.effectiveOccurrences { xcal.write(occurrence) }
            } else {
                for event in batch.events { xcal.write(event) }
            }
            rows = xcal.output.componentsWritten
        case .jcal:
            if expand {
                for occurrence in batch.effectiveOccurrences { jcal.write(occurrence) }
            } else {
                for event in batch.events { jcal.write(event) }
            }
            rows = jcal.output.componentsWritten
        }
        if bytes.count > 0 {
            _ = try scratch.append(bytes.bytes)
            bytes.removeAll()
        }
    }

    /// Kept components and properties left out for their names, for the warning.
    private var skippedNames: [String] {
        switch format {
        case .ics: return ics.skippedNames
        case .xcal: return xcal.skippedNames
        case .jcal: return jcal.skippedNames
        }
    }

    private var zonesUsed: [(zone: Zone, tzid: String, firstYear: Int, lastYear: Int)] {
        switch format {
        case .ics: return ics.zonesUsed
        case .xcal: return xcal.zonesUsed
        case .jcal: return jcal.zonesUsed
        }
    }

    func commit(context: RunContext, label: String) throws -> Int {
        if let spool { try writeSpooled(spool) }
        guard let file, let scratch else { return 0 }
        if outsideWindow > 0 {
            context.report.count("\(label): events outside the window left out", by: outsideWindow)
        }
        let skipped = skippedNames
        if !skipped.isEmpty {
            let names = Set(skipped).sorted().prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
            context.warn("\(label): left out \(skipped.count) kept component\(skipped.count == 1 ? "" : "s") with no letter or digit in \(skipped.count == 1 ? "its name" : "their names") (\(names)): iCalendar names are letters, digits and \"-\"")
        }
        let zones = zonesUsed.map { used in
            (used, used.firstYear <= used.lastYear ? used.firstYear...used.lastYear : 1970...1970)
        }
        switch format {
        case .ics:
            var lines = ICSLineWriter()
            lines.begin("VCALENDAR")
            for p in head.properties { lines.property(p.name, p.parameters, p.value) }
            for (used, years) in zones { ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &lines) }
            try file.write(bytes: lines.bytes)
            try scratch.copy { try file.write(bytes: $0) }
            var tail = ICSLineWriter()
            tail.end("VCALENDAR")
            try file.write(bytes: tail.bytes)
        case .xcal:
            let out = JSONBytes(pretty: false)
            out.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<icalendar xmlns=\"")
            out.append(XCalContentWriter.namespace)
            out.raw("\">\n <vcalendar>\n  <properties>\n")
            var writer = XCalContentWriter(out: out, indent: 3)
            for p in head.properties {
                out.raw("   ")
                writer.write(p.name, p.parameters, p.value)
                out.byte(0x0A)
            }
            out.raw("  </properties>\n  <components>\n")
            for (used, years) in zones { ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &writer) }
            try file.write(bytes: out.bytes)
            try scratch.copy { try file.write(bytes: $0) }
            try file.write("  </components>\n </vcalendar>\n</icalendar>\n")
        case .jcal:
            let out = JSONBytes(pretty: false)
            out.raw("[\"vcalendar\",\n  [\n")
            var writer = JCalContentWriter(out: out, indent: 2)
            for (i, p) in head.properties.enumerated() {
                out.raw(i == 0 ? "    " : ",\n    ")
                writer.write(p.name, p.parameters, p.value)
            }
            out.raw("\n  ],\n  [\n")
            for (used, years) in zones { ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &writer) }
            if !zones.isEmpty && rows > 0 { out.raw(",\n") }
            try file.write(bytes: out.bytes)
            try scratch.copy { try file.write(bytes: $0) }
            try file.write((rows > 0 || !zones.isEmpty ? "\n" : "") + "  ]\n]\n")
        }
        try file.commit()
        self.file = nil
        self.scratch = nil
        return rows
    }

    func abort() {
        spool?.close()
        spool = nil
        file?.abort()
        file = nil
        scratch = nil
    }
}
