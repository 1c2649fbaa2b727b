import Foundation
import Pipeline

/// `type: json`: events from JSON: calpipe's own event format (see docs/json-format.md), or anybody's JSON
/// through a `fields` mapping. A top-level array, an array inside an object (`"items": "data.events"`), or
/// newline-delimited JSON (one event a line). Records that cannot become events are rejected with their JSON
/// path and the reason; the others go on.
package final class JSONImporter: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "json",
        kind: .source,
        summary: "Events from JSON: calpipe's format or mapped fields; arrays, nested arrays or NDJSON",
        options: Options.self,
        fileExtensions: ["json", "ndjson", "jsonl"],
        make: { options, _ in
            JSONImporter(input: options.input.spec, items: options.items, ndjson: options.readsNDJSON, mapping: options.mapping.mapping)
        }
    )

    /// The `json` source's options.
    package struct Options: OptionConfig {
        var input = InputOptions()
        var items: String?
        var ndjson: Bool?
        var mapping = EventMappingOptions()
        /// `ndjson`, else whether the path ends in .ndjson or .jsonl.
        var readsNDJSON = false

        package init() {}

        package static let options = OptionSpec<Options> {
            Include(\.input)
            Key("items", \.items, .string, "dotted path to the array of events inside the document, e.g. \"data.events\"")
            Key("ndjson", \.ndjson, .boolean, "one JSON event per line", default: "true for .ndjson/.jsonl files, else false")
            Include(\.mapping)
        }

        package mutating func validate(_ context: OptionContext<Options>) {
            let written = input.path?.written ?? ""
            readsNDJSON = ndjson ?? (written.hasSuffix(".ndjson") || written.hasSuffix(".jsonl"))
            if readsNDJSON, items != nil { context.report(\.items, "cannot be used with \"ndjson\": true") }
        }
    }

    package static let batchSize = 1000

    package let input: InputSpec
    let items: String?
    let ndjson: Bool
    let mapping: EventMapping

    package init(input: InputSpec, items: String? = nil, ndjson: Bool = false, mapping: EventMapping = EventMapping()) {
        self.input = input
        self.items = items
        self.ndjson = ndjson
        self.mapping = mapping
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        try input.forEachInput(context: context, emit: emit) { file, emit in
            try read(file: file, context: context, emit: emit)
        }
    }

    private func read(file: InputSpec.Input, context: RunContext, emit: (Batch) throws -> Void) throws {
        let data: Data
        do {
            if file.path == "-" {
                data = Data(try ChunkReader(path: "-").readAll())
            } else {
                // Mapped, not read: a large feed is paged in by the kernel as the parser walks it. (An empty file
                // is not mapped: Foundation leaks a 4 KiB buffer for each, found by scripts/fuzz json.)
                var info = stat()
                let empty = stat(file.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0
                data = empty ? Data() : try Data(contentsOf: URL(fileURLWithPath: file.path), options: .alwaysMapped)
            }
        } catch let e as CalpipeError {
            throw e
        } catch {
            // Foundation's error says little (and a folder reads as "no such file"): look at the path again.
            throw CalpipeError("cannot read: " + FileProblem.readProblem(path: file.path, label: file.label), file: file.label)
        }
        var batch: [Event] = []
        batch.reserveCapacity(Self.batchSize)
        let zones = context.environment.zones
        func add(_ record: JSONValue, location: SourceLocation) throws {
            guard case .object(let object) = record else {
                context.report.reject(location, "expected an event object, got \(record.kindDescription)")
                return
            }
            var event: Event
            var repairs: [String] = []
            do {
                event = try mapping.event(lookup: { JSONValue.object(object).value(atDottedPath: $0) }, zones: zones, strict: context.strict) {
                    repairs.append($0)
                }
                // Each repair with where it was and which event it belongs to.
                let place = location.line.map { "\(location.file):\($0)" } ?? location.file + (location.path.map { ": " + $0 + "." } ?? ": ")
                for message in repairs {
                    context.warn((location.line == nil ? place + message : place + ": " + message) + " (event \"\(event.uid)\")")
                }
            } catch {
                let field = location.path.map { $0 + "." + (error.path ?? "") } ?? (error.path ?? "")
                context.report.reject(SourceLocation(file: location.file, line: location.line, path: location.line == nil ? field : nil), location.line == nil ? error.message : "\(field): \(error.message)")
                return
            }
            event.origin = location
            batch.append(event)
            if batch.count >= Self.batchSize {
                try emit(Batch(events: batch))
                batch.removeAll(keepingCapacity: true)
            }
        }
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = JSONParser(bytes: bytes)
            do {
                if ndjson {
                    while true {
                        let line = parser.currentLineOfNextValue
                        do {
                            guard let value = try parser.nextLineValue() else { break }
                            try add(value, location: SourceLocation(file: file.label, line: line))
                        } catch let e as JSONSyntaxError {
                            // One bad line rejects that line only.
                            context.report.reject(SourceLocation(file: file.label, line: e.line), "invalid JSON (column \(e.column): \(e.message))")
                            guard parser.skipToNextLine() else { break }
                        }
                    }
                } else if let items {
                    let document = try parser.parseDocument()
                    guard let array = document.value(atDottedPath: items) else {
                        throw CalpipeError("no value at \"\(items)\" (the \"items\" option)", file: file.label)
                    }
                    guard case .array(let records) = array else {
                        throw CalpipeError("\"\(items)\" is \(array.kindDescription), expected an array of events", file: file.label)
                    }
                    for (i, record) in records.enumerated() { try add(record, location: SourceLocation(file: file.label, path: "\(items)[\(i)]")) }
                } else if try parser.beginTopLevelArray() {
                    var index = 0
                    while let record = try parser.nextArrayElement(isFirst: index == 0) {
                        try add(record, location: SourceLocation(file: file.label, path: "[\(index)]"))
                        index += 1
                    }
                } else {
                    // A single event object, or an object that holds the array under a conventional key.
                    let document = try parser.parseDocument()
                    if let key = ["events", "items", "data"].first(where: { document.value(atDottedPath: $0)?.arrayValue != nil }),
                       let records = document.value(atDottedPath: key)?.arrayValue {
                        for (i, record) in records.enumerated() { try add(record, location: SourceLocation(file: file.label, path: "\(key)[\(i)]")) }
                    } else {
                        try add(document, location: SourceLocation(file: file.label, path: "$"))
                    }
                }
            } catch let e as JSONSyntaxError {
                throw CalpipeError("\(e)", file: file.label)
            }
        }
        if !batch.isEmpty { try emit(Batch(events: batch)) }
    }
}
