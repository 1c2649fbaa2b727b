/// Writing iCalendar TEXT values (RFC 5545 3.3.11). (Reading: `ICSText` in Importers.)
package enum ICSTextEscaping {
    /// Escapes text for a TEXT value: backslash, semicolon, comma and newlines (CRLF and CR become `\n`).
    package static func escape(_ text: String) -> String {
        var needs = false
        for c in text.utf8 where c == 0x5C || c == 0x3B || c == 0x2C || c == 0x0A || c == 0x0D { needs = true; break }
        guard needs else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        var previousCR = false
        for c in text.utf8 {
            switch c {
            case 0x5C, 0x3B, 0x2C: out.append(0x5C); out.append(c); previousCR = false
            case 0x0D: out.append(0x5C); out.append(0x6E); previousCR = true
            case 0x0A: if !previousCR { out.append(0x5C); out.append(0x6E) }; previousCR = false
            default: out.append(c); previousCR = false
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
