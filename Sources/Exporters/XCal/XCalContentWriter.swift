import Pipeline

/// Renders calendar content as xCal (RFC 6321) into bytes: one line per property, indented by nesting, text
/// escaped for XML and characters XML 1.0 cannot carry dropped. Deterministic. Components arrive one at a
/// time (`ICalContentWriter`); `<properties>` and `<components>` are opened when their first member comes.
struct XCalContentWriter: ICalContentWriter {
    static let namespace = "urn:ietf:params:xml:ns:icalendar-2.0"

    let out: JSONBytes
    private var frames: [(indent: Int, properties: Int, components: Int, open: Bool)]

    /// Top-level components are written at `indent` spaces, as members of a `<components>` written by the caller.
    init(out: JSONBytes, indent: Int) {
        self.out = out
        frames = [(indent - 2, 0, 0, true)]
    }

    /// Top-level components written so far.
    var componentsWritten: Int { frames[0].components }

    mutating func begin(_ name: String) {
        let p = frames.count - 1
        if !frames[p].open {
            if frames[p].properties > 0 { out.spaces(frames[p].indent + 1); out.raw("</properties>\n") }
            out.spaces(frames[p].indent + 1)
            out.raw("<components>\n")
            frames[p].open = true
        }
        frames[p].components += 1
        let indent = frames[p].indent + 2
        out.spaces(indent)
        tag(name)
        out.byte(0x0A)
        frames.append((indent, 0, 0, false))
    }

    mutating func end(_ name: String) {
        guard frames.count > 1, let frame = frames.popLast() else { return }
        if frame.open {
            out.spaces(frame.indent + 1)
            out.raw("</components>\n")
        } else if frame.properties > 0 {
            out.spaces(frame.indent + 1)
            out.raw("</properties>\n")
        }
        out.spaces(frame.indent)
        tag(name, closing: true)
        out.byte(0x0A)
    }

    mutating func property(_ name: String, _ parameters: [Parameter], _ value: ICalValue) {
        let p = frames.count - 1
        if frames[p].properties == 0 {
            out.spaces(frames[p].indent + 1)
            out.raw("<properties>\n")
        }
        frames[p].properties += 1
        out.spaces(frames[p].indent + 2)
        write(name, parameters, value)
        out.byte(0x0A)
    }

    /// One property element, with no indent or line break.
    func write(_ name: String, _ parameters: [Parameter], _ value: ICalValue) {
        if case .raw(let text) = value { return write(ICalRawValue.property(name.uppercased(), parameters, text)) }
        tag(name)
        self.parameters(parameters.withoutValueType.map { ($0.name, ICalValueTypes.parameterTypes[$0.name.uppercased()] ?? "text", $0.values) })
        typed(value)
        tag(name, closing: true)
    }

    private func tag(_ name: String, closing: Bool = false) {
        out.raw(closing ? "</" : "<")
        out.lowercasedName(name)
        out.byte(0x3E)
    }

    private func element(_ name: StaticString, _ text: String) {
        out.byte(0x3C); out.raw(name); out.byte(0x3E)
        out.xmlText(text)
        out.raw("</"); out.raw(name); out.byte(0x3E)
    }

    private func element(_ name: String, _ text: String) {
        tag(name)
        out.xmlText(text)
        tag(name, closing: true)
    }

    private func parameters(_ list: [(name: String, type: String, values: [String])]) {
        guard !list.isEmpty else { return }
        out.raw("<parameters>")
        for parameter in list {
            tag(parameter.name)
            for v in parameter.values {
                // xCal booleans are "true" / "false" (XML Schema); the importer writes them back upper case.
                element(parameter.type, parameter.type == "boolean" ? v.lowercased() : v)
            }
            tag(parameter.name, closing: true)
        }
        out.raw("</parameters>")
    }

    private func typed(_ value: ICalValue) {
        let type = value.typeName
        switch value {
        case .text(let s), .verbatim(_, let s): element(type, s)
        case .texts(let items): for s in items { element(type, s) }
        case .time(let t): timeElement(type, t)
        case .period(let s, let e):
            out.raw("<period>"); timeElement("start", s); timeElement("end", e); out.raw("</period>")
        case .periodWithDuration(let s, let d):
            out.raw("<period>"); timeElement("start", s); element("duration", d.iCalendarText); out.raw("</period>")
        case .duration(let d): element(type, d.iCalendarText)
        case .recur(let rule):
            out.raw("<recur>")
            for part in ICalValue.recurParts(rule) { for v in part.values { element(part.name, v) } }
            out.raw("</recur>")
        case .geo(let lat, let lon):
            element("latitude", ICalEventWriter<ICSLineWriter>.number(lat))
            element("longitude", ICalEventWriter<ICSLineWriter>.number(lon))
        case .utcOffset(let seconds):
            out.raw("<utc-offset>"); out.offset(seconds); out.raw("</utc-offset>")
        case .raw(let s): element(type, s)
        }
    }

    private func timeElement(_ name: StaticString, _ t: EventTime) {
        out.byte(0x3C); out.raw(name); out.byte(0x3E)
        out.extended(t)
        out.raw("</"); out.raw(name); out.byte(0x3E)
    }

    /// A kept property converted from its iCalendar text.
    private func write(_ p: ExportProperty) {
        tag(p.name)
        parameters(p.parameters)
        for v in p.values {
            switch v {
            case .string(let s), .number(let s): element(p.type, s)
            case .boolean(let b): element(p.type, b ? "true" : "false")
            case .period(let start, let end, let duration):
                out.raw("<period>")
                element("start", start)
                if let end { element("end", end) }
                if let duration { element("duration", duration) }
                out.raw("</period>")
            case .recur(let parts):
                out.raw("<recur>")
                for part in parts { for v in part.values { element(part.name, v) } }
                out.raw("</recur>")
            case .geo(let lat, let lon):
                element("latitude", lat)
                element("longitude", lon)
            case .structured(let parts):
                for (name, part) in zip(["code", "description", "data"] as [StaticString], parts) { element(name, part) }
            }
        }
        tag(p.name, closing: true)
    }
}
