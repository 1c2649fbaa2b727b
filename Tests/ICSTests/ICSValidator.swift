import Foundation
/// A strict RFC 5545 checker for what calpipe writes: octet line lengths, CRLF only, whole UTF-8 characters on
/// every physical line, content-line syntax, balanced components, and the properties each component needs.
/// Returns the problems found ("line 12: ..."); an empty list means valid.
enum ICSValidator {
    struct Component { var name: String; var line: Int; var properties: [(name: String, params: [String: String], value: String)] = [] }

    static func validate(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        // Physical lines.
        var physical: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x0D {
                if i + 1 < bytes.count, bytes[i + 1] == 0x0A {
                    physical.append(current); current = []; i += 2; continue
                }
                problems.append("line \(physical.count + 1): bare CR")
            } else if c == 0x0A {
                problems.append("line \(physical.count + 1): bare LF")
                physical.append(current); current = []; i += 1; continue
            }
            current.append(c)
            i += 1
        }
        if !current.isEmpty { problems.append("last line does not end in CRLF") }
        var logical: [(line: Int, text: String)] = []
        for (n, line) in physical.enumerated() {
            if line.count > 75 { problems.append("line \(n + 1): \(line.count) octets (more than 75)") }
            guard let text = String(validating: line, as: UTF8.self) else {
                problems.append("line \(n + 1): not whole UTF-8 characters (a fold split one?)")
                continue
            }
            if line.first == 0x20 || line.first == 0x09 {
                if logical.isEmpty { problems.append("line \(n + 1): continuation before any line") } else { logical[logical.count - 1].text += String(text.dropFirst()) }
            } else {
                if line.isEmpty { problems.append("line \(n + 1): empty line") }
                logical.append((n + 1, text))
            }
        }
        // Content lines and structure.
        var stack: [Component] = []
        var tzidsUsed: [(String, Int)] = []
        var tzidsDefined: Set<String> = []
        var sawCalendar = false
        for (line, text) in logical {
            if text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0.value != 0x09) || $0.value == 0x7F }) {
                problems.append("line \(line): control character")
            }
            guard let parsed = parse(text) else { problems.append("line \(line): not NAME[;PARAM=VALUE]*:VALUE: \(text)"); continue }
            switch parsed.name {
            case "BEGIN":
                if stack.isEmpty {
                    if parsed.value != "VCALENDAR" || sawCalendar { problems.append("line \(line): top level must be one VCALENDAR") }
                    sawCalendar = true
                }
                stack.append(Component(name: parsed.value, line: line))
            case "END":
                guard let top = stack.popLast(), top.name == parsed.value else { problems.append("line \(line): END:\(parsed.value) does not match"); continue }
                problems += check(top)
                if top.name == "VTIMEZONE", let tzid = top.properties.first(where: { $0.name == "TZID" })?.value {
                    // TZID is TEXT: unescape "\\," "\\;" "\\\\".
                    tzidsDefined.insert(tzid.replacingOccurrences(of: "\\,", with: ",").replacingOccurrences(of: "\\;", with: ";")
                        .replacingOccurrences(of: "\\\\", with: "\\"))
                }
            default:
                guard !stack.isEmpty else { problems.append("line \(line): property outside a component"); continue }
                if let tzid = parsed.params["TZID"] { tzidsUsed.append((tzid, line)) }
                if parsed.params["VALUE"] == "DATE", !parsed.value.split(separator: ",").allSatisfy({ $0.count == 8 && $0.allSatisfy(\.isNumber) }) {
                    problems.append("line \(line): VALUE=DATE with \(parsed.value)")
                }
                stack[stack.count - 1].properties.append(parsed)
            }
        }
        if !stack.isEmpty { problems.append("unclosed \(stack.map(\.name))") }
        for (tzid, line) in tzidsUsed where !tzidsDefined.contains(tzid) { problems.append("line \(line): TZID \(tzid) has no VTIMEZONE") }
        return problems
    }

    private static func check(_ c: Component) -> [String] {
        func count(_ name: String) -> Int { c.properties.filter { $0.name == name }.count }
        var p: [String] = []
        func exactlyOne(_ names: String...) {
            for n in names where count(n) != 1 { p.append("\(c.name) at line \(c.line): \(count(n)) \(n) (expected exactly one)") }
        }
        switch c.name {
        case "VCALENDAR":
            exactlyOne("VERSION", "PRODID")
            if c.properties.first(where: { $0.name == "VERSION" })?.value != "2.0" { p.append("VCALENDAR: VERSION is not 2.0") }
        case "VEVENT":
            exactlyOne("UID", "DTSTAMP", "DTSTART")
            // Properties of the calendar (RFC 5545 3.7) have no place in an event (issue 25: METHOD written back).
            for name in ["METHOD", "VERSION", "PRODID", "CALSCALE"] where count(name) > 0 {
                p.append("VEVENT at line \(c.line): \(name) is a VCALENDAR property")
            }
            if count("DTEND") > 0 && count("DURATION") > 0 { p.append("VEVENT at line \(c.line): both DTEND and DURATION") }
            if count("DTEND") > 1 || count("DURATION") > 1 || count("RECURRENCE-ID") > 1 { p.append("VEVENT at line \(c.line): repeated DTEND/DURATION/RECURRENCE-ID") }
            if let stamp = c.properties.first(where: { $0.name == "DTSTAMP" })?.value,
               !(stamp.count == 16 && stamp.hasSuffix("Z") && stamp.dropLast().enumerated().allSatisfy { $0.offset == 8 ? $0.element == "T" : $0.element.isNumber }) {
                p.append("VEVENT at line \(c.line): DTSTAMP \(stamp) is not a UTC date-time")
            }
        case "VTIMEZONE":
            exactlyOne("TZID")
        case "STANDARD", "DAYLIGHT":
            exactlyOne("DTSTART", "TZOFFSETFROM", "TZOFFSETTO")
        case "VALARM":
            exactlyOne("ACTION", "TRIGGER")
        default: break
        }
        return p
    }

    /// Splits a content line; nil when it does not follow the grammar (names are iana-token / x-name).
    private static func parse(_ text: String) -> (name: String, params: [String: String], value: String)? {
        let chars = Array(text.unicodeScalars)
        var i = 0
        func isNameChar(_ c: Unicode.Scalar) -> Bool { (c.value >= 0x30 && c.value <= 0x39) || (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A) || c == "-" }
        while i < chars.count, isNameChar(chars[i]) { i += 1 }
        guard i > 0, i < chars.count else { return nil }
        let name = String(String.UnicodeScalarView(chars[0..<i]))
        var params: [String: String] = [:]
        while i < chars.count, chars[i] == ";" {
            i += 1
            let start = i
            while i < chars.count, isNameChar(chars[i]) { i += 1 }
            guard i > start, i < chars.count, chars[i] == "=" else { return nil }
            let pname = String(String.UnicodeScalarView(chars[start..<i]))
            i += 1
            var values: [String] = []
            repeat {
                if i < chars.count, chars[i] == "," { i += 1 }
                if i < chars.count, chars[i] == "\"" {
                    i += 1
                    let s = i
                    while i < chars.count, chars[i] != "\"" { i += 1 }
                    guard i < chars.count else { return nil }
                    values.append(String(String.UnicodeScalarView(chars[s..<i])))
                    i += 1
                } else {
                    let s = i
                    while i < chars.count, ![";", ":", ",", "\""].contains(chars[i]) { i += 1 }
                    values.append(String(String.UnicodeScalarView(chars[s..<i])))
                }
            } while i < chars.count && chars[i] == ","
            params[pname] = values.joined(separator: ",")
        }
        guard i < chars.count, chars[i] == ":" else { return nil }
        return (name, params, String(String.UnicodeScalarView(chars[(i + 1)...])))
    }
}
