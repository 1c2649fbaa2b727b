import Pipeline

/// `type: json`: writes agenda view models grouped by day (`shape: days`), the source events
/// (`shape: events`) or the expanded occurrences (`shape: occurrences`), as one document or as
/// newline-delimited JSON (`ndjson: true`). Deterministic and atomic (temporary file, then rename);
/// `"path": "-"` writes to standard output.
public final class JSONExporter: Sink {
    public enum Shape: String, CaseIterable, Sendable {
        case days, events, occurrences
    }

    public static let descriptor = SinkDescriptor(
        type: "json",
        kind: .sink,
        summary: "Write agenda days, events or occurrences as JSON or NDJSON, atomically",
        options: [
            OptionDoc("path", "path", required: true, "output file, or \"-\" for standard output; relative to the pipeline file"),
            OptionDoc("shape", "string", "what to write", values: Shape.allCases.map(\.rawValue), default: "days"),
            OptionDoc("ndjson", "boolean", "one JSON object per line (a day, an event or an occurrence)", default: "false"),
            OptionDoc("pretty", "boolean", "indent the document (ignored with ndjson)", default: "true"),
            OptionDoc("empty_days", "boolean", "with shape days and a window: also list days without entries", default: "true"),
        ],
        fileExtensions: ["json", "ndjson", "jsonl"],
        make: { options in
            let path = options.path("path", required: true)
            let shape = Shape(rawValue: options.choice("shape", Shape.allCases.map(\.rawValue), default: "days")) ?? .days
            var ndjson = path.map { $0.hasSuffix(".ndjson") || $0.hasSuffix(".jsonl") } ?? false
            ndjson = options.bool("ndjson", default: ndjson)
            let pretty = options.bool("pretty", default: true)
            let emptyDays = options.bool("empty_days", default: true)
            guard let path else { throw OptionsRejected() }
            return JSONExporter(path: path, shape: shape, ndjson: ndjson, pretty: pretty, emptyDays: emptyDays, label: options.string("path"))
        }
    )

    public let path: String
    let writtenPath: String
    public let shape: Shape
    public let ndjson: Bool
    public let pretty: Bool
    public let emptyDays: Bool
    private var file: AtomicFile?
    private var rows = 0
    private var days: [DayEntry] = []

    /// `label`: the path as the user wrote it, for the summary.
    public init(path: String, shape: Shape = .days, ndjson: Bool = false, pretty: Bool = true, emptyDays: Bool = true, label: String? = nil) {
        self.path = path
        self.writtenPath = label ?? path
        self.shape = shape
        self.ndjson = ndjson
        self.pretty = pretty
        self.emptyDays = emptyDays
    }

    public var needs: BatchContent {
        switch shape {
        case .days: return .days
        case .events: return .events
        case .occurrences: return .occurrences
        }
    }

    public var label: String { "json \(writtenPath)" }

    public func open(context: RunContext) throws {
        file = try AtomicFile(path: path)
        rows = 0
        days = []
        if shape != .days, !ndjson { try file?.write("[") }
    }

    public func write(_ batch: Batch, context: RunContext) throws {
        guard let file else { return }
        switch shape {
        case .days:
            days.append(contentsOf: batch.days)
        case .events:
            for event in batch.events { try writeRecord(EventJSON.event(event), to: file) }
        case .occurrences:
            let zone = context.zone
            for occurrence in batch.effectiveOccurrences {
                if !batch.expanded, let window = context.window {
                    let (s, e) = occurrence.interval(in: zone)
                    if !window.contains(start: s, end: e, in: zone) { continue }
                }
                try writeRecord(EventJSON.occurrence(occurrence, zone: zone), to: file)
            }
        }
    }

    private func writeRecord(_ value: JSONValue, to file: AtomicFile) throws {
        if ndjson {
            try file.write(JSONWriter(pretty: false).string(value) + "\n")
        } else {
            var text = rows == 0 ? "" : ","
            if pretty { text += "\n  " }
            JSONWriter(pretty: pretty).write(value, into: &text, indent: 1)
            try file.write(text)
        }
        rows += 1
    }

    public func commit(context: RunContext) throws -> Int {
        guard let file else { return 0 }
        switch shape {
        case .days:
            try writeDays(to: file, context: context)
        case .events, .occurrences:
            if !ndjson { try file.write(pretty && rows > 0 ? "\n]\n" : "]\n") }
        }
        try file.commit()
        self.file = nil
        return rows
    }

    public func abort(context: RunContext) {
        file?.abort()
        file = nil
    }

    private func writeDays(to file: AtomicFile, context: RunContext) throws {
        let zone = context.zone
        days.sort(by: DayEntry.agendaOrder)
        rows = days.count
        var groups: [(CivilDate, [DayEntry])] = []
        for entry in days {
            if groups.last?.0 == entry.day { groups[groups.count - 1].1.append(entry) } else { groups.append((entry.day, [entry])) }
        }
        if emptyDays, let window = context.window {
            var byDay: [CivilDate: [DayEntry]] = [:]
            for (d, e) in groups { byDay[d] = e }
            groups = (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map { n in
                let d = CivilDate(daysSinceEpoch: n)
                return (d, byDay[d] ?? [])
            }
        }
        let dayValues: [JSONValue] = groups.map { day, entries in
            .object(JSONObject([
                ("date", .string(day.iso8601)),
                ("weekday", .string(day.weekdayName)),
                ("entries", .array(entries.map { EventJSON.dayEntry($0, zone: zone) })),
            ]))
        }
        if ndjson {
            let writer = JSONWriter(pretty: false)
            for value in dayValues { try file.write(writer.string(value) + "\n") }
            return
        }
        var document = JSONObject()
        document["pipeline"] = .string(context.environment.name)
        document["timezone"] = .string(zone.identifier)
        if let window = context.window {
            document["window"] = .object(JSONObject([("from", .string(window.from.iso8601)), ("to", .string(window.to.iso8601))]))
        }
        let credits = DailyForecast.attributions(for: days)
        if !credits.isEmpty { document["attribution"] = .string(credits.joined(separator: "; ")) }
        document["days"] = .array(dayValues)
        try file.write(JSONWriter(pretty: pretty).string(.object(document)) + "\n")
    }
}
