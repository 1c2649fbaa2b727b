import CalXML
import Pipeline

/// `type: xcal`: reads xCal (RFC 6321) files one VEVENT at a time with the streaming XML reader, so a feed
/// of any size needs memory for one event plus one batch. Events come out exactly as the iCalendar importer
/// would make them from the same data. VTODO, VJOURNAL and VFREEBUSY are counted and skipped.
public final class XCalSource: EventSource {
    public static let descriptor = SourceDescriptor(
        type: "xcal",
        kind: .source,
        summary: "Read xCal (RFC 6321, iCalendar in XML) files, streaming one event at a time",
        options: InputSpec.optionDocs,
        fileExtensions: ["xcs", "xml"],
        make: { options in
            let spec = InputSpec.decode(options)
            options.rejectUnknownKeys(["path", "url"])
            try options.finish()
            guard let spec else { throw OptionsRejected() }
            return XCalSource(input: spec)
        }
    )

    /// Events handed on per batch.
    public static let batchSize = 500

    let input: InputSpec

    public init(input: InputSpec) {
        self.input = input
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let reader = try XMLStreamReader(path: file.path, label: file.label)
            try read(reader, context: context, emit: emit)
        }
    }

    /// Reads one document.
    func read(_ reader: XMLStreamReader, context: RunContext, emit: (Batch) throws -> Void) throws {
        let label = reader.label
        let decoder = XCalDecoder(label: label)
        let builder = ICalEventBuilder(zones: context.environment.zones)
        var batch: [Event] = []
        batch.reserveCapacity(Self.batchSize)
        var sawRoot = false
        var moved = try reader.read()
        while moved {
            guard reader.kind == .element else {
                moved = try reader.read()
                continue
            }
            let name = reader.localName
            let inNamespace = reader.namespaceURI == XCalDecoder.namespace
            if !sawRoot {
                sawRoot = true
                guard inNamespace, name == "icalendar" else {
                    throw XMLError(message: "not an xCal document: the root element is <\(reader.qualifiedName)>"
                                   + (reader.namespaceURI.map { " in namespace \($0)" } ?? " with no namespace")
                                   + " (expected <icalendar> in \(XCalDecoder.namespace))",
                                   line: reader.line, column: 0, file: label)
                }
                moved = try reader.read()
                continue
            }
            switch (inNamespace, name) {
            case (true, "vcalendar"), (true, "components"):
                moved = try reader.read()
            case (true, "vevent"):
                let line = reader.line
                do {
                    let tree = try reader.expand()
                    let component = try decoder.component(tree)
                    batch.append(try builder.event(from: component))
                } catch let problem as XCalDecoder.Problem {
                    context.report.reject(SourceLocation(file: label, line: problem.line), problem.message)
                } catch let failure as ICalEventBuilder.Failure {
                    context.report.reject(SourceLocation(file: label, line: line), failure.message)
                }
                if batch.count >= Self.batchSize {
                    try emit(Batch(events: batch))
                    batch.removeAll(keepingCapacity: true)
                }
                moved = try reader.skipSubtree()
            case (true, "vtodo"), (true, "vjournal"), (true, "vfreebusy"):
                context.report.count("skipped " + name.uppercased())
                moved = try reader.skipSubtree()
            default:
                // Calendar properties, VTIMEZONE definitions (zones come from their TZID names) and foreign elements.
                moved = try reader.skipSubtree()
            }
        }
        if !sawRoot {
            throw XMLError(message: "not an xCal document: it has no elements", line: 0, column: 0, file: label)
        }
        if !batch.isEmpty { try emit(Batch(events: batch)) }
    }

    /// True when the file's root element is xCal's <icalendar> (for choosing a reader by content).
    public static func isXCal(path: String) -> Bool {
        guard let reader = try? XMLStreamReader(path: path), (try? reader.nextElement()) == true else { return false }
        return reader.localName == "icalendar" && reader.namespaceURI == XCalDecoder.namespace
    }
}
