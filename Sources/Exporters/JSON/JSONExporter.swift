import Pipeline

/// `type: json`: writes agenda view models grouped by day (`shape: days`), the source events
/// (`shape: events`) or the expanded occurrences (`shape: occurrences`), as one document or as
/// newline-delimited JSON (`ndjson: true`). Deterministic and atomic (temporary file, then rename);
/// `"path": "-"` writes to standard output.
// @unchecked Sendable: the open file, the spool and the render buffers are the run's, used as the `Sink` contract
// says (open, write, commit in turn, never two at once, one run at a time).
package final class JSONExporter: Sink, @unchecked Sendable {
    package enum Shape: String, CaseIterable, Sendable {
        case days, events, occurrences
    }

    package static let descriptor = SinkDescriptor(
        type: "json",
        kind: .sink,
        summary: "Write agenda days, events or occurrences as JSON or NDJSON, atomically",
        options: Options.self,
        fileExtensions: ["json", "ndjson", "jsonl"],
        make: { options, _ in
            JSONExporter(path: options.path.resolved, shape: options.shape, ndjson: options.writesNDJSON, pretty: options.pretty,
                         emptyDays: options.emptyDays, label: options.path.label)
        }
    )

    /// The `json` sink's options.
    package struct Options: OptionConfig {
        var path = OptionPath()
        var shape = Shape.days
        var ndjson: Bool?
        var pretty = true
        var emptyDays = true
        /// `ndjson`, else whether the path ends in .ndjson or .jsonl.
        var writesNDJSON: Bool {
            ndjson ?? (path.resolved.hasSuffix(".ndjson") || path.resolved.hasSuffix(".jsonl"))
        }

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("path", \.path, .path, required: true, "output file, or \"-\" for standard output; relative to the pipeline file")
            Key("shape", \.shape, .choice, "what to write")
            Key("ndjson", \.ndjson, .boolean, "one JSON object per line (a day, an event or an occurrence)", default: "true for .ndjson/.jsonl files, else false")
            Key("pretty", \.pretty, .boolean, "indent the document (ignored with ndjson)")
            Key("empty_days", \.emptyDays, .boolean, "with shape days and a window: also list days without entries")
        }
    }

    package let path: String
    let writtenPath: String
    package let shape: Shape
    package let ndjson: Bool
    package let pretty: Bool
    package let emptyDays: Bool
    private var file: AtomicFile?
    private var rows = 0
    /// Day entries rendered as soon as they arrive and put in agenda order with bounded memory: sorted runs
    /// wait in a scratch file, so a 1 GB feed's agenda is not held in memory.
    private var spool: DayEntrySpool?
    /// Bytes of rendered entries held in memory before a sorted run goes to disk (tests set it small).
    var spoolRunBytes = DayEntrySpool.defaultRunBytes
    private var forecastProviders = Set<String>()
    /// The weather of each day, from the forecast stage's day headers (`Batch.agendaDays`).
    private var dayWeather: [CivilDate: DayWeather] = [:]
    /// The document's bytes not yet handed to the file (which gets them in chunks of `outputChunk`).
    private var output = JSONBytes(pretty: false, capacity: 0)
    /// One day entry's JSON, rendered before it goes to the spool.
    private var entryText = JSONBytes(pretty: false, capacity: 0)
    /// Attendee initials, worked out once per attendee (the same people come back in entry after entry).
    private var initials = AttendeeInitials()
    private static let outputChunk = 1 << 20

    /// `label`: the path as the user wrote it, for the summary.
    package init(path: String, shape: Shape = .days, ndjson: Bool = false, pretty: Bool = true, emptyDays: Bool = true, label: String? = nil) {
        self.path = path
        self.writtenPath = label ?? path
        self.shape = shape
        self.ndjson = ndjson
        self.pretty = pretty
        self.emptyDays = emptyDays
    }

    package var needs: BatchContent {
        switch shape {
        case .days: return .days
        case .events: return .events
        case .occurrences: return .occurrences
        }
    }

    package var label: String { "json \(writtenPath)" }
    /// Events and occurrences are rendered to bytes as they come: light next to reading them, so the `ics` source
    /// reads on worker threads meanwhile (`Runner.idleCores`). Day entries are also sorted through a spool.
    package var writesLightly: Bool { shape != .days }
    /// A temporary file renamed over the target; standard output (`"-"`) is written as it goes and flushed in
    /// place, which cannot be taken back, so it commits as a transaction does (after the files, before their renames).
    package var commitKind: SinkCommit { path == "-" ? .transaction : .file }

    package func open(context: RunContext) throws {
        file = try AtomicFile(path: path, label: writtenPath, cancellation: context.cancellation)
        rows = 0
        forecastProviders = []
        dayWeather = [:]
        spool = shape == .days ? DayEntrySpool(runBytes: spoolRunBytes) : nil
        output = JSONBytes(pretty: pretty && !ndjson, capacity: Self.outputChunk + (1 << 16))
        entryText = JSONBytes(pretty: pretty && !ndjson)
        initials = AttendeeInitials()
        if shape != .days, !ndjson { output.raw("[") }
    }

    /// Day entries rendered between two checks for a signal.
    static let cancellationInterval = 1024

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let file else { return }
        switch shape {
        case .days:
            // Entries sit inside "days" -> day -> "entries": four levels deep in the pretty document.
            let zone = context.zone
            guard let spool else { return }
            for header in batch.agendaDays {
                guard let w = header.weather else { continue }
                dayWeather[header.date] = w
                if let f = w.forecast { forecastProviders.insert(f.provider) }
            }
            for i in batch.days.indices {
                // A batch can hold 30,000 entries: a signal stops it part way (the producer may be waiting for
                // this thread to take the next batch, and the run ends only after this one).
                if i % Self.cancellationInterval == Self.cancellationInterval - 1 { try context.checkCancellation() }
                try addDay(batch.days[i], zone: zone, to: spool)
            }
        case .events:
            // A shared batch: each event is copied out of the array (a retain and a release of each of its
            // strings and arrays) before it is written; `write(owned:)` moves them out instead.
            for i in batch.events.indices {
                try writeEvent(batch.events[i], to: file)
            }
        case .occurrences:
            let zone = context.zone
            for occurrence in batch.effectiveOccurrences {
                if !batch.content.contains(.occurrences), let window = context.window {
                    let (s, e) = occurrence.interval(in: zone)
                    if !window.contains(start: s, end: e, in: zone) { continue }
                }
                beginRecord()
                output.occurrence(occurrence, zone: zone, level: ndjson ? 0 : 1)
                try endRecord(to: file)
            }
        }
    }

    /// A batch of its own (the runner's sinks' thread hands the last sink its batch): the events are moved out one
    /// at a time, written and freed. An event borrowed from an array the callee could write to is copied first
    /// (the renderer writes through pointers the compiler cannot tell apart from the array's), and those copies
    /// were a sixth of this sink's time on the benchmark feed; a moved event is a value of its own, passed as is.
    package func write(owned batch: consuming Batch, context: RunContext) throws {
        guard shape == .events, let file else { return try write(batch, context: context) }
        var events: [Event] = []
        swap(&events, &batch.events)
        // Taken from the end (`popLast` moves, it does not copy), so first put in reverse order by moving the bytes
        // (`reverse()` copied each event it swapped). Were the array still shared, the buffer access would copy it
        // once: the work of copying event by event, as `write(_:)` does.
        events.withUnsafeMutableBufferPointer { Self.reverseByMoving($0) }
        while let event = events.popLast() {
            try writeEvent(event, to: file)
        }
    }

    /// Reverses the order of `events` by moving their bytes: no retain or release.
    private static func reverseByMoving(_ events: UnsafeMutableBufferPointer<Event>) {
        guard let base = events.baseAddress else { return }
        var i = 0, j = events.count - 1
        while i < j {
            let first = (base + i).move()
            (base + i).moveInitialize(from: base + j, count: 1)
            (base + j).initialize(to: first)
            i += 1
            j -= 1
        }
    }

    private func writeEvent(_ event: borrowing Event, to file: AtomicFile) throws {
        beginRecord()
        output.event(event, level: ndjson ? 0 : 1)
        try endRecord(to: file)
    }

    /// Renders a day entry (borrowed from its batch, not copied) into the spool.
    private func addDay(_ entry: borrowing DayEntry, zone: Zone, to spool: DayEntrySpool) throws {
        if case .forecast(let f, _)? = entry.forecast { forecastProviders.insert(f.provider) }
        // The event borrowed, not copied (`Occurrence.withEvent`).
        try entry.occurrence.withEvent { event in
            entryText.removeAll()
            entryText.dayEntry(entry, event: event, zone: zone, level: 4, initials: initials)
            let key = AgendaKey(day: entry.day.daysSinceEpoch, allDay: entry.allDay, startUTC: entry.startUTC,
                                        title: event.title ?? "", uid: event.uid, endUTC: entry.endUTC)
            try spool.add(key, text: entryText.buffer)
        }
    }

    /// Before a record of the events or occurrences shape: the separator (and indent) it follows.
    private func beginRecord() {
        if ndjson { return }
        if rows > 0 { output.byte(0x2C) }
        if pretty { output.raw("\n  ") }
    }

    private func endRecord(to file: AtomicFile) throws {
        if ndjson { output.byte(0x0A) }
        rows += 1
        try flushOutput(to: file, atLeast: Self.outputChunk)
    }

    /// Hands `output` to the file once it holds `atLeast` bytes.
    private func flushOutput(to file: AtomicFile, atLeast: Int = 0) throws {
        guard output.count >= atLeast, output.count > 0 else { return }
        try file.write(output.buffer)
        output.removeAll()
    }

    package func commit(context: RunContext) throws -> Int {
        guard let file else { return 0 }
        switch shape {
        case .days:
            try writeDays(to: file, context: context)
        case .events, .occurrences:
            if !ndjson { output.append(pretty && rows > 0 ? "\n]\n" : "]\n") }
            try flushOutput(to: file)
        }
        try file.commit()
        self.file = nil
        return rows
    }

    package func abort(context: RunContext) {
        file?.abort()
        file = nil
        spool = nil
        output = JSONBytes(pretty: false, capacity: 0)
    }

    /// Streams the days from the spool's merge: a day's entries are written as they come, and with
    /// `empty_days` the days of the window without entries in between.
    private func writeDays(to file: AtomicFile, context: RunContext) throws {
        guard let spool else { return }
        rows = spool.count
        let window = emptyDays ? context.window : nil
        // With a window and empty_days every day of the window is listed, and only those.
        let windowDays = window.map { $0.from.daysSinceEpoch..<$0.to.daysSinceEpoch }
        let nl = pretty ? "\n" : ""
        func pad(_ level: Int) -> String { pretty ? String(repeating: "  ", count: level) : "" }
        let credits = Set(forecastProviders.compactMap(DailyForecast.attribution(forProvider:))).sorted()
        let head = DaysDocumentHead(context: context, attribution: credits.isEmpty ? nil : credits.joined(separator: "; "))

        // The day being written, how many entries it has so far, how many days were written, and the first day
        // after the last one written (where the window's empty days resume).
        var openDay: Int?
        var entriesInDay = 0
        var daysWritten = 0
        var nextDay = windowDays?.lowerBound ?? 0
        func beginDay(_ day: Int) {
            let date = CivilDate(daysSinceEpoch: day)
            if ndjson {
                output.dayHead(date, weather: dayWeather[date], document: head, level: 0, standalone: true)
            } else {
                if daysWritten > 0 { output.byte(0x2C) }
                output.newline(2)
                output.dayHead(date, weather: dayWeather[date], document: head, level: 2, standalone: false)
            }
            output.raw("[")
            openDay = day
            nextDay = day + 1
            entriesInDay = 0
        }
        func closeDay() {
            guard openDay != nil else { return }
            if ndjson {
                output.raw("]}\n")
            } else {
                output.append((entriesInDay == 0 ? "" : nl + pad(3)) + "]" + nl + pad(2) + "}")
            }
            openDay = nil
            daysWritten += 1
        }
        /// Writes the days without entries before `day` (exclusive) that the window lists.
        func writeEmptyDays(before day: Int) {
            guard let windowDays else { return }
            while nextDay < min(day, windowDays.upperBound) {
                beginDay(nextDay)
                closeDay()
            }
        }

        if !ndjson {
            output.raw("{")
            var first = true
            head.members(into: output, level: 0, first: &first, withSources: true)
            output.key("days", level: 0, first: &first)
            output.raw("[")
        }
        // The merge makes 1 MiB chunks; a thread of their own writes them meanwhile.
        let writer = BackgroundFileWriter(file: file)
        func send(atLeast: Int) throws {
            guard output.count >= atLeast, output.count > 0 else { return }
            var chunk = writer.emptyBuffer()
            chunk.append(contentsOf: output.buffer)
            output.removeAll()
            try writer.send(chunk)
            // A signal during a long merge (millions of entries) stops it at the next chunk: the commit phase
            // rolls back until a sink has made the run irreversible.
            try context.checkCancellation()
        }
        do {
            try spool.drain { entry in
                let day = entry.day
                if let windowDays, !windowDays.contains(day) { return }
                if openDay != day {
                    closeDay()
                    writeEmptyDays(before: day)
                    beginDay(day)
                }
                if entriesInDay > 0 { output.byte(0x2C) }
                // Pretty (and not NDJSON): on its own line, four levels in.
                output.newline(4)
                output.append(entry.text)
                entriesInDay += 1
                try send(atLeast: Self.outputChunk)
            }
            closeDay()
            if let windowDays { writeEmptyDays(before: windowDays.upperBound) }
            if !ndjson {
                // An empty list is written "[]" on one line.
                output.append(daysWritten == 0 ? "]" : nl + pad(1) + "]")
                output.append(nl + "}\n")
            }
            try send(atLeast: 0)
            try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
        self.spool = nil
    }
}

extension JSONExporter: FileOutputSink {
    package var outputPath: String { path }
}
