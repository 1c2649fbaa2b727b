import CalXML
import Pipeline

/// `type: xml`: events from any XML feed through a mapping: `item` selects the elements that are events
/// (a streamable path such as "//event" or "/feed/item"), `fields` maps calpipe's field names to XPath
/// expressions evaluated on each item, with the same field names and date options as the `json` source.
/// Each item is copied out on its own, so XPath sees that item only and a large feed streams.
///
///     {"type": "xml", "path": "feed.xml", "item": "//event",
///      "fields": {"title": "name", "start": "@begins", "location": "venue/name"}}
///
/// @unchecked Sendable: its options are `let`s, but the compiled pattern and XPath expressions are libxml2 handles
/// (not Sendable); they are only read, by the thread that runs `read`, one run at a time (the `EventSource` contract).
package final class MappedXMLSource: EventSource, @unchecked Sendable {
    package static let descriptor = SourceDescriptor(
        type: "xml",
        kind: .source,
        summary: "Events from any XML feed: items chosen by a path, fields by XPath (same fields as json)",
        options: Options.self,
        make: { options, _ in
            try MappedXMLSource(input: options.input.spec, item: options.item, namespaces: options.prefixes, mapping: options.mapping.mapping)
        }
    )

    /// The `xml` source's options.
    package struct Options: OptionConfig {
        var input = InputOptions()
        var item = ""
        var namespaces: [(key: String, value: String)] = []
        var mapping = EventMappingOptions()

        package init() {}

        package static let options = OptionSpec<Options> {
            Include(\.input)
            Key("item", \.item, .string, required: true,
                "the elements that are events: \"//event\", \"/feed/item\", \"events/event\" (prefixes from \"namespaces\")")
            Key("namespaces", \.namespaces, .stringMap, "prefixes for item and field paths, e.g. {\"v\": \"http://example.com/venue\"}")
            Include(\.mapping)
        }

        var prefixes: [(prefix: String, uri: String)] { namespaces.map { (prefix: $0.key, uri: $0.value) } }

        /// The item path and every field's XPath must compile.
        package mutating func validate(_ context: OptionContext<Options>) {
            if context.isGiven(\.item) {
                do { _ = try XMLStreamPattern(item, namespaces: prefixes) } catch let e as XMLError { context.report(\.item, e.message) } catch {}
            }
            let mapping = mapping.mapping
            for field in EventMapping.fieldNames {
                do {
                    _ = try XPathExpression(mapping.path(for: field))
                } catch let e as XMLError {
                    // Only a mapped field can be wrong; an unmapped one is looked up under its own name.
                    if mapping.paths[field] != nil { context.report(\.mapping.fields, member: field, e.message) } else { context.report(\.mapping.fields, e.message) }
                } catch {}
            }
        }
    }

    package static let batchSize = 1000

    package let input: InputSpec
    let item: XMLStreamPattern
    let namespaces: [(prefix: String, uri: String)]
    let mapping: EventMapping
    /// Compiled XPath for each field's path.
    let expressions: [String: XPathExpression]

    init(input: InputSpec, item: XMLStreamPattern, namespaces: [(prefix: String, uri: String)], mapping: EventMapping, expressions: [String: XPathExpression]) {
        self.input = input
        self.item = item
        self.namespaces = namespaces
        self.mapping = mapping
        self.expressions = expressions
    }

    /// Builds the source from code: compiles the item path and every field's XPath.
    package convenience init(input: InputSpec, item: String, namespaces: [(prefix: String, uri: String)] = [], mapping: EventMapping = EventMapping()) throws {
        var expressions: [String: XPathExpression] = [:]
        for field in EventMapping.fieldNames {
            let path = mapping.path(for: field)
            expressions[path] = try XPathExpression(path)
        }
        self.init(input: input, item: try XMLStreamPattern(item, namespaces: namespaces), namespaces: namespaces, mapping: mapping, expressions: expressions)
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let reader = try XMLStreamReader(file: file, progress: context.report)
            var batch: [Event] = []
            var moved = try reader.read()
            while moved {
                guard reader.matches(item) else {
                    moved = try reader.read()
                    continue
                }
                let line = reader.line
                let subtree = try reader.copySubtree()
                if let event = self.event(subtree, line: line, label: file.label, context: context) {
                    batch.append(event)
                    if batch.count >= Self.batchSize {
                        try emit(Batch(events: batch))
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                moved = try reader.skipSubtree()
            }
            if !batch.isEmpty { try emit(Batch(events: batch)) }
        }
    }

    /// One item as an event, or nil when it was rejected.
    private func event(_ subtree: XMLSubtree, line: Int, label: String, context: RunContext) -> Event? {
        let location = SourceLocation(file: label, line: line)
        var failure: XMLError?
        let allDayPath = mapping.path(for: "all_day")
        let listPaths = Set(["attendees", "categories", "rdate", "exdate"].map(mapping.path(for:)))
        let lookup: (String) -> JSONValue? = { path in
            guard failure == nil, let expression = self.expressions[path] else { return nil }
            do {
                switch try subtree.evaluate(expression, namespaces: self.namespaces) {
                case .nodes(let values):
                    if values.isEmpty { return nil }
                    // Repeated elements are lists; the list fields are lists even with one element.
                    if values.count > 1 || listPaths.contains(path) { return .array(values.map { .string($0.trimmingWhitespace()) }) }
                    let text = values[0].trimmingWhitespace()
                    if path == allDayPath {
                        switch text.lowercased() {
                        case "true", "1", "yes": return .bool(true)
                        case "false", "0", "no": return .bool(false)
                        default: return .string(text)
                        }
                    }
                    return text.isEmpty ? nil : .string(text)
                case .string(let s): return s.isEmpty ? nil : .string(s)
                case .number(let n): return n.isNaN ? nil : .number(n)
                case .boolean(let b): return .bool(b)
                }
            } catch let e as XMLError {
                failure = e
                return nil
            } catch {
                return nil
            }
        }
        do {
            var event = try mapping.event(lookup: lookup, zones: context.environment.zones, strict: context.strict) { message in
                context.warn("\(location.file)\(location.line.map { ":\($0)" } ?? ""): \(message)")
            }
            if let failure {
                context.report.reject(location, failure.message)
                return nil
            }
            event.origin = location
            return event
        } catch {
            context.report.reject(location, failure?.message ?? error.description)
            return nil
        }
    }
}
