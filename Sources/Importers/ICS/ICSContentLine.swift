import Pipeline

/// One unfolded iCalendar content line split into name, parameters and value (RFC 5545 3.1), with its line.
///
/// The name and parameter names are upper-cased; parameter values have their quotes removed and RFC 6868
/// escapes (`^n`, `^'`, `^^`) decoded; the value is kept exactly as written (text escapes are not decoded here).
public struct ICSContentLine: Sendable, Hashable {
    public var name: String
    public var parameters: [Parameter]
    public var value: String
    /// The physical line the content line started on.
    public var line: Int

    public init(name: String, parameters: [Parameter] = [], value: String, line: Int) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
    }

    /// The first value of a parameter (names compare upper-cased).
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }

    public var rawProperty: RawProperty { RawProperty(name: name, parameters: parameters, value: value) }

    /// Why a line could not be split.
    enum SyntaxError: Error {
        case noColon, emptyName, badParameter, unterminatedQuote
        var reason: String {
            switch self {
            case .noColon: return "malformed line (no \":\" after the property name)"
            case .emptyName: return "malformed line (empty property name)"
            case .badParameter: return "malformed parameter (expected NAME=value)"
            case .unterminatedQuote: return "malformed parameter (unterminated quoted value)"
            }
        }
    }

    /// Splits one unfolded line. `decodeValue` turns the value bytes into a String (UTF-8, or Latin-1 fallback).
    static func parse(_ b: UnsafeBufferPointer<UInt8>, line: Int, decodeValue: (UnsafeBufferPointer<UInt8>) -> String) throws(SyntaxError) -> ICSContentLine {
        let n = b.count
        var i = 0
        while i < n, b[i] != 0x3B, b[i] != 0x3A { i += 1 }  // ';' ':'
        guard i < n else { throw .noColon }
        guard i > 0 else { throw .emptyName }
        let name = knownName(b, 0, i) ?? upperASCII(b, 0, i)
        var parameters: [Parameter] = []
        while i < n, b[i] == 0x3B {
            i += 1
            let nameStart = i
            while i < n, b[i] != 0x3D, b[i] != 0x3A, b[i] != 0x3B { i += 1 }  // '='
            guard i < n, b[i] == 0x3D, i > nameStart else {
                if i >= n { throw .noColon }
                throw .badParameter
            }
            let paramName = knownName(b, nameStart, i) ?? upperASCII(b, nameStart, i)
            i += 1
            var values: [String] = []
            while true {
                if i < n, b[i] == 0x22 {  // quoted
                    i += 1
                    let start = i
                    while i < n, b[i] != 0x22 { i += 1 }
                    guard i < n else { throw .unterminatedQuote }
                    values.append(paramText(b, start, i))
                    i += 1
                } else {
                    let start = i
                    while i < n, b[i] != 0x2C, b[i] != 0x3B, b[i] != 0x3A { i += 1 }
                    values.append(paramText(b, start, i))
                }
                if i < n, b[i] == 0x2C { i += 1; continue }  // ','
                break
            }
            parameters.append(Parameter(name: paramName, values: values))
        }
        guard i < n, b[i] == 0x3A else { throw .noColon }
        let value = decodeValue(UnsafeBufferPointer(rebasing: b[(i + 1)...]))
        return ICSContentLine(name: name, parameters: parameters, value: value, line: line)
    }

    /// Property and parameter names that feeds use, by length: they are matched (in any case) and returned as
    /// the constant, which costs less than building and checking a new String per line.
    private static let knownNames: [[(bytes: [UInt8], name: String)]] = {
        let names = [
            "UID", "DTSTAMP", "SEQUENCE", "DTSTART", "DTEND", "DURATION", "SUMMARY", "DESCRIPTION", "LOCATION",
            "ORGANIZER", "ATTENDEE", "STATUS", "COLOR", "CATEGORIES", "RRULE", "RDATE", "EXDATE", "EXRULE",
            "RECURRENCE-ID", "URL", "GEO", "TRANSP", "CLASS", "CREATED", "LAST-MODIFIED", "PRIORITY", "ACTION",
            "TRIGGER", "TZID", "TZOFFSETFROM", "TZOFFSETTO", "TZNAME", "X-WR-TIMEZONE", "CONTACT", "COMMENT",
            "RESOURCES", "ATTACH", "RELATED-TO", "X-MICROSOFT-CDO-BUSYSTATUS", "X-ALT-DESC",
            "CN", "ROLE", "PARTSTAT", "RSVP", "VALUE", "CUTYPE", "LANGUAGE", "RANGE", "RELATED", "ALTREP", "DIR",
            "SENT-BY", "DELEGATED-TO", "DELEGATED-FROM", "MEMBER", "FMTTYPE", "ENCODING", "EMAIL", "X-NUM-GUESTS",
        ]
        var byLength: [[(bytes: [UInt8], name: String)]] = Array(repeating: [], count: 32)
        for name in names { byLength[name.utf8.count].append((Array(name.utf8), name)) }
        return byLength
    }()

    /// The upper-cased name when it is one of `knownNames`.
    @inline(__always)
    private static func knownName(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String? {
        let count = to - from
        guard count < 32 else { return nil }
        candidates: for candidate in knownNames[count] {
            for k in 0..<count {
                let c = b[from + k]
                if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != candidate.bytes[k] { continue candidates }
            }
            return candidate.name
        }
        return nil
    }

    private static func upperASCII(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(unsafeUninitializedCapacity: to - from) { out in
            for k in from..<to {
                let c = b[k]
                out[k - from] = (c >= 0x61 && c <= 0x7A) ? c - 32 : c
            }
            return to - from
        }
    }

    /// A parameter value with RFC 6868 escapes decoded: ^n newline, ^' double quote, ^^ caret.
    private static func paramText(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        var hasCaret = false
        for k in from..<to where b[k] == 0x5E { hasCaret = true; break }
        let slice = UnsafeBufferPointer(rebasing: b[from..<to])
        if !hasCaret { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(to - from)
        var k = from
        while k < to {
            let c = b[k]
            if c == 0x5E, k + 1 < to {
                switch b[k + 1] {
                case 0x6E, 0x4E: out.append(0x0A); k += 2; continue  // ^n
                case 0x27: out.append(0x22); k += 2; continue  // ^'
                case 0x5E: out.append(0x5E); k += 2; continue  // ^^
                default: break
                }
            }
            out.append(c)
            k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
