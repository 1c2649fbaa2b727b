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
    /// Day entries rendered as soon as they arrive: the text waits in a scratch file, memory holds only
    /// each entry's sort key and where its text is, so a 1 GB feed's agenda is not held in memory.
    private var rendered: [RenderedEntry] = []
    private var scratch: ScratchFile?
    private var forecastProviders = Set<String>()

    struct RenderedEntry {
        var day: Int
        var allDay: Bool
        var startUTC: Int64
        var title: String
        var uid: String
        var endUTC: Int64
        var offset: Int64
        var length: Int

        /// The same order as `DayEntry.agendaOrder`.
        static func < (a: RenderedEntry, b: RenderedEntry) -> Bool {
            if a.day != b.day { return a.day < b.day }
            if a.allDay != b.allDay { return a.allDay }
            if a.startUTC != b.startUTC { return a.startUTC < b.startUTC }
            if a.title != b.title { return a.title < b.title }
            if a.uid != b.uid { return a.uid < b.uid }
            return a.endUTC < b.endUTC
        }
    }

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
        rendered = []
        forecastProviders = []
        scratch = shape == .days ? try ScratchFile() : nil
        if shape != .days, !ndjson { try file?.write("[") }
    }

    public func write(_ batch: Batch, context: RunContext) throws {
        guard let file else { return }
        switch shape {
        case .days:
            // Entries sit inside "days" -> day -> "entries": four levels deep in the pretty document.
            let writer = JSONWriter(pretty: pretty && !ndjson)
            for entry in batch.days {
                var text = ""
                writer.write(EventJSON.dayEntry(entry, zone: context.zone), into: &text, indent: 4)
                if case .forecast(let f, _)? = entry.forecast { forecastProviders.insert(f.provider) }
                guard let scratch else { continue }
                let offset = scratch.size
                try scratch.append(text)
                rendered.append(RenderedEntry(day: entry.day.daysSinceEpoch, allDay: entry.allDay, startUTC: entry.startUTC,
                                              title: entry.event.title ?? "", uid: entry.event.uid, endUTC: entry.endUTC,
                                              offset: offset, length: Int(scratch.size - offset)))
            }
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
        scratch = nil
        rendered = []
    }

    private func writeDays(to file: AtomicFile, context: RunContext) throws {
        let zone = context.zone
        rendered.sort(by: <)
        func entryText(_ entry: RenderedEntry) throws -> String {
            guard let scratch else { return "" }
            return String(decoding: try scratch.read(at: entry.offset, count: entry.length), as: UTF8.self)
        }
        rows = rendered.count
        // Day numbers to list, each with the range of its entries in `rendered`.
        var groups: [(day: Int, entries: Range<Int>)] = []
        var i = 0
        while i < rendered.count {
            var j = i
            while j < rendered.count, rendered[j].day == rendered[i].day { j += 1 }
            groups.append((rendered[i].day, i..<j))
            i = j
        }
        if emptyDays, let window = context.window {
            var byDay: [Int: Range<Int>] = [:]
            for g in groups { byDay[g.day] = g.entries }
            groups = (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map { ($0, byDay[$0] ?? 0..<0) }
        }
        func dayHeader(_ n: Int, indent: String, newline: String) -> String {
            let d = CivilDate(daysSinceEpoch: n)
            var text = "{" + newline + indent + "\"date\":" + (pretty ? " " : "")
            JSONWriter.appendQuoted(d.iso8601, to: &text)
            text += "," + newline + indent + "\"weekday\":" + (pretty ? " " : "")
            JSONWriter.appendQuoted(d.weekdayName, to: &text)
            text += "," + newline + indent + "\"entries\":" + (pretty ? " " : "")
            return text
        }
        if ndjson {
            for g in groups {
                var line = dayHeader(g.day, indent: "", newline: "") + "["
                line += try rendered[g.entries].map(entryText).joined(separator: ",")
                try file.write(line + "]}\n")
            }
            return
        }
        let nl = pretty ? "\n" : ""
        func pad(_ level: Int) -> String { pretty ? String(repeating: "  ", count: level) : "" }
        let sep = pretty ? " " : ""
        var head = "{" + nl
        func member(_ key: String, _ value: JSONValue) {
            head += pad(1)
            JSONWriter.appendQuoted(key, to: &head)
            head += ":" + sep
            JSONWriter(pretty: pretty).write(value, into: &head, indent: 1)
            head += "," + nl
        }
        member("pipeline", .string(context.environment.name))
        member("timezone", .string(zone.identifier))
        if let window = context.window {
            member("window", .object(JSONObject([("from", .string(window.from.iso8601)), ("to", .string(window.to.iso8601))])))
        }
        let credits = Set(forecastProviders.compactMap(DailyForecast.attribution(forProvider:))).sorted()
        if !credits.isEmpty { member("attribution", .string(credits.joined(separator: "; "))) }
        head += pad(1) + "\"days\":" + sep + (groups.isEmpty ? "[]" : "[")
        try file.write(head)
        for (index, g) in groups.enumerated() {
            var text = (index == 0 ? "" : ",") + nl + pad(2) + dayHeader(g.day, indent: pad(3), newline: nl)
            if g.entries.isEmpty {
                text += "[]"
            } else {
                text += "["
                for (k, entry) in rendered[g.entries].enumerated() {
                    text += (k == 0 ? "" : ",") + nl + pad(4) + (try entryText(entry))
                }
                text += nl + pad(3) + "]"
            }
            text += nl + pad(2) + "}"
            try file.write(text)
        }
        try file.write((groups.isEmpty ? "" : nl + pad(1) + "]") + nl + "}\n")
        rendered = []
        scratch = nil
    }
}
