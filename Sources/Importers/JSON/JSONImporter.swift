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
        // A record's text for the dead-letter file (`--rejected`), made only when the record is rejected.
        func written(_ record: JSONValue) -> () -> String { { JSONWriter(pretty: false).string(record) } }
        func add(_ record: JSONValue, location: SourceLocation, raw: () -> String) throws {
            guard case .object(let object) = record else {
                context.report.reject(location, "expected an event object, got \(record.kindDescription)", raw: raw())
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
                context.report.reject(SourceLocation(file: location.file, line: location.line, path: location.line == nil ? field : nil),
                                      location.line == nil ? error.message : "\(field): \(error.message)", raw: raw())
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
                    // The line as written, for the dead-letter file.
                    func lineText(from start: Int) -> String {
                        var end = start
                        while end < bytes.count, bytes[end] != 0x0A, end - start < 1 << 20 { end += 1 }
                        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    }
                    while true {
                        let line = parser.currentLineOfNextValue
                        let start = parser.position
                        do {
                            guard let value = try parser.nextLineValue() else { break }
                            try add(value, location: SourceLocation(file: file.label, line: line), raw: { lineText(from: start) })
                        } catch let e as JSONSyntaxError {
                            // One bad line rejects that line only (a value that runs past its line's end takes no other line with it).
                            let reason = e.line == line ? "invalid JSON (column \(e.column): \(e.message))" : "invalid JSON (the line ends inside a value)"
                            context.report.reject(SourceLocation(file: file.label, line: line), reason, raw: lineText(from: start))
                            guard parser.skipLine(startingAt: start) else { break }
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
                    for (i, record) in records.enumerated() { try add(record, location: SourceLocation(file: file.label, path: "\(items)[\(i)]"), raw: written(record)) }
                } else if try parser.beginTopLevelArray() {
                    var index = 0
                    while let record = try parser.nextArrayElement(isFirst: index == 0) {
                        try add(record, location: SourceLocation(file: file.label, path: "[\(index)]"), raw: written(record))
                        index += 1
                    }
                } else {
                    // A single event object, or an object that holds the array under a conventional key.
                    let document = try parser.parseDocument()
                    if let key = ["events", "items", "data"].first(where: { document.value(atDottedPath: $0)?.arrayValue != nil }),
                       let records = document.value(atDottedPath: key)?.arrayValue {
                        for (i, record) in records.enumerated() { try add(record, location: SourceLocation(file: file.label, path: "\(key)[\(i)]"), raw: written(record)) }
                    } else {
                        try add(document, location: SourceLocation(file: file.label, path: "$"), raw: written(document))
                    }
                }
            } catch let e as JSONSyntaxError {
                throw CalpipeError("\(e)", file: file.label)
            }
        }
        if !batch.isEmpty { try emit(Batch(events: batch)) }
    }
}
