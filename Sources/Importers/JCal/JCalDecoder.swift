import Pipeline

/// Turns a jCal (RFC 7265) component array `["vevent", [properties], [components]]` into an
/// `ICalComponent`, every value in iCalendar text form.
struct JCalDecoder {
    func component(_ value: JSONValue, path: String = "") throws -> ICalComponent {
        guard case .array(let items) = value, items.count == 3, case .string(let name) = items[0] else {
            throw CalpipeError.rejected("expected a component [\"name\", [properties], [components]], got \(value.kindDescription) \(value.preview)", path: path)
        }
        guard case .array(let props) = items[1] else {
            throw CalpipeError.rejected("expected the properties array of \"\(name)\", got \(items[1].kindDescription)", path: path + "[1]")
        }
        guard case .array(let comps) = items[2] else {
            throw CalpipeError.rejected("expected the components array of \"\(name)\", got \(items[2].kindDescription)", path: path + "[2]")
        }
        var component = ICalComponent(name: name.uppercased())
        for (i, p) in props.enumerated() {
            component.properties.append(try property(p, path: path + "[1][\(i)]"))
        }
        for (i, c) in comps.enumerated() {
            component.components.append(try self.component(c, path: path + "[2][\(i)]"))
        }
        return component
    }

    func property(_ value: JSONValue, path: String) throws -> ICalProperty {
        guard case .array(let items) = value, items.count >= 4, case .string(let rawName) = items[0],
              case .object(let params) = items[1], case .string(let type) = items[2] else {
            throw CalpipeError.rejected("expected a property [\"name\", {parameters}, \"type\", value, ...], got \(value.preview)", path: path)
        }
        let name = rawName.uppercased()
        guard ICalValueTypes.known.contains(type) else {
            throw CalpipeError.rejected("\"\(type)\" is not a jCal value type", path: path + "[2]")
        }
        var parameters: [Parameter] = []
        for member in params.members {
            let key = member.key.uppercased()
            if key == "VALUE" { continue }
            switch member.value {
            case .string(let s): parameters.append(Parameter(key, s))
            case .bool(let b): parameters.append(Parameter(key, b ? "TRUE" : "FALSE"))
            case .array(let list):
                let strings = list.compactMap { v -> String? in if case .string(let s) = v { return s } else { return nil } }
                guard strings.count == list.count else {
                    throw CalpipeError.rejected("expected a string or an array of strings", path: path + "[1].\(member.key)")
                }
                parameters.append(Parameter(name: key, values: strings))
            default:
                throw CalpipeError.rejected("expected a string or an array of strings, got \(member.value.kindDescription)", path: path + "[1].\(member.key)")
            }
        }
        var values: [String] = []
        for (i, v) in items[3...].enumerated() {
            values.append(try self.value(v, type: type, property: name, path: path + "[\(i + 3)]"))
        }
        return ICalProperty(name: name, parameters: parameters, valueType: type, values: values)
    }

    private func value(_ v: JSONValue, type: String, property: String, path: String) throws -> String {
        func bad(_ expected: String) -> CalpipeError {
            CalpipeError.rejected("\(type) value \(v.preview) of \(property.lowercased()) is not \(expected)", path: path)
        }
        func string() throws -> String {
            guard case .string(let s) = v else { throw bad("a string") }
            return s
        }
        switch type {
        // Dates, times, offsets and periods that do not have their form are handed on as written
        // (`ICalValueText.unreadable`): the iCalendar reader repairs or rejects them as it does in .ics files.
        case "date":
            let s = try string()
            return ICalValueText.basicDate(s) ?? ICalValueText.unreadable(s)
        case "date-time":
            let s = try string()
            return ICalValueText.basicDateTime(s) ?? ICalValueText.unreadable(s)
        case "time":
            let s = try string()
            return ICalValueText.basicTime(s) ?? ICalValueText.unreadable(s)
        case "utc-offset":
            let s = try string()
            return ICalValueText.basicUTCOffset(s) ?? ICalValueText.unreadable(s)
        case "period":
            let text: String
            switch v {
            case .string(let s): text = s
            case .array(let pair) where pair.count == 2:
                guard case .string(let a) = pair[0], case .string(let b) = pair[1] else { throw bad("a period") }
                text = a + "/" + b
            default: throw bad("a period like [\"2006-01-02T15:00:00\", \"PT2H\"]")
            }
            guard let (s, e) = ICalValueText.periodParts(text), let start = ICalValueText.basicDateOrDateTime(s) else {
                return ICalValueText.unreadable(text)
            }
            if e.hasPrefix("P") || e.hasPrefix("-P") || e.hasPrefix("+P") { return start + "/" + e }
            return start + "/" + (ICalValueText.basicDateOrDateTime(e) ?? ICalValueText.unreadable(e))
        case "recur":
            return try recur(v, path: path, property: property)
        case "boolean":
            guard case .bool(let b) = v else { throw bad("true or false") }
            return b ? "TRUE" : "FALSE"
        case "integer", "float":
            switch v {
            case .number(let n): return JSONWriter.numberText(n)
            case .array(let parts):  // GEO: [latitude, longitude]
                let texts = parts.compactMap { p -> String? in if case .number(let n) = p { return JSONWriter.numberText(n) } else { return nil } }
                guard texts.count == parts.count, !texts.isEmpty else { throw bad("a number") }
                return texts.joined(separator: ";")
            default: throw bad("a number")
            }
        default:
            let isText = type == "text"
            func escape(_ s: String) -> String { isText ? ICalContentText.escapeText(s) : s }
            switch v {
            case .string(let s): return escape(s)
            case .array(let parts):  // structured values such as REQUEST-STATUS
                return try parts.map { p -> String in
                    switch p {
                    case .string(let s): return escape(s)
                    case .number(let n): return JSONWriter.numberText(n)
                    default: throw bad("a string")
                    }
                }.joined(separator: ";")
            default: throw bad("a string")
            }
        }
    }

    private func recur(_ v: JSONValue, path: String, property: String) throws -> String {
        // The RRULE text itself ("FREQ=DAILY;COUNT=3"), as some writers put it, is read as that rule.
        if case .string(let text) = v { return ICalValueText.unreadable(text) }
        guard case .object(let object) = v else {
            throw CalpipeError.rejected("recur value of \(property.lowercased()) must be an object like {\"freq\": \"DAILY\"}", path: path)
        }
        var parts: [String] = []
        for member in object.members {
            let key = member.key.uppercased()
            let items: [JSONValue]
            if case .array(let list) = member.value { items = list } else { items = [member.value] }
            let texts = try items.map { item -> String in
                switch item {
                case .string(let s):
                    if key == "UNTIL" { return ICalValueText.basicDateOrDateTime(s) ?? ICalValueText.unreadable(s) }
                    return s
                case .number(let n): return JSONWriter.numberText(n)
                default: throw CalpipeError.rejected("expected a string or a number, got \(item.kindDescription)", path: path + "." + member.key)
                }
            }
            parts.append(key + "=" + texts.joined(separator: ","))
        }
        // A rule without "freq" is handed on too: the iCalendar reader judges rules (and leaves one it cannot
        // read out of the event, when it repairs).
        return parts.joined(separator: ";")
    }
}
