import Pipeline

/// Reads the iCalendar text calpipe's own writers produce (unfolds lines, splits name, parameters and value)
/// back into typed components for the xCal and jCal writers.
enum ICalExportReader {
    /// The components in `bytes` (a sequence of BEGIN ... END blocks).
    static func components(_ bytes: [UInt8]) -> [ExportComponent] {
        var stack: [ExportComponent] = []
        var done: [ExportComponent] = []
        for line in unfold(bytes) {
            let (name, parameters, value) = split(line)
            switch name {
            case "BEGIN":
                stack.append(ExportComponent(name: value.lowercased()))
            case "END":
                guard let finished = stack.popLast() else { continue }
                if stack.isEmpty { done.append(finished) } else { stack[stack.count - 1].components.append(finished) }
            default:
                guard !stack.isEmpty else { continue }
                stack[stack.count - 1].properties.append(property(name, parameters, value))
            }
        }
        return done
    }

    /// Logical lines: CRLF removed, folded continuations joined.
    static func unfold(_ bytes: [UInt8]) -> [String] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A {
                if i + 2 < bytes.count, bytes[i + 2] == 0x20 || bytes[i + 2] == 0x09 {
                    i += 3
                    continue
                }
                lines.append(current)
                current = []
                i += 2
                continue
            }
            current.append(b)
            i += 1
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { String(decoding: $0, as: UTF8.self) }
    }

    /// NAME;P="a,b";Q=c:value -> ("NAME", [("P", ["a,b"]), ("Q", ["c"])], "value"); RFC 6868 escapes decoded.
    static func split(_ line: String) -> (String, [Parameter], String) {
        let chars = Array(line.unicodeScalars)
        var i = 0
        var name = ""
        while i < chars.count, chars[i] != ";", chars[i] != ":" { name.unicodeScalars.append(chars[i]); i += 1 }
        var parameters: [Parameter] = []
        while i < chars.count, chars[i] == ";" {
            i += 1
            var pname = ""
            while i < chars.count, chars[i] != "=" { pname.unicodeScalars.append(chars[i]); i += 1 }
            i += 1
            var values: [String] = []
            var value = ""
            var quoted = false
            while i < chars.count {
                let c = chars[i]
                if c == "\"" { quoted.toggle(); i += 1; continue }
                if !quoted, c == "," { values.append(value); value = ""; i += 1; continue }
                if !quoted, c == ";" || c == ":" { break }
                if c == "^", i + 1 < chars.count {
                    switch chars[i + 1] {
                    case "n", "N": value += "\n"; i += 2; continue
                    case "'": value += "\""; i += 2; continue
                    case "^": value += "^"; i += 2; continue
                    default: break
                    }
                }
                value.unicodeScalars.append(c)
                i += 1
            }
            values.append(value)
            parameters.append(Parameter(name: pname.uppercased(), values: values))
        }
        let value = i < chars.count ? String(String.UnicodeScalarView(chars[(i + 1)...])) : ""
        return (name.uppercased(), parameters, value)
    }

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

    static func property(_ name: String, _ parameters: [Parameter], _ value: String) -> ExportProperty {
        var params = parameters
        var type: String
        if let i = params.firstIndex(where: { $0.name == "VALUE" }), let v = params[i].values.first,
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
            (name: p.name.lowercased(), type: ICalValueTypes.parameterTypes[p.name] ?? "text", values: p.values)
        }
        return ExportProperty(name: name.lowercased(), parameters: exportParameters, type: type, values: values)
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
