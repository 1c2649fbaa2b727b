import Pipeline

/// One unfolded iCalendar content line split into name, parameters and value (RFC 5545 3.1), with its line.
///
/// The name and parameter names are upper-cased; parameter values have their quotes removed and RFC 6868
/// escapes (`^n`, `^'`, `^^`) decoded; the value is kept exactly as written (text escapes are not decoded here).
package struct ICSContentLine: Sendable, Hashable {
    package var name: String
    package var parameters: [Parameter]
    package var value: String
    /// The physical line the content line started on.
    package var line: Int

    package init(name: String, parameters: [Parameter] = [], value: String, line: Int) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
    }

    /// The first value of a parameter (names compare upper-cased).
    package func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }

    package var rawProperty: RawProperty { RawProperty(name: name, parameters: parameters, value: value) }

    /// Why a line could not be split.
    enum SyntaxError: Error {
        case noColon, emptyName, unterminatedQuote, badName
        var reason: String {
            switch self {
            case .badName: return "malformed line (the property name is not letters, digits and \"-\")"
            case .noColon: return "malformed line (no \":\" after the property name)"
            case .emptyName: return "malformed line (empty property name)"
            case .unterminatedQuote: return "malformed parameter (unterminated quoted value)"
            }
        }
    }

    /// A parameter left out of a line that is kept (RFC 5545 3.1: `;NAME=value`, the name letters, digits and "-"),
    /// or the stray text after a quoted value: what was wrong and what was done, for the reader's repair.
    package struct DroppedParameter: Sendable, Hashable {
        package var reason: String
        package var action: String
    }

    /// Splits one unfolded line. `decodeValue` turns the value bytes into a String (UTF-8, or Latin-1 fallback);
    /// parameter values are UTF-8 with invalid sequences replaced. `cache` holds parameter sections seen before.
    /// A malformed parameter is left out and told in `dropped` (the line is kept); a line whose value cannot be
    /// found (no ':', an unterminated quote) throws.
    static func parse(_ b: UnsafeBufferPointer<UInt8>, line: Int, decodeValue: (UnsafeBufferPointer<UInt8>) -> String,
                      cache: ICSSectionCache<[Parameter]>? = nil, dropped: inout [DroppedParameter]) throws(SyntaxError) -> ICSContentLine {
        let (name, nameEnd) = try splitName(b)
        var parameters: [Parameter] = []
        var colon = nameEnd
        if b[nameEnd] == 0x3B {
            if let hit = cache?.lookup(b, from: nameEnd) {
                (parameters, colon) = hit
            } else {
                var list = ParameterList()
                // One allocation for all parameters: one per ';' before the value (quoted ones may add a few).
                var count = 0
                var i = nameEnd
                while i < b.count, b[i] != 0x3A {
                    if b[i] == 0x3B { count += 1 }
                    i += 1
                }
                list.parameters.reserveCapacity(count)
                let before = dropped.count
                colon = try splitParameters(b, from: nameEnd, into: &list, dropped: &dropped)
                parameters = list.parameters
                // A repaired section is parsed again each time, so that each line says its repair.
                if dropped.count == before { cache?.store(b, from: nameEnd, colon: colon, parameters) }
            }
        }
        let value = decodeValue(UnsafeBufferPointer(rebasing: b[(colon + 1)...]))
        return ICSContentLine(name: name, parameters: parameters, value: value, line: line)
    }

    /// Splits an ATTENDEE line straight into an `Attendee` (CN, ROLE and PARTSTAT need no parameter of their
    /// own on the way, and the value is decoded only as far as the address in it).
    static func parseAttendee(_ b: UnsafeBufferPointer<UInt8>, line: Int, decodeValue: (UnsafeBufferPointer<UInt8>) -> String,
                              cache: ICSSectionCache<Attendee>? = nil, dropped: inout [DroppedParameter]) throws(SyntaxError) -> Attendee {
        let (_, nameEnd) = try splitName(b)
        // The attendee without its address, from the parameters (cached as such).
        var attendee = Attendee()
        var colon = nameEnd
        if b[nameEnd] == 0x3B {
            if let hit = cache?.lookup(b, from: nameEnd) {
                (attendee, colon) = hit
            } else {
                var sink = AttendeeParameters()
                let before = dropped.count
                colon = try splitParameters(b, from: nameEnd, into: &sink, dropped: &dropped)
                attendee = sink.attendee
                attendee.otherParameters = sink.rest
                if dropped.count == before { cache?.store(b, from: nameEnd, colon: colon, attendee) }
            }
        }
        // The address is the value without blanks around it and without "mailto:" (ASCII, so decoding only the
        // address finds the same bytes that are not UTF-8 as decoding the whole value).
        var start = colon + 1, end = b.count
        while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
        while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
        if start < end {
            if end - start >= 7, same(b, start, "MAILTO:") { start += 7 }
            attendee.email = decodeValue(UnsafeBufferPointer(rebasing: b[start..<end]))
        }
        return attendee
    }

    /// Whether the line is an ATTENDEE property (its name, in any case, then ';' or ':').
    static func isAttendee(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b.count > 8 && (b[8] == 0x3B || b[8] == 0x3A) && same(b, 0, "ATTENDEE")
    }

    /// The address of an ATTENDEE or ORGANIZER value: without blanks around it and without its "mailto:" scheme
    /// (any case); nil when empty.
    static func email(_ value: String) -> String? {
        var value = value
        let range: Range<Int>? = value.withUTF8 { b in
            var start = 0, end = b.count
            while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
            while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 { end -= 1 }
            if start == end { return nil }
            if end - start >= 7, same(b, start, "MAILTO:") { start += 7 }
            return start..<end
        }
        guard let range else { return nil }
        if range.count == value.utf8.count { return value }
        // Cut at ASCII bytes of valid text: a copy, no new validation.
        let u = value.utf8
        return String(Substring(u[u.index(u.startIndex, offsetBy: range.lowerBound)..<u.index(u.startIndex, offsetBy: range.upperBound)]))
    }

    /// Receives a line's parameters as they are split: a name, its values, the end of the parameter.
    private protocol ParameterSink {
        mutating func begin(_ name: String)
        mutating func value(_ value: String)
        mutating func end()
    }

    /// Keeps every parameter as a `Parameter`.
    private struct ParameterList: ParameterSink {
        var parameters: [Parameter] = []
        private var name = ""
        private var values: [String] = []

        mutating func begin(_ name: String) {
            self.name = name
            values = []
        }
        mutating func value(_ value: String) { values.append(value) }
        mutating func end() { parameters.append(Parameter(name: name, values: values)) }
    }

    /// CN, ROLE and PARTSTAT into an `Attendee` (as `ICSEventBuilder.attendee` reads them), the rest kept.
    private struct AttendeeParameters: ParameterSink {
        var attendee = Attendee()
        var rest: [Parameter] = []
        private enum Kind { case name, role, status, other }
        private var kind = Kind.other
        private var name = ""
        private var values: [String] = []
        private var first: String?
        private var count = 0

        mutating func begin(_ name: String) {
            switch name {
            case "CN": kind = .name
            case "ROLE": kind = .role
            case "PARTSTAT": kind = .status
            default: kind = .other
            }
            self.name = name
            values = []
            first = nil
            count = 0
        }

        mutating func value(_ value: String) {
            switch kind {
            case .name:
                if count == 0 {
                    first = value
                } else {
                    if count == 1, let first { values.append(first) }
                    values.append(value)
                }
            case .role, .status:
                if count == 0 { first = value }
            case .other:
                values.append(value)
            }
            count += 1
        }

        mutating func end() {
            switch kind {
            case .name: attendee.name = count == 1 ? first : values.joined(separator: ",")
            case .role: attendee.role = first
            case .status: attendee.status = first
            case .other: rest.append(Parameter(name: name, values: values))
            }
        }
    }

    /// Splits name, parameters (to `sink`) and value.
    /// The property name (upper case) and the index of the ';' or ':' after it.
    private static func splitName(_ b: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> (name: String, end: Int) {
        let n = b.count
        var i = 0
        while i < n, b[i] != 0x3B, b[i] != 0x3A { i += 1 }  // ';' ':'
        guard i < n else { throw .noColon }
        guard i > 0 else { throw .emptyName }
        if let known = knownName(b, 0, i) { return (known, i) }
        // RFC 5545 3.1: iana-token or x-name; anything else would make every writer's output malformed.
        guard isName(b, 0, i) else { throw .badName }
        return (upperASCII(b, 0, i), i)
    }

    /// Reads the parameters from the ';' at `start` into `sink`; returns the index of the ':' before the value.
    /// Keeps what libical keeps: a parameter without a name (`;=DATE`, `;;`), without "=" (`;VALUE:`) or whose
    /// name is not a name (`;V%LUE=DATE`) is left out, text after a closing quote (`X="a"b`) too, each told in
    /// `dropped`. Throws when the value cannot be found: no ':' after the parameters, a quote never closed.
    private static func splitParameters<Sink: ParameterSink>(_ b: UnsafeBufferPointer<UInt8>, from start: Int, into sink: inout Sink,
                                                             dropped: inout [DroppedParameter]) throws(SyntaxError) -> Int {
        let n = b.count
        var i = start
        while i < n, b[i] == 0x3B {
            i += 1
            let nameStart = i
            while i < n, b[i] != 0x3D, b[i] != 0x3A, b[i] != 0x3B { i += 1 }  // '='
            guard i < n else { throw .noColon }
            let nameEnd = i
            if b[i] != 0x3D {
                // `;NAME;`, `;NAME:`, `;;`: no value to skip.
                dropped.append(droppedParameter(b, nameStart, i, i == nameStart ? "empty" : "no \"=\""))
                continue
            }
            let keep: Bool
            if i == nameStart {
                keep = false
            } else if let known = knownName(b, nameStart, i) {
                keep = true
                sink.begin(known)
            } else if isName(b, nameStart, i) {
                keep = true
                sink.begin(upperASCII(b, nameStart, i))
            } else {
                keep = false
            }
            i += 1
            while true {
                if i < n, b[i] == 0x22 {  // quoted
                    i += 1
                    let start = i
                    while i < n, b[i] != 0x22 { i += 1 }
                    guard i < n else { throw .unterminatedQuote }
                    if keep { sink.value(paramText(b, start, i)) }
                    i += 1
                    if i < n, b[i] != 0x2C, b[i] != 0x3B, b[i] != 0x3A {
                        // `X="a"b`: the quoted value is kept, the text after it left out.
                        let stray = i
                        while i < n, b[i] != 0x2C, b[i] != 0x3B, b[i] != 0x3A { i += 1 }
                        if keep {
                            dropped.append(DroppedParameter(
                                reason: "malformed parameter \"\(shown(b, nameStart, i))\" (text after the closing quote)",
                                action: "\"\(shown(b, stray, i))\" is dropped"))
                        }
                    }
                } else {
                    let start = i
                    while i < n, b[i] != 0x2C, b[i] != 0x3B, b[i] != 0x3A { i += 1 }
                    if keep { sink.value(paramText(b, start, i)) }
                }
                if i < n, b[i] == 0x2C { i += 1; continue }  // ','
                break
            }
            if keep {
                sink.end()
            } else {
                dropped.append(droppedParameter(b, nameStart, i, nameEnd == nameStart ? "empty name" : "the name is not letters, digits and \"-\""))
            }
        }
        guard i < n, b[i] == 0x3A else { throw .noColon }
        return i
    }

    private static func droppedParameter(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ why: String) -> DroppedParameter {
        DroppedParameter(reason: "malformed parameter \"\(shown(b, from, to))\" (\(why))", action: "the parameter is dropped")
    }

    /// `b[from..<to]` for a message: at most 40 bytes, invalid UTF-8 and control bytes replaced.
    private static func shown(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[from..<min(to, from + 40)]), as: UTF8.self)
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
        return to - from > 40 ? clean + "..." : clean
    }

    /// The upper-cased name when it is one that feeds use all the time: returned as a constant, which costs
    /// less than building and checking a new String per line.
    private static func knownName(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String? {
        switch to - from {
        case 2:
            if same(b, from, "CN") { return "CN" }
        case 3:
            if same(b, from, "UID") { return "UID" }
            if same(b, from, "URL") { return "URL" }
            if same(b, from, "GEO") { return "GEO" }
            if same(b, from, "DIR") { return "DIR" }
        case 4:
            if same(b, from, "TZID") { return "TZID" }
            if same(b, from, "ROLE") { return "ROLE" }
            if same(b, from, "RSVP") { return "RSVP" }
        case 5:
            if same(b, from, "DTEND") { return "DTEND" }
            if same(b, from, "COLOR") { return "COLOR" }
            if same(b, from, "RRULE") { return "RRULE" }
            if same(b, from, "RDATE") { return "RDATE" }
            if same(b, from, "CLASS") { return "CLASS" }
            if same(b, from, "VALUE") { return "VALUE" }
            if same(b, from, "RANGE") { return "RANGE" }
            if same(b, from, "EMAIL") { return "EMAIL" }
        case 6:
            if same(b, from, "STATUS") { return "STATUS" }
            if same(b, from, "EXDATE") { return "EXDATE" }
            if same(b, from, "EXRULE") { return "EXRULE" }
            if same(b, from, "TRANSP") { return "TRANSP" }
            if same(b, from, "ACTION") { return "ACTION" }
            if same(b, from, "TZNAME") { return "TZNAME" }
            if same(b, from, "ATTACH") { return "ATTACH" }
            if same(b, from, "CUTYPE") { return "CUTYPE" }
            if same(b, from, "ALTREP") { return "ALTREP" }
            if same(b, from, "MEMBER") { return "MEMBER" }
        case 7:
            if same(b, from, "DTSTAMP") { return "DTSTAMP" }
            if same(b, from, "DTSTART") { return "DTSTART" }
            if same(b, from, "SUMMARY") { return "SUMMARY" }
            if same(b, from, "CREATED") { return "CREATED" }
            if same(b, from, "TRIGGER") { return "TRIGGER" }
            if same(b, from, "CONTACT") { return "CONTACT" }
            if same(b, from, "COMMENT") { return "COMMENT" }
            if same(b, from, "RELATED") { return "RELATED" }
            if same(b, from, "SENT-BY") { return "SENT-BY" }
            if same(b, from, "FMTTYPE") { return "FMTTYPE" }
        case 8:
            if same(b, from, "SEQUENCE") { return "SEQUENCE" }
            if same(b, from, "DURATION") { return "DURATION" }
            if same(b, from, "LOCATION") { return "LOCATION" }
            if same(b, from, "ATTENDEE") { return "ATTENDEE" }
            if same(b, from, "PRIORITY") { return "PRIORITY" }
            if same(b, from, "PARTSTAT") { return "PARTSTAT" }
            if same(b, from, "LANGUAGE") { return "LANGUAGE" }
            if same(b, from, "ENCODING") { return "ENCODING" }
        case 9:
            if same(b, from, "ORGANIZER") { return "ORGANIZER" }
            if same(b, from, "RESOURCES") { return "RESOURCES" }
        case 10:
            if same(b, from, "CATEGORIES") { return "CATEGORIES" }
            if same(b, from, "TZOFFSETTO") { return "TZOFFSETTO" }
            if same(b, from, "RELATED-TO") { return "RELATED-TO" }
        case 11:
            if same(b, from, "DESCRIPTION") { return "DESCRIPTION" }
        case 12:
            if same(b, from, "TZOFFSETFROM") { return "TZOFFSETFROM" }
            if same(b, from, "DELEGATED-TO") { return "DELEGATED-TO" }
        case 13:
            if same(b, from, "RECURRENCE-ID") { return "RECURRENCE-ID" }
            if same(b, from, "LAST-MODIFIED") { return "LAST-MODIFIED" }
            if same(b, from, "X-WR-TIMEZONE") { return "X-WR-TIMEZONE" }
        case 14:
            if same(b, from, "DELEGATED-FROM") { return "DELEGATED-FROM" }
        default: break
        }
        return nil
    }

    /// Whether `b[from...]` starts with `name` (an upper-case ASCII name), in any case.
    @inline(__always)
    private static func same(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ name: StaticString) -> Bool {
        let p = name.utf8Start
        for k in 0..<name.utf8CodeUnitCount {
            let c = b[from + k]
            if ((c >= 0x61 && c <= 0x7A) ? c - 32 : c) != p[k] { return false }
        }
        return true
    }

    /// Whether `b[from..<to]` is letters, digits and "-" only.
    private static func isName(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        for k in from..<to {
            let c = b[k] | 0x20
            guard (c >= 0x61 && c <= 0x7A) || (b[k] >= 0x30 && b[k] <= 0x39) || b[k] == 0x2D else { return false }
        }
        return true
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
        if !hasCaret { return String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self) }
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
