import CalXML
import Pipeline

/// `type: caldav-xml`: reads a saved or piped CalDAV `multistatus` response (RFC 4791 REPORT, RFC 4918
/// PROPFIND): each `calendar-data` is read with the iCalendar reader, line numbers pointing into the XML,
/// and every event keeps its resource's href and ETag in `metadata["href"]` / `metadata["etag"]`.
/// calendar-data sent as xCal (application/calendar+xml) is read the way the `xcal` source reads it.
/// Responses with a non-2xx status are counted, not read. Streams one `response` at a time.
package final class CalDAVSource: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "caldav-xml",
        kind: .source,
        summary: "A saved CalDAV multistatus response: the iCalendar data of each resource, with href and ETag",
        options: InputOptions.self,
        make: { options, _ in CalDAVSource(input: options.spec) }
    )

    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    package static let batchSize = 1000

    package let input: InputSpec

    package init(input: InputSpec) {
        self.input = input
    }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for file in try input.inputs(context: context) {
            let reader = try XMLStreamReader(file: file, progress: context.report, expected: "a CalDAV response")
            guard try reader.nextElement() else {
                throw XMLError(message: "not a CalDAV response: the document has no elements", line: 0, column: 0, file: file.label)
            }
            guard reader.localName == "multistatus", reader.namespaceURI == Self.dav else {
                throw XMLError(message: "not a CalDAV response: the root element is <\(reader.qualifiedName)>"
                               + (reader.namespaceURI.map { " in namespace \($0)" } ?? " with no namespace")
                               + " (expected <multistatus> in DAV:)", line: reader.line, column: 0, file: file.label)
            }
            var batch: [Event] = []
            var moved = try reader.read()
            while moved {
                if reader.kind == .element, reader.localName == "response", reader.namespaceURI == Self.dav {
                    try response(try reader.expand(), label: file.label, context: context, into: &batch)
                    if batch.count >= Self.batchSize {
                        try emit(Batch(events: batch))
                        batch.removeAll(keepingCapacity: true)
                    }
                    moved = try reader.skipSubtree()
                } else {
                    moved = try reader.read()
                }
            }
            if !batch.isEmpty { try emit(Batch(events: batch)) }
        }
    }

    /// One `<response>`: its href, and the calendar data and ETag of its successful propstats.
    private func response(_ r: XMLElementTree, label: String, context: RunContext, into batch: inout [Event]) throws {
        let href = r.child("href", namespace: Self.dav)?.text.trimmingWhitespace() ?? ""
        if let status = r.child("status", namespace: Self.dav), !Self.isSuccess(status.text) {
            context.report.count("CalDAV resources not read (status \(Self.code(status.text)))")
            return
        }
        for propstat in r.children("propstat", namespace: Self.dav) {
            if let status = propstat.child("status", namespace: Self.dav), !Self.isSuccess(status.text) { continue }
            guard let prop = propstat.child("prop", namespace: Self.dav),
                  let data = prop.child("calendar-data", namespace: Self.caldav) else { continue }
            let etag = prop.child("getetag", namespace: Self.dav)?.text.trimmingWhitespace()
            var found: [Event] = []
            let ics = ICSReader(
                label: label, zones: context.environment.zones, fallbackZone: context.zone, firstLine: data.line, strict: context.strict,
                handlers: .init(
                    event: { found.append($0) },
                    reject: { context.report.reject($0, $1) },
                    warn: { context.warn($0) },
                    skip: { context.report.count("skipped " + $0) },
                    repair: { context.repair($0) }))
            do {
                if let xcal = data.child("icalendar", namespace: XCalDecoder.namespace) {
                    // CalDAV servers asked for application/calendar+xml send xCal here (RFC 6321 section 6).
                    try ics.parse(try Self.iCalendarText(xcal, label: label))
                    for i in found.indices {
                        found[i].origin = SourceLocation(file: label, line: data.line)
                        found[i].sourceText = nil
                    }
                } else {
                    try ics.parse(data.text)
                }
            } catch let problem as CalpipeError where !problem.isInterruption {
                // A resource that is not calendar data, or an element that cannot be read: that resource only.
                context.report.reject(SourceLocation(file: label, line: problem.line ?? data.line), "calendar-data of \(href.isEmpty ? "a resource" : href): \(problem.message)")
                continue
            }
            for var event in found {
                if !href.isEmpty { event.metadata["href"] = href }
                if let etag, !etag.isEmpty { event.metadata["etag"] = etag }
                batch.append(event)
            }
        }
    }

    /// The iCalendar text of an xCal <icalendar> element.
    static func iCalendarText(_ root: XMLElementTree, label: String) throws -> String {
        let decoder = XCalDecoder(label: label)
        var text = ""
        var lines = 0
        for calendar in root.children where calendar.localName == "vcalendar" && calendar.namespaceURI == XCalDecoder.namespace {
            var component = try decoder.component(calendar)
            component.name = "VCALENDAR"
            try ICalContentText.text(component, into: &text, lines: &lines)
        }
        return text
    }

    /// "HTTP/1.1 200 OK" -> true for 2xx.
    static func isSuccess(_ status: String) -> Bool {
        code(status).hasPrefix("2")
    }

    static func code(_ status: String) -> String {
        let parts = status.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : status.trimmingWhitespace()
    }
}
