import CalXML
import Pipeline

/// Turns an xCal (RFC 6321) component element into an `ICalComponent`, every value in iCalendar text form.
struct XCalDecoder {
    static let namespace = "urn:ietf:params:xml:ns:icalendar-2.0"
    let label: String

    func component(_ element: XMLElementTree) throws -> ICalComponent {
        var component = ICalComponent(name: element.localName.uppercased(), location: SourceLocation(file: label, line: element.line))
        for child in element.children where child.namespaceURI == Self.namespace {
            switch child.localName {
            case "properties":
                for property in child.children where property.namespaceURI == Self.namespace {
                    component.properties.append(try self.property(property))
                }
            case "components":
                for sub in child.children where sub.namespaceURI == Self.namespace {
                    component.components.append(try self.component(sub))
                }
            default:
                throw CalpipeError.rejected("unexpected <\(child.localName)> in <\(element.localName)> (expected <properties> or <components>)", line: child.line)
            }
        }
        return component
    }

    func property(_ element: XMLElementTree) throws -> ICalProperty {
        let name = element.localName.uppercased()
        var parameters: [Parameter] = []
        var valueElements: [XMLElementTree] = []
        for child in element.children where child.namespaceURI == Self.namespace {
            if child.localName == "parameters" {
                for p in child.children where p.namespaceURI == Self.namespace {
                    let values = p.children.filter { $0.namespaceURI == Self.namespace }.map { v in
                        v.localName == "boolean" ? v.text.uppercased() : v.text
                    }
                    if values.isEmpty {
                        throw CalpipeError.rejected("parameter <\(p.localName)> of <\(element.localName)> has no value element", line: p.line)
                    }
                    if p.localName == "value" { continue }  // the element names the type already
                    parameters.append(Parameter(name: p.localName.uppercased(), values: values))
                }
            } else {
                valueElements.append(child)
            }
        }
        // Structured values: GEO and REQUEST-STATUS (RFC 6321 3.4.1.2, 3.4.1.3).
        if name == "GEO", valueElements.contains(where: { $0.localName == "latitude" }) {
            guard let lat = valueElements.first(where: { $0.localName == "latitude" }),
                  let lon = valueElements.first(where: { $0.localName == "longitude" }) else {
                throw CalpipeError.rejected("<geo> needs <latitude> and <longitude>", line: element.line)
            }
            return ICalProperty(name: name, parameters: parameters, valueType: "float", values: [lat.text + ";" + lon.text])
        }
        if name == "REQUEST-STATUS", valueElements.contains(where: { $0.localName == "code" }) {
            let parts = ["code", "description", "data"].compactMap { part in valueElements.first { $0.localName == part }.map { ICalContentText.escapeText($0.text) } }
            return ICalProperty(name: name, parameters: parameters, valueType: "text", values: [parts.joined(separator: ";")])
        }
        guard let first = valueElements.first else {
            throw CalpipeError.rejected("property <\(element.localName)> has no value element", line: element.line)
        }
        let type = first.localName
        guard ICalValueTypes.known.contains(type) else {
            throw CalpipeError.rejected("<\(type)> in <\(element.localName)> is not an xCal value type", line: first.line)
        }
        var values: [String] = []
        for v in valueElements {
            guard v.localName == type else {
                throw CalpipeError.rejected("<\(element.localName)> mixes <\(type)> and <\(v.localName)> values", line: v.line)
            }
            values.append(try value(v, type: type, property: element.localName))
        }
        return ICalProperty(name: name, parameters: parameters, valueType: type, values: values)
    }

    private func value(_ v: XMLElementTree, type: String, property: String) throws -> String {
        func bad(_ expected: String) -> CalpipeError {
            CalpipeError.rejected("<\(type)> value \"\(v.text)\" in <\(property)> is not \(expected)", line: v.line)
        }
        switch type {
        // Dates, times, offsets and periods that do not have their form are handed on as written
        // (`ICalValueText.unreadable`): the iCalendar reader repairs or rejects them as it does in .ics files.
        case "date": return ICalValueText.basicDate(v.text) ?? ICalValueText.unreadable(v.text)
        case "date-time": return ICalValueText.basicDateTime(v.text) ?? ICalValueText.unreadable(v.text)
        case "time": return ICalValueText.basicTime(v.text) ?? ICalValueText.unreadable(v.text)
        case "utc-offset": return ICalValueText.basicUTCOffset(v.text) ?? ICalValueText.unreadable(v.text)
        case "boolean":
            return v.text.uppercased()
        case "period":
            let startText = v.child("start")?.text ?? ""
            let s = ICalValueText.basicDateOrDateTime(startText) ?? ICalValueText.unreadable(startText)
            if let end = v.child("end") { return s + "/" + (ICalValueText.basicDateOrDateTime(end.text) ?? ICalValueText.unreadable(end.text)) }
            return s + "/" + ICalValueText.unreadable(v.child("duration")?.text ?? "")
        case "recur":
            return try recur(v, property: property)
        case "text":
            return ICalContentText.escapeText(v.text)
        default:
            return v.text
        }
    }

    private func recur(_ v: XMLElementTree, property: String) throws -> String {
        var parts: [(String, [String])] = []
        for part in v.children where part.namespaceURI == Self.namespace {
            let key = part.localName.uppercased()
            var text = part.text
            if key == "UNTIL" {
                // RFC 6321 writes the date or date-time as the text of <until>; some writers wrap it in a
                // <date> or <date-time> element: accept both.
                if let inner = part.children.first(where: { $0.localName == "date" || $0.localName == "date-time" }) { text = inner.text }
                text = ICalValueText.basicDateOrDateTime(text) ?? ICalValueText.unreadable(text)
            }
            if let i = parts.firstIndex(where: { $0.0 == key }) {
                parts[i].1.append(text)
            } else {
                parts.append((key, [text]))
            }
        }
        // A rule without <freq> is handed on too: the iCalendar reader judges rules (and leaves one it cannot
        // read out of the event, when it repairs).
        return parts.map { $0.0 + "=" + $0.1.joined(separator: ",") }.joined(separator: ";")
    }
}
