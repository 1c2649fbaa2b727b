import CalXML
import Pipeline

/// `type: xcal`: reads xCal (RFC 6321) files with the streaming XML reader, one component at a time, so a
/// feed of any size needs memory for one event plus one batch. Each component goes through the iCalendar
/// reader, so events come out exactly as the `ics` source makes them from the same data (VTIMEZONE
/// definitions, unknown zones, missing UIDs, raw properties). VTODO, VJOURNAL and VFREEBUSY are counted and skipped.
package final class XCalSource: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "xcal",
        kind: .source,
        summary: "xCal (RFC 6321, iCalendar in XML) files, streamed one component at a time",
        options: InputOptions.self,
        fileExtensions: ["xcs", "xcal", "xml"],
        make: { options, _ in XCalSource(input: options.spec) }
    )

    /// Events handed on per batch.
    package static let batchSize = 1000

    package let input: InputSpec

    package init(input: InputSpec) {
        self.input = input
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        try input.forEachInput(context: context, emit: emit) { file, emit in
            let reader = try XMLStreamReader(file: file, progress: context.report, expected: "an xCal document")
            try ICalFeed.run(label: file.label, context: context, batchSize: Self.batchSize, emit: emit) { feed in
                try read(reader, into: feed, context: context)
            }
        }
    }

    private func read(_ reader: XMLStreamReader, into feed: ICalFeed, context: RunContext) throws {
        let ns = XCalDecoder.namespace
        let label = reader.label
        let decoder = XCalDecoder(label: label)
        guard try reader.nextElement() else {
            throw XMLError(message: "not an xCal document: it has no elements", line: 0, column: 0, file: label)
        }
        guard reader.namespaceURI == ns, reader.localName == "icalendar" else {
            throw XMLError(message: "not an xCal document: the root element is <\(reader.qualifiedName)>"
                           + (reader.namespaceURI.map { " in namespace \($0)" } ?? " with no namespace")
                           + " (expected <icalendar> in \(ns)); other XML feeds need the \"xml\" source with an item path and fields",
                           line: reader.line, column: 0, file: label)
        }
        if reader.isEmptyElement { return }
        // Where we are: 0 inside <icalendar>, 1 inside <vcalendar>, 2 inside its <components>.
        var level = 0
        var calendarLine = 0
        var calendarOpen = false
        func openCalendar(_ properties: [ICalProperty]) throws {
            if !calendarOpen {
                try feed.beginCalendar(properties: properties, sourceLine: calendarLine)
                calendarOpen = true
            }
        }
        var moved = try reader.read()
        while moved {
            switch reader.kind {
            case .element:
                let inNS = reader.namespaceURI == ns
                let name = reader.localName
                switch (level, inNS, name) {
                case (0, true, "vcalendar"):
                    calendarLine = reader.line
                    calendarOpen = false
                    if reader.isEmptyElement {
                        try openCalendar([])
                        try feed.endCalendar()
                    } else {
                        level = 1
                    }
                    moved = try reader.read()
                case (1, true, "properties"):
                    var properties: [ICalProperty] = []
                    do {
                        let tree = try reader.expand()
                        for p in tree.children where p.namespaceURI == ns { properties.append(try decoder.property(p)) }
                    } catch let problem as CalpipeError where problem.kind == .rejected {
                        if context.strict {
                            context.report.reject(SourceLocation(file: label, line: problem.line ?? reader.line), "calendar property: \(problem.message)")
                        } else {
                            context.warn("\(label):\(problem.line ?? 0): calendar property ignored: \(problem.message)")
                        }
                    }
                    try openCalendar(properties)
                    moved = try reader.skipSubtree()
                case (1, true, "components"):
                    try openCalendar([])
                    if reader.isEmptyElement { moved = try reader.read() } else { level = 2; moved = try reader.read() }
                case (2, true, _):
                    let line = reader.line
                    do {
                        let component = try decoder.component(try reader.expand())
                        try feed.component(component, sourceLine: line)
                    } catch let problem as CalpipeError where problem.kind == .rejected {
                        context.report.reject(SourceLocation(file: label, line: problem.line ?? line), problem.message)
                    }
                    moved = try reader.skipSubtree()
                default:
                    // Foreign elements (other namespaces, extensions) are not calendar data.
                    moved = try reader.skipSubtree()
                }
            case .endElement where reader.namespaceURI == ns:
                switch (level, reader.localName) {
                case (2, "components"): level = 1
                case (1, "vcalendar"):
                    try openCalendar([])
                    try feed.endCalendar()
                    level = 0
                default: break
                }
                moved = try reader.read()
            default:
                moved = try reader.read()
            }
        }
    }

    /// True when the file's root element is xCal's <icalendar> (for choosing a reader by content).
    package static func isXCal(path: String) -> Bool {
        guard let reader = try? XMLStreamReader(input: ChunkReader(path: path), label: path), (try? reader.nextElement()) == true else { return false }
        return reader.localName == "icalendar" && reader.namespaceURI == XCalDecoder.namespace
    }
}
