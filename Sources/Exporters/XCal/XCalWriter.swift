/// Writes typed components as xCal (RFC 6321) elements: one line per property, indented by nesting,
/// text escaped for XML and characters XML 1.0 cannot carry dropped. Deterministic.
enum XCalWriter {
    static let namespace = "urn:ietf:params:xml:ns:icalendar-2.0"

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\n", "\t": out.unicodeScalars.append(c)
            case "\u{FFFE}", "\u{FFFF}": continue
            default:
                if c.value < 0x20 || c.value == 0x7F { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func element(_ name: String, _ text: String) -> String {
        "<\(name)>\(escape(text))</\(name)>"
    }

    static func write(_ c: ExportComponent, indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent)
        out += pad + "<\(c.name)>\n"
        if !c.properties.isEmpty {
            out += pad + " <properties>\n"
            for p in c.properties { out += pad + "  " + property(p) + "\n" }
            out += pad + " </properties>\n"
        }
        if !c.components.isEmpty {
            out += pad + " <components>\n"
            for sub in c.components { write(sub, indent: indent + 2, into: &out) }
            out += pad + " </components>\n"
        }
        out += pad + "</\(c.name)>\n"
    }

    static func property(_ p: ExportProperty) -> String {
        var out = "<\(p.name)>"
        if !p.parameters.isEmpty {
            out += "<parameters>"
            for parameter in p.parameters {
                // xCal booleans are "true" / "false" (XML Schema); the importer writes them back upper case.
                let values = parameter.type == "boolean" ? parameter.values.map { $0.lowercased() } : parameter.values
                out += "<\(parameter.name)>" + values.map { element(parameter.type, $0) }.joined() + "</\(parameter.name)>"
            }
            out += "</parameters>"
        }
        for v in p.values { out += value(v, type: p.type) }
        return out + "</\(p.name)>"
    }

    static func value(_ v: ExportValue, type: String) -> String {
        switch v {
        case .string(let s), .number(let s): return element(type, s)
        case .boolean(let b): return element(type, b ? "true" : "false")
        case .period(let start, let end, let duration):
            return "<period>" + element("start", start) + (end.map { element("end", $0) } ?? "") + (duration.map { element("duration", $0) } ?? "") + "</period>"
        case .recur(let parts):
            return "<recur>" + parts.map { part in part.values.map { element(part.name, $0) }.joined() }.joined() + "</recur>"
        case .geo(let lat, let lon):
            return element("latitude", lat) + element("longitude", lon)
        case .structured(let parts):
            return zip(["code", "description", "data"], parts).map { element($0, $1) }.joined()
        }
    }
}
