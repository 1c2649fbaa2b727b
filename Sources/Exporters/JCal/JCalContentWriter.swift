import Pipeline

/// Renders calendar content as jCal (RFC 7265) into bytes: `["vevent", [properties], [components]]`, one
/// property per line, two-space indents by nesting. Deterministic. Components arrive one at a time
/// (`ICalContentWriter`); the property and component arrays are opened when their first member comes.
struct JCalContentWriter: ICalContentWriter {
    let out: JSONBytes
    private var frames: [(indent: Int, properties: Int, components: Int, open: Bool)]

    /// Top-level components are members of an array the caller opened, at `indent` levels of two spaces.
    init(out: JSONBytes, indent: Int) {
        self.out = out
        frames = [(indent - 2, 0, 0, true)]
    }

    /// Top-level components written so far.
    var componentsWritten: Int { frames[0].components }

    mutating func begin(_ name: String) {
        let p = frames.count - 1
        if !frames[p].open {
            closeProperties(frames[p])
            out.spaces(2 * frames[p].indent + 2)
            out.raw("[\n")
            frames[p].open = true
        }
        if frames[p].components > 0 { out.raw(",\n") }
        frames[p].components += 1
        out.spaces(2 * frames[p].indent + 4)
        out.byte(0x5B)
        out.quotedName(name)
        out.raw(",\n")
        frames.append((frames[p].indent + 2, 0, 0, false))
    }

    private func closeProperties(_ frame: (indent: Int, properties: Int, components: Int, open: Bool)) {
        if frame.properties == 0 {
            out.spaces(2 * frame.indent + 2)
            out.raw("[],\n")
        } else {
            out.byte(0x0A)
            out.spaces(2 * frame.indent + 2)
            out.raw("],\n")
        }
    }

    mutating func end(_ name: String) {
        guard frames.count > 1, let frame = frames.popLast() else { return }
        if frame.open {
            out.byte(0x0A)
            out.spaces(2 * frame.indent + 2)
            out.raw("]\n")
        } else {
            closeProperties(frame)
            out.spaces(2 * frame.indent + 2)
            out.raw("[]\n")
        }
        out.spaces(2 * frame.indent)
        out.byte(0x5D)
    }

    mutating func property(_ name: String, _ parameters: [Parameter], _ value: ICalValue) {
        let p = frames.count - 1
        if frames[p].properties == 0 {
            out.spaces(2 * frames[p].indent + 2)
            out.raw("[\n")
        } else {
            out.raw(",\n")
        }
        frames[p].properties += 1
        out.spaces(2 * frames[p].indent + 4)
        write(name, parameters, value)
    }

    /// `["name", {params}, "type", values...]` with no indent or line break.
    func write(_ name: String, _ parameters: [Parameter], _ value: ICalValue) {
        if case .raw(let text) = value { return write(ICalRawValue.property(name.uppercased(), parameters, text)) }
        out.byte(0x5B)
        out.quotedName(name)
        out.raw(", ")
        self.parameters(parameters.withoutValueType.map { ($0.name, $0.values) })
        out.raw(", \"")
        out.raw(value.typeName)
        out.byte(0x22)
        switch value {
        case .text(let s), .verbatim(_, let s): out.raw(", "); out.quotedText(s)
        case .texts(let items): for s in items { out.raw(", "); out.quotedText(s) }
        case .time(let t): out.raw(", \""); out.extended(t); out.byte(0x22)
        // RFC 7265 periods: start and end, or start and duration, as a two-element array (the jcal source also reads "start/end").
        case .period(let s, let e):
            out.raw(", [\""); out.extended(s); out.raw("\", \""); out.extended(e); out.raw("\"]")
        case .periodWithDuration(let s, let d):
            out.raw(", [\""); out.extended(s); out.raw("\", "); out.quoted(d.iCalendarText); out.byte(0x5D)
        case .duration(let d): out.raw(", "); out.quoted(d.iCalendarText)
        case .recur(let rule): out.raw(", "); recur(ICalValue.recurParts(rule))
        case .geo(let lat, let lon):
            out.raw(", [")
            number(ICalEventWriter<ICSLineWriter>.number(lat))
            out.raw(", ")
            number(ICalEventWriter<ICSLineWriter>.number(lon))
            out.byte(0x5D)
        case .utcOffset(let seconds): out.raw(", \""); out.offset(seconds); out.byte(0x22)
        case .raw: break
        }
        out.byte(0x5D)
    }

    private func parameters(_ list: [(name: String, values: [String])]) {
        out.byte(0x7B)
        for (i, parameter) in list.enumerated() {
            if i > 0 { out.raw(", ") }
            out.quotedName(parameter.name)
            out.raw(": ")
            if parameter.values.count == 1 {
                out.quotedText(parameter.values[0])
            } else {
                out.byte(0x5B)
                for (j, v) in parameter.values.enumerated() {
                    if j > 0 { out.raw(", ") }
                    out.quotedText(v)
                }
                out.byte(0x5D)
            }
        }
        out.byte(0x7D)
    }

    private func recur(_ parts: [(name: String, values: [String])]) {
        out.byte(0x7B)
        for (i, part) in parts.enumerated() {
            if i > 0 { out.raw(", ") }
            out.quoted(part.name)
            out.raw(": ")
            let numeric = ICalValueTypes.numericRecurParts.contains(part.name)
            if part.values.count != 1 { out.byte(0x5B) }
            for (j, v) in part.values.enumerated() {
                if j > 0 { out.raw(", ") }
                if numeric { number(v) } else { out.quoted(v) }
            }
            if part.values.count != 1 { out.byte(0x5D) }
        }
        out.byte(0x7D)
    }

    /// A kept property converted from its iCalendar text.
    private func write(_ p: ExportProperty) {
        out.byte(0x5B)
        out.quotedName(p.name)
        out.raw(", ")
        parameters(p.parameters.map { ($0.name, $0.values) })
        out.raw(", ")
        out.quoted(p.type)
        for v in p.values {
            out.raw(", ")
            switch v {
            case .string(let s): out.quotedText(s)
            case .number(let s): number(s)
            case .boolean(let b): out.bool(b)
            case .period(let start, let end, let duration):
                out.byte(0x5B); out.quoted(start); out.raw(", "); out.quoted(end ?? duration ?? ""); out.byte(0x5D)
            case .recur(let parts): recur(parts)
            case .geo(let lat, let lon):
                out.byte(0x5B); number(lat); out.raw(", "); number(lon); out.byte(0x5D)
            case .structured(let parts):
                out.byte(0x5B)
                for (i, part) in parts.enumerated() {
                    if i > 0 { out.raw(", ") }
                    out.quotedText(part)
                }
                out.byte(0x5D)
            }
        }
        out.byte(0x5D)
    }

    /// A number as JSON: the iCalendar text when it is a plain JSON number, else its value in JSON form.
    private func number(_ text: String) {
        if Self.isJSONNumber(text) { return out.append(text) }
        guard let d = Double(text), d.isFinite else { return out.quoted(text) }
        out.number(d)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    static func isJSONNumber(_ text: String) -> Bool {
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int {
            let s = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - s
        }
        if i < b.count, b[i] == 0x2D { i += 1 }
        let start = i
        let n = digits()
        guard n > 0, n == 1 || b[start] != 0x30 else { return false }
        if i < b.count, b[i] == 0x2E { i += 1; guard digits() > 0 else { return false } }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }
}
