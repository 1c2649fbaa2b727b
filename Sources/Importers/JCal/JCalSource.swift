import Pipeline

/// `type: jcal`: reads jCal (RFC 7265, iCalendar in JSON) files: one calendar `["vcalendar", [...], [...]]`
/// or an array of them. Components stream one at a time; events come out exactly as the iCalendar importer
/// would make them from the same data. VTODO, VJOURNAL and VFREEBUSY are counted and skipped.
public final class JCalSource: EventSource {
    public static let descriptor = SourceDescriptor(
        type: "jcal",
        kind: .source,
        summary: "Read jCal (RFC 7265, iCalendar in JSON) files, streaming one component at a time",
        options: InputSpec.optionDocs,
        fileExtensions: ["jcal"],
        make: { options in
            let spec = InputSpec.decode(options)
            options.rejectUnknownKeys(["path", "url"])
            try options.finish()
            guard let spec else { throw OptionsRejected() }
            return JCalSource(input: spec)
        }
    )

    public static let batchSize = 500
    let input: InputSpec

    public init(input: InputSpec) {
        self.input = input
    }

    public func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let stream = JCalStream(reader: try ChunkReader(path: file.path, label: file.label), label: file.label)
            try withoutActuallyEscaping(emit) { emit in
                var reading = Reading(stream: stream, context: context, builder: ICalEventBuilder(zones: context.environment.zones), emit: emit)
                try reading.document()
            }
        }
    }

    /// The state of reading one document.
    private struct Reading {
        let stream: JCalStream
        let context: RunContext
        let builder: ICalEventBuilder
        let emit: (Batch) throws -> Void
        var batch: [Event] = []

        init(stream: JCalStream, context: RunContext, builder: ICalEventBuilder, emit: @escaping (Batch) throws -> Void) {
            self.stream = stream
            self.context = context
            self.builder = builder
            self.emit = emit
        }

        mutating func document() throws {
            try stream.expect(UInt8(ascii: "["), "a jCal calendar [\"vcalendar\", [properties], [components]]")
            if try stream.peek() == UInt8(ascii: "\"") {
                try calendar()
            } else if try stream.peek() == UInt8(ascii: "]") {
                try stream.expect(UInt8(ascii: "]"), "\"]\"")
            } else {
                while true {
                    try stream.expect(UInt8(ascii: "["), "a jCal calendar [\"vcalendar\", ...]")
                    try calendar()
                    guard let b = try stream.peek() else { throw stream.error("unexpected end of input (expected \",\" or \"]\")") }
                    if b == UInt8(ascii: ",") { try stream.expect(b, "\",\""); continue }
                    try stream.expect(UInt8(ascii: "]"), "\",\" or \"]\" after a calendar")
                    break
                }
            }
            guard try stream.atEndOfInput() else { throw stream.error("unexpected text after the jCal document") }
            if !batch.isEmpty { try emit(Batch(events: batch)) }
            batch.removeAll()
        }

        /// The rest of a calendar after its "[": name, properties, components, "]".
        mutating func calendar() throws {
            let (name, nameLine) = try stream.nextValue()
            guard case .string(let s) = name, s.lowercased() == "vcalendar" else {
                throw stream.error("expected \"vcalendar\", found \(name.preview)", line: nameLine)
            }
            try stream.expect(UInt8(ascii: ","), "\",\" and the calendar's properties")
            let (properties, propertiesLine) = try stream.nextValue()
            guard case .array = properties else {
                throw stream.error("expected the calendar's properties array, found \(properties.kindDescription)", line: propertiesLine)
            }
            try stream.expect(UInt8(ascii: ","), "\",\" and the calendar's components")
            try stream.expect(UInt8(ascii: "["), "the calendar's components array")
            if try stream.peek() == UInt8(ascii: "]") {
                try stream.expect(UInt8(ascii: "]"), "\"]\"")
            } else {
                var index = 0
                while true {
                    let (value, line) = try stream.nextValue()
                    try component(value, line: line, index: index)
                    index += 1
                    guard let b = try stream.peek() else { throw stream.error("unexpected end of input (expected \",\" or \"]\")") }
                    if b == UInt8(ascii: ",") { try stream.expect(b, "\",\""); continue }
                    try stream.expect(UInt8(ascii: "]"), "\",\" or \"]\" after a component")
                    break
                }
            }
            try stream.expect(UInt8(ascii: "]"), "\"]\" closing the calendar")
        }

        mutating func component(_ value: JSONValue, line: Int, index: Int) throws {
            let location = SourceLocation(file: stream.label, line: line)
            guard case .array(let items) = value, case .string(let name)? = items.first else {
                context.report.reject(location, "expected a component [\"name\", [properties], [components]], got \(value.kindDescription) \(value.preview)")
                return
            }
            switch name.lowercased() {
            case "vevent":
                do {
                    var decoded = try JCalDecoder().component(value)
                    decoded.location = location
                    batch.append(try builder.event(from: decoded))
                } catch let problem as JCalDecoder.Problem {
                    context.report.reject(location, problem.description)
                } catch let failure as ICalEventBuilder.Failure {
                    context.report.reject(location, failure.message)
                }
                if batch.count >= JCalSource.batchSize {
                    try emit(Batch(events: batch))
                    batch.removeAll(keepingCapacity: true)
                }
            case "vtodo", "vjournal", "vfreebusy":
                context.report.count("skipped " + name.uppercased())
            default:
                break
            }
        }
    }
}
