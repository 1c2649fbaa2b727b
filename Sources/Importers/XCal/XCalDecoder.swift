import CalXML
import Pipeline

/// Turns an xCal (RFC 6321) component element into an `ICalComponent`, every value in iCalendar text form.
struct XCalDecoder {
    static let namespace = "urn:ietf:params:xml:ns:icalendar-2.0"
    let label: String

    /// A problem with one element: the message names the element and its line.
    struct Problem: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { message }
    }

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
                throw Problem(line: child.line, message: "unexpected <\(child.localName)> in <\(element.localName)> (expected <properties> or <components>)")
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
                        throw Problem(line: p.line, message: "parameter <\(p.localName)> of <\(element.localName)> has no value element")
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
                throw Problem(line: element.line, message: "<geo> needs <latitude> and <longitude>")
            }
            return ICalProperty(name: name, parameters: parameters, valueType: "float", values: [lat.text + ";" + lon.text])
        }
        if name == "REQUEST-STATUS", valueElements.contains(where: { $0.localName == "code" }) {
            let parts = ["code", "description", "data"].compactMap { part in valueElements.first { $0.localName == part }.map { ICalContentText.escapeText($0.text) } }
            return ICalProperty(name: name, parameters: parameters, valueType: "text", values: [parts.joined(separator: ";")])
        }
        guard let first = valueElements.first else {
            throw Problem(line: element.line, message: "property <\(element.localName)> has no value element")
        }
        let type = first.localName
        guard ICalValueTypes.known.contains(type) else {
            throw Problem(line: first.line, message: "<\(type)> in <\(element.localName)> is not an xCal value type")
        }
        var values: [String] = []
        for v in valueElements {
            guard v.localName == type else {
                throw Problem(line: v.line, message: "<\(element.localName)> mixes <\(type)> and <\(v.localName)> values")
            }
            values.append(try value(v, type: type, property: element.localName))
        }
        return ICalProperty(name: name, parameters: parameters, valueType: type, values: values)
    }

    private func value(_ v: XMLElementTree, type: String, property: String) throws -> String {
        func bad(_ expected: String) -> Problem {
            Problem(line: v.line, message: "<\(type)> value \"\(v.text)\" in <\(property)> is not \(expected)")
        }
        switch type {
        case "date":
            guard let s = ICalValueText.basicDate(v.text) else { throw bad("a date like 2006-01-02") }
            return s
        case "date-time":
            guard let s = ICalValueText.basicDateTime(v.text) else { throw bad("a date-time like 2006-01-02T12:00:00") }
            return s
        case "time":
            guard let s = ICalValueText.basicTime(v.text) else { throw bad("a time like 12:00:00") }
            return s
        case "utc-offset":
            guard let s = ICalValueText.basicUTCOffset(v.text) else { throw bad("a UTC offset like -05:00") }
            return s
        case "boolean":
            return v.text.uppercased()
        case "period":
            guard let start = v.child("start"), let s = ICalValueText.basicDateOrDateTime(start.text) else {
                throw Problem(line: v.line, message: "<period> in <\(property)> needs a <start> date-time")
            }
            if let end = v.child("end") {
                guard let e = ICalValueText.basicDateOrDateTime(end.text) else {
                    throw Problem(line: end.line, message: "<end> \"\(end.text)\" in <\(property)> is not a date-time")
                }
                return s + "/" + e
            }
            guard let duration = v.child("duration") else {
                throw Problem(line: v.line, message: "<period> in <\(property)> needs an <end> or a <duration>")
            }
            return s + "/" + duration.text
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
                guard let basic = ICalValueText.basicDateOrDateTime(text) else {
                    throw Problem(line: part.line, message: "<until> \"\(text)\" in <\(property)> is not a date or date-time")
                }
                text = basic
            }
            if let i = parts.firstIndex(where: { $0.0 == key }) {
                parts[i].1.append(text)
            } else {
                parts.append((key, [text]))
            }
        }
        guard parts.contains(where: { $0.0 == "FREQ" }) else {
            throw Problem(line: v.line, message: "<recur> in <\(property)> has no <freq>")
        }
        return parts.map { $0.0 + "=" + $0.1.joined(separator: ",") }.joined(separator: ";")
    }
}
