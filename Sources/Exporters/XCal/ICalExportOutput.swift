import Pipeline

/// The shared body of the xCal and jCal sinks: events are written as iCalendar text by `ICSEventWriter`,
/// read back as typed components and rendered in the chosen form into a scratch file; at commit the
/// calendar head (properties and the VTIMEZONEs of the zones used) is written, then the events, atomically.
final class ICalExportOutput {
    enum Format { case xcal, jcal }

    let path: String
    let expand: Bool
    let format: Format
    private var file: AtomicFile?
    private var scratch: ScratchFile?
    private var writer = ICSEventWriter()
    private var rows = 0

    init(path: String, expand: Bool, format: Format) {
        self.path = path
        self.expand = expand
        self.format = format
    }

    func open(context: RunContext) throws {
        file = try AtomicFile(path: path, cancellation: context.cancellation)
        scratch = try ScratchFile()
        writer = ICSEventWriter(openEndedYear: max(2037, context.window?.to.year ?? 0))
        rows = 0
    }

    func write(_ batch: Batch) throws {
        guard let scratch else { return }
        var text = ""
        if expand {
            for occurrence in batch.effectiveOccurrences { writer.write(occurrence); try render(&text) }
        } else {
            for event in batch.events { writer.write(event); try render(&text) }
        }
        try scratch.append(Array(text.utf8))
    }

    /// Renders the VEVENT now in the writer and clears it.
    private func render(_ text: inout String) throws {
        for component in ICalExportReader.components(writer.lines.bytes) {
            switch format {
            case .xcal: XCalWriter.write(component, indent: 3, into: &text)
            case .jcal:
                text += rows == 0 ? "    " : ",\n    "
                text += JCalWriter.component(component, indent: 2)
            }
            rows += 1
        }
        writer.lines.removeAll()
    }

    func commit() throws -> Int {
        guard let file, let scratch else { return 0 }
        var head = ICSLineWriter()
        head.property("VERSION", [], "2.0")
        head.property("PRODID", [], ICSSink.productID)
        head.property("CALSCALE", [], "GREGORIAN")
        var zones = ICSLineWriter()
        for used in writer.zonesUsed {
            let years = used.firstYear <= used.lastYear ? used.firstYear...used.lastYear : 1970...1970
            ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &zones)
        }
        var wrapped = ICSLineWriter()
        wrapped.begin("VCALENDAR")
        var bytes = wrapped.bytes + head.bytes
        var end = ICSLineWriter()
        end.end("VCALENDAR")
        bytes += end.bytes
        let calendarProperties = ICalExportReader.components(bytes).first?.properties ?? []
        let timezones = ICalExportReader.components(zones.bytes)
        var out = ""
        switch format {
        case .xcal:
            out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<icalendar xmlns=\"\(XCalWriter.namespace)\">\n <vcalendar>\n  <properties>\n"
            for p in calendarProperties { out += "   " + XCalWriter.property(p) + "\n" }
            out += "  </properties>\n  <components>\n"
            for z in timezones { XCalWriter.write(z, indent: 3, into: &out) }
        case .jcal:
            out += "[\"vcalendar\",\n  [\n"
            out += calendarProperties.map { "    " + JCalWriter.property($0) }.joined(separator: ",\n")
            out += "\n  ],\n  [\n"
            out += timezones.map { "    " + JCalWriter.component($0, indent: 2) }.joined(separator: ",\n")
            if !timezones.isEmpty && rows > 0 { out += ",\n" }
        }
        try file.write(out)
        try scratch.copy { try file.write(bytes: $0) }
        switch format {
        case .xcal: try file.write("  </components>\n </vcalendar>\n</icalendar>\n")
        case .jcal: try file.write((rows > 0 || !timezones.isEmpty ? "\n" : "") + "  ]\n]\n")
        }
        try file.commit()
        self.file = nil
        self.scratch = nil
        return rows
    }

    func abort() {
        file?.abort()
        file = nil
        scratch = nil
    }
}
