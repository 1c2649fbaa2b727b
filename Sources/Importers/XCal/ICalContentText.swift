import Pipeline

/// Writes an `ICalComponent` as iCalendar content lines (RFC 5545 3.1), so the iCalendar reader can turn
/// xCal and jCal data into events with exactly its own rules. Names are checked so nothing in the XML or
/// JSON can smuggle extra lines (a value with a line break, a name with ":") into the generated text.
enum ICalContentText {
    /// Escapes a TEXT value (RFC 5545 3.3.11).
    static func escapeText(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var previousCR = false
        for ch in s.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n":
                if !previousCR { out += "\\n" }
            case "\r": out += "\\n"
            default: out.unicodeScalars.append(ch)
            }
            previousCR = ch == "\r"
        }
        return out
    }

    /// A parameter value, quoted when needed, with RFC 6868 escapes for line breaks, quotes and carets.
    static func parameterValue(_ s: String) -> String {
        var needsQuotes = s.isEmpty
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "^": out += "^^"
            case "\"": out += "^'"
            case "\n": out += "^n"
            case "\r": continue
            case ":", ";", ",": needsQuotes = true; out.unicodeScalars.append(ch)
            default: out.unicodeScalars.append(ch)
            }
        }
        return needsQuotes ? "\"" + out + "\"" : out
    }

    /// True for an iCalendar name: letters, digits and "-".
    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    /// One property as a content line (without the line break).
    static func line(_ p: ICalProperty) throws -> String {
        guard isName(p.name) else { throw CalpipeError.rejected("\"\(p.name)\" is not a property name") }
        var text = p.name
        var parameters = p.parameters
        let defaultType = ICalValueTypes.defaultType(of: p.name)
        if p.valueType != defaultType, p.valueType != "unknown", !(defaultType == "unknown" && p.valueType == "text") {
            parameters.insert(Parameter("VALUE", p.valueType.uppercased()), at: 0)
        }
        for parameter in parameters {
            guard isName(parameter.name) else { throw CalpipeError.rejected("\"\(parameter.name)\" is not a parameter name (in \(p.name.lowercased()))") }
            text += ";" + parameter.name + "=" + parameter.values.map(parameterValue).joined(separator: ",")
        }
        let value = p.values.joined(separator: ",")
        if value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            throw CalpipeError.rejected("the \(p.valueType) value of \(p.name.lowercased()) contains a line break")
        }
        return text + ":" + value
    }

    /// A component as content lines, CRLF after each; `lines` counts them.
    static func text(_ c: ICalComponent, into out: inout String, lines: inout Int) throws {
        guard isName(c.name) else { throw CalpipeError.rejected("\"\(c.name)\" is not a component name") }
        out += "BEGIN:" + c.name + "\r\n"
        lines += 1
        for p in c.properties {
            out += try line(p) + "\r\n"
            lines += 1
        }
        for sub in c.components { try text(sub, into: &out, lines: &lines) }
        out += "END:" + c.name + "\r\n"
        lines += 1
    }
}
