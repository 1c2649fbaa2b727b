import Pipeline

/// Converts a kept property's iCalendar text (a value as an importer stored it, `ICalValue.raw`) into the
/// typed values xCal and jCal write: the type from the VALUE parameter, else the property's default type; a
/// value that does not fit its type is written as "unknown" text. (Fields calpipe models are typed directly by
/// `ICalEventWriter`; only kept properties take this way.)
enum ICalRawValue {
    /// Splits on commas that are not escaped with a backslash.
    static func splitList(_ value: String) -> [String] { split(value, on: ",") }

    /// Splits on semicolons that are not escaped with a backslash.
    static func splitStructured(_ value: String) -> [String] { split(value, on: ";") }

    /// Splits on `separator` where it is not escaped with a backslash; escapes are kept.
    private static func split(_ value: String, on separator: Unicode.Scalar) -> [String] {
        var out: [String] = []
        var current = ""
        var escaped = false
        for c in value.unicodeScalars {
            if escaped { current.unicodeScalars.append(c); escaped = false; continue }
            if c == "\\" { current.unicodeScalars.append(c); escaped = true; continue }
            if c == separator { out.append(current); current = ""; continue }
            current.unicodeScalars.append(c)
        }
        out.append(current)
        return out
    }

    /// TEXT unescaping (RFC 5545 3.3.11).
    static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var out = ""
        var escaped = false
        for c in value.unicodeScalars {
            if escaped {
                switch c {
                case "n", "N": out += "\n"
                default: out.unicodeScalars.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `name` upper case.
    static func property(_ name: String, _ parameters: [Parameter], _ value: String) -> ExportProperty {
        var params = parameters
        var type: String
        if let i = params.firstIndex(where: { $0.name.uppercased() == "VALUE" }), let v = params[i].values.first,
           ICalValueTypes.known.contains(v.lowercased()) && v.lowercased() != "unknown" {
            type = v.lowercased()
            params.remove(at: i)
        } else {
            type = ICalValueTypes.defaults[name] ?? "unknown"
        }
        var values: [ExportValue] = []
        switch (name, type) {
        case ("GEO", "float"):
            let parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if parts.count == 2 { values = [.geo(parts[0], parts[1])] } else { type = "unknown"; values = [.string(value)] }
        case ("REQUEST-STATUS", "text"):
            values = [.structured(splitStructured(value).map(unescape))]
        default:
            values = typedValues(value, type: &type)
        }
        let exportParameters = params.map { p in
            (name: p.name, type: ICalValueTypes.parameterTypes[p.name.uppercased()] ?? "text", values: p.values)
        }
        return ExportProperty(name: name, parameters: exportParameters, type: type, values: values)
    }

    /// The values of one property in extended form; a value that does not fit its type makes it "unknown".
    private static func typedValues(_ value: String, type: inout String) -> [ExportValue] {
        func convert(_ item: String) -> ExportValue? {
            switch type {
            case "text": return .string(unescape(item))
            case "date": return extendedDate(item).map(ExportValue.string)
            case "date-time": return extendedDateTime(item).map(ExportValue.string)
            case "time": return extendedTime(item).map(ExportValue.string)
            case "utc-offset": return extendedOffset(item).map(ExportValue.string)
            case "integer", "float": return Double(item) == nil ? nil : .number(item)
            case "boolean":
                switch item.uppercased() {
                case "TRUE": return .boolean(true)
                case "FALSE": return .boolean(false)
                default: return nil
                }
            case "period":
                guard let slash = item.firstIndex(of: "/") else { return nil }
                let s = String(item[..<slash]), e = String(item[item.index(after: slash)...])
                guard let start = extendedDateOrDateTime(s) else { return nil }
                if e.hasPrefix("P") || e.hasPrefix("+P") || e.hasPrefix("-P") { return .period(start: start, end: nil, duration: e) }
                guard let end = extendedDateOrDateTime(e) else { return nil }
                return .period(start: start, end: end, duration: nil)
            case "recur":
                var parts: [(name: String, values: [String])] = []
                for part in item.split(separator: ";") {
                    guard let eq = part.firstIndex(of: "=") else { return nil }
                    let key = part[..<eq].lowercased()
                    var vals = part[part.index(after: eq)...].split(separator: ",").map(String.init)
                    if key == "until" {
                        guard let u = vals.first.flatMap(extendedDateOrDateTime) else { return nil }
                        vals = [u]
                    }
                    parts.append((key, vals))
                }
                return .recur(parts)
            default: return .string(item)
            }
        }
        let items: [String]
        switch type {
        case "recur", "unknown", "binary", "uri", "cal-address", "duration": items = [value]
        default: items = splitList(value)
        }
        var out: [ExportValue] = []
        for item in items {
            guard let v = convert(item) else {
                type = "unknown"
                return [.string(value)]
            }
            out.append(v)
        }
        return out
    }

    static func extendedDate(_ s: String) -> String? {
        let b = Array(s.utf8)
        guard b.count == 8, b.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: b[0..<4], as: UTF8.self) + "-" + String(decoding: b[4..<6], as: UTF8.self) + "-" + String(decoding: b[6..<8], as: UTF8.self)
    }

    static func extendedTime(_ s: String) -> String? {
        let b = Array(s.utf8)
        guard b.count == 6 || (b.count == 7 && b[6] == UInt8(ascii: "Z")), b[0..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return String(decoding: b[0..<2], as: UTF8.self) + ":" + String(decoding: b[2..<4], as: UTF8.self) + ":"
            + String(decoding: b[4..<6], as: UTF8.self) + (b.count == 7 ? "Z" : "")
    }

    static func extendedDateTime(_ s: String) -> String? {
        guard let t = s.firstIndex(of: "T"), let d = extendedDate(String(s[..<t])), let time = extendedTime(String(s[s.index(after: t)...])) else { return nil }
        return d + "T" + time
    }

    static func extendedDateOrDateTime(_ s: String) -> String? {
        s.contains("T") ? extendedDateTime(s) : extendedDate(s)
    }

    static func extendedOffset(_ s: String) -> String? {
        let b = Array(s.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"),
              b.dropFirst().allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        var out = String(decoding: b[0..<3], as: UTF8.self) + ":" + String(decoding: b[3..<5], as: UTF8.self)
        if b.count == 7 { out += ":" + String(decoding: b[5..<7], as: UTF8.self) }
        return out
    }
}
