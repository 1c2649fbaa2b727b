import Pipeline

/// Writes iCalendar content lines the strict way (RFC 5545 3.1): CRLF line ends, lines folded at 75 octets
/// without splitting a UTF-8 character, parameter values quoted when needed and RFC 6868-escaped, and no
/// control characters in values (line breaks become `\n`, other C0 controls except tab are dropped).
package struct ICSLineWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []
    private var line: [UInt8] = []

    package init() {
        bytes.reserveCapacity(1 << 16)
        line.reserveCapacity(256)
    }

    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// `NAME;P=v:value` with the value written as given (escape TEXT values with `ICSText.escape` first).
    package mutating func property(_ name: String, _ parameters: [Parameter] = [], _ value: String) {
        line.removeAll(keepingCapacity: true)
        Self.appendName(name, to: &line)
        for p in parameters {
            line.append(0x3B)
            Self.appendName(p.name, to: &line)
            line.append(0x3D)
            for (i, v) in p.values.enumerated() {
                if i > 0 { line.append(0x2C) }
                Self.appendParameterValue(v, to: &line)
            }
        }
        line.append(0x3A)
        var previousCR = false
        for c in value.utf8 {
            switch c {
            case 0x0D: line.append(0x5C); line.append(0x6E); previousCR = true; continue
            case 0x0A: if !previousCR { line.append(0x5C); line.append(0x6E) }
            case 0x09: line.append(c)
            case 0x00..<0x20, 0x7F: break
            default: line.append(c)
            }
            previousCR = false
        }
        fold()
    }

    package mutating func begin(_ name: String) { property("BEGIN", [], name) }
    package mutating func end(_ name: String) { property("END", [], name) }

    /// A raw component (VALARM, ...) with its properties and nested components as kept by an importer.
    package mutating func component(_ c: RawComponent) {
        begin(c.name)
        for p in c.properties { property(p.name, p.parameters, p.value) }
        for child in c.components { component(child) }
        end(c.name)
    }

    /// Property and parameter names are iana-tokens or x-names (letters, digits, "-"), written upper-case.
    /// Names from other formats ("x_note") have other characters replaced by "-"; an empty name becomes "X-".
    private static func appendName(_ name: String, to out: inout [UInt8]) {
        if name.isEmpty { out.append(contentsOf: "X-".utf8); return }
        for c in name.utf8 {
            switch c {
            case 0x61...0x7A: out.append(c - 32)
            case 0x41...0x5A, 0x30...0x39, 0x2D: out.append(c)
            default: out.append(0x2D)
            }
        }
    }

    private static func appendParameterValue(_ v: String, to out: inout [UInt8]) {
        var needsQuotes = false
        for c in v.utf8 where c == 0x3A || c == 0x3B || c == 0x2C || c == 0x20 { needsQuotes = true; break }
        if needsQuotes { out.append(0x22) }
        for c in v.utf8 {
            switch c {
            case 0x5E: out.append(0x5E); out.append(0x5E)  // ^ -> ^^
            case 0x0A: out.append(0x5E); out.append(0x6E)  // newline -> ^n
            case 0x22: out.append(0x5E); out.append(0x27)  // " -> ^'
            case 0x0D: break
            case 0x09: out.append(c)
            case 0x00..<0x20, 0x7F: break
            default: out.append(c)
            }
        }
        if needsQuotes { out.append(0x22) }
    }

    /// Moves `line` into `bytes`, folded: at most 75 octets per physical line (CRLF not counted), a fold never
    /// inside a UTF-8 character, continuation lines starting with one space.
    private mutating func fold() {
        var start = 0
        var limit = 75
        let n = line.count
        while n - start > limit {
            var cut = start + limit
            while cut > start, (line[cut] & 0xC0) == 0x80 { cut -= 1 }
            bytes.append(contentsOf: line[start..<cut])
            bytes.append(0x0D); bytes.append(0x0A); bytes.append(0x20)
            start = cut
            limit = 74
        }
        bytes.append(contentsOf: line[start..<n])
        bytes.append(0x0D); bytes.append(0x0A)
    }
}
