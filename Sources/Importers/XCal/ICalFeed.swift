import Pipeline

/// Hands xCal and jCal calendars to the iCalendar reader (`ICSReader`) as iCalendar text, one component at a
/// time, so the events are exactly those the `ics` source makes from the same data (same zones, VTIMEZONE
/// handling, raw properties, defaults and messages). Locations in events, rejections and warnings are
/// translated from lines of the generated text back to lines of the original document.
final class ICalFeed {
    let label: String
    private let context: RunContext
    private var reader: ICSReader!
    private let batchSize: Int
    private var batch: [Event] = []
    private var emit: ((Batch) throws -> Void)!
    /// The generated text's line count so far.
    private var generatedLine = 0
    /// (first generated line, source line) for each component fed, in order: 16 bytes per component, kept for
    /// the whole input because the reader reports events that wait for a VTIMEZONE only at the calendar's end.
    private var origins: [(generated: Int, source: Int)] = []

    private init(label: String, context: RunContext, batchSize: Int) {
        self.label = label
        self.context = context
        self.batchSize = batchSize
    }

    /// Runs `body` with a feed for one input; events go to `emit` in batches.
    static func run(label: String, context: RunContext, batchSize: Int, emit: (Batch) throws -> Void, _ body: (ICalFeed) throws -> Void) throws {
        try withoutActuallyEscaping(emit) { emit in
            let feed = ICalFeed(label: label, context: context, batchSize: batchSize)
            feed.emit = emit
            feed.reader = ICSReader(
                label: label, zones: context.environment.zones, fallbackZone: context.zone, strict: context.strict,
                handlers: .init(
                    event: { [unowned feed] event in try feed.accept(event) },
                    reject: { [unowned feed] location, reason in
                        context.report.reject(SourceLocation(file: location.file, line: location.line.map(feed.sourceLine)), reason)
                    },
                    warn: { [unowned feed] message in context.warn(feed.translate(message)) },
                    skip: { context.report.count("skipped " + $0) },
                    repair: { [unowned feed] repair in
                        var repair = repair
                        repair.location = SourceLocation(file: repair.location.file, line: repair.location.line.map(feed.sourceLine))
                        context.repair(repair)
                    }
                ))
            try body(feed)
            try feed.reader.finish()
            if !feed.batch.isEmpty { try emit(Batch(events: feed.batch)) }
            feed.batch = []
            feed.emit = nil
            feed.reader = nil
        }
    }

    func beginCalendar(properties: [ICalProperty], sourceLine: Int) throws {
        var text = "BEGIN:VCALENDAR\r\n"
        var lines = 1
        for p in properties {
            // A calendar property that cannot be written is left out: only X-WR-TIMEZONE, the name and the colour are used.
            guard let line = try? ICalContentText.line(p) else { continue }
            text += line + "\r\n"
            lines += 1
        }
        try feed(text, lines: lines, sourceLine: sourceLine)
    }

    func endCalendar() throws {
        try feed("END:VCALENDAR\r\n", lines: 1, sourceLine: origins.last?.source ?? 0)
    }

    /// Feeds one component of the calendar (VEVENT, VTIMEZONE, VTODO, ...).
    func component(_ c: ICalComponent, sourceLine: Int) throws {
        var text = ""
        var lines = 0
        try ICalContentText.text(c, into: &text, lines: &lines)
        try feed(text, lines: lines, sourceLine: sourceLine)
    }

    private func feed(_ text: String, lines: Int, sourceLine: Int) throws {
        origins.append((generatedLine + 1, sourceLine))
        generatedLine += lines
        try reader.feed(Array(text.utf8))
    }

    private func accept(_ event: Event) throws {
        var e = event
        if let line = e.origin?.line { e.origin = SourceLocation(file: label, line: sourceLine(line)) }
        e.sourceText = nil
        batch.append(e)
        if batch.count >= batchSize {
            try emit(Batch(events: batch))
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// The source line of the component that generated line `line` belongs to.
    func sourceLine(_ line: Int) -> Int {
        var low = 0, high = origins.count
        while low < high {
            let mid = (low + high) / 2
            if origins[mid].generated <= line { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? line : origins[low - 1].source
    }

    /// Rewrites a "label:N: ..." message of the iCalendar reader to the source line.
    func translate(_ message: String) -> String {
        let prefix = label + ":"
        guard message.hasPrefix(prefix) else { return message }
        let rest = message.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let n = Int(rest[..<colon]) else { return message }
        return prefix + String(sourceLine(n)) + rest[colon...]
    }
}
