import Pipeline

/// Writes typed components as jCal (RFC 7265): `["vevent", [properties], [components]]`, one property per
/// line. Deterministic; strings escaped by `JSONWriter`.
enum JCalWriter {
    static func string(_ s: String) -> String {
        var out = ""
        JSONWriter.appendQuoted(s, to: &out)
        return out
    }

    static func component(_ c: ExportComponent, indent: Int) -> String {
        let pad = String(repeating: "  ", count: indent)
        var out = "[" + string(c.name) + ",\n"
        if c.properties.isEmpty {
            out += pad + "  [],\n"
        } else {
            out += pad + "  [\n" + c.properties.map { pad + "    " + property($0) }.joined(separator: ",\n") + "\n" + pad + "  ],\n"
        }
        if c.components.isEmpty {
            out += pad + "  []\n"
        } else {
            out += pad + "  [\n" + c.components.map { pad + "    " + component($0, indent: indent + 2) }.joined(separator: ",\n") + "\n" + pad + "  ]\n"
        }
        return out + pad + "]"
    }

    static func property(_ p: ExportProperty) -> String {
        var parts = [string(p.name)]
        var params = "{"
        for (i, parameter) in p.parameters.enumerated() {
            if i > 0 { params += ", " }
            params += string(parameter.name) + ": "
            if parameter.values.count == 1 {
                params += string(parameter.values[0])
            } else {
                params += "[" + parameter.values.map(string).joined(separator: ", ") + "]"
            }
        }
        parts.append(params + "}")
        parts.append(string(p.type))
        for v in p.values { parts.append(value(v)) }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    static func value(_ v: ExportValue) -> String {
        switch v {
        case .string(let s): return string(s)
        case .number(let s): return number(s)
        case .boolean(let b): return b ? "true" : "false"
        case .period(let start, let end, let duration): return string(start + "/" + (end ?? duration ?? ""))
        case .recur(let parts):
            let members = parts.map { part -> String in
                let values = part.values.map { ICalValueTypes.numericRecurParts.contains(part.name) ? number($0) : string($0) }
                return string(part.name) + ": " + (values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]")
            }
            return "{" + members.joined(separator: ", ") + "}"
        case .geo(let lat, let lon): return "[" + number(lat) + ", " + number(lon) + "]"
        case .structured(let parts): return "[" + parts.map(string).joined(separator: ", ") + "]"
        }
    }

    /// A number as JSON: the iCalendar text when it is valid JSON, else its value in JSON form.
    static func number(_ text: String) -> String {
        if let parsed = try? JSONParser.parse(text), case .number = parsed { return text }
        guard let d = Double(text) else { return string(text) }
        return JSONWriter.numberText(d)
    }
}
