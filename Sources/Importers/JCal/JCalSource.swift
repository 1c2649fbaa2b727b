import Pipeline

/// `type: jcal`: reads jCal (RFC 7265, iCalendar in JSON) files: one calendar `["vcalendar", [...], [...]]`
/// or an array of them. Components stream one at a time; events come out exactly as the iCalendar importer
/// would make them from the same data. VTODO, VJOURNAL and VFREEBUSY are counted and skipped.
package final class JCalSource: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "jcal",
        kind: .source,
        summary: "jCal (RFC 7265, iCalendar in JSON) files, streamed one component at a time",
        options: InputOptions.self,
        fileExtensions: ["jcal"],
        make: { options, _ in JCalSource(input: options.spec) }
    )

    package static let batchSize = 1000
    package let input: InputSpec

    package init(input: InputSpec) {
        self.input = input
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        try input.forEachInput(context: context, emit: emit) { file, emit in
            let stream = JCalStream(reader: try ChunkReader(path: file.path, label: file.label, progress: context.report), label: file.label)
            try ICalFeed.run(label: file.label, context: context, batchSize: Self.batchSize, emit: emit) { feed in
                try Reading(stream: stream, feed: feed, context: context).document()
            }
        }
    }

    /// Reading one document.
    private struct Reading {
        let stream: JCalStream
        let feed: ICalFeed
        let context: RunContext

        func document() throws {
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
        }

        /// The rest of a calendar after its "[": name, properties, components, "]".
        func calendar() throws {
            let (name, nameLine) = try stream.nextValue()
            guard case .string(let s) = name, s.lowercased() == "vcalendar" else {
                throw stream.error("expected \"vcalendar\", found \(name.preview)", line: nameLine)
            }
            try stream.expect(UInt8(ascii: ","), "\",\" and the calendar's properties")
            let (properties, propertiesLine) = try stream.nextValue()
            guard case .array(let list) = properties else {
                throw stream.error("expected the calendar's properties array, found \(properties.kindDescription)", line: propertiesLine)
            }
            var decoded: [ICalProperty] = []
            for (i, p) in list.enumerated() {
                do {
                    decoded.append(try JCalDecoder().property(p, path: "[1][\(i)]"))
                } catch let problem as CalpipeError where problem.kind == .rejected {
                    if context.strict {
                        context.report.reject(SourceLocation(file: stream.label, line: propertiesLine), "calendar property: \(problem)")
                    } else {
                        context.warn("\(stream.label):\(propertiesLine): calendar property ignored: \(problem)")
                    }
                }
            }
            try feed.beginCalendar(properties: decoded, sourceLine: nameLine)
            try stream.expect(UInt8(ascii: ","), "\",\" and the calendar's components")
            try stream.expect(UInt8(ascii: "["), "the calendar's components array")
            if try stream.peek() == UInt8(ascii: "]") {
                try stream.expect(UInt8(ascii: "]"), "\"]\"")
            } else {
                while true {
                    let (value, line) = try stream.nextValue()
                    try component(value, line: line)
                    guard let b = try stream.peek() else { throw stream.error("unexpected end of input (expected \",\" or \"]\")") }
                    if b == UInt8(ascii: ",") { try stream.expect(b, "\",\""); continue }
                    try stream.expect(UInt8(ascii: "]"), "\",\" or \"]\" after a component")
                    break
                }
            }
            try stream.expect(UInt8(ascii: "]"), "\"]\" closing the calendar")
            try feed.endCalendar()
        }

        func component(_ value: JSONValue, line: Int) throws {
            let location = SourceLocation(file: stream.label, line: line)
            do {
                try feed.component(try JCalDecoder().component(value), sourceLine: line)
            } catch let problem as CalpipeError where problem.kind == .rejected {
                context.report.reject(location, problem.description)
            }
        }
    }
}
