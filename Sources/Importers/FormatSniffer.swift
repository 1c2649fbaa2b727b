import Foundation

/// Tells a calendar file's format from its first bytes, for `calpipe convert` without `--format` and for the hint
/// an XML source gives when its file is not XML:
/// extensions are ambiguous (`.xml` may be xCal or a CalDAV REPORT answer, `.json` may be jCal or plain
/// JSON records) or missing (`feed`, `calendar.txt`).
///
/// Looks at most at the first 64 KiB: after a UTF-8 byte-order mark and white space,
/// - `BEGIN:VCALENDAR` is iCalendar (`ics`);
/// - `<` is XML: after the declaration, comments, processing instructions and a DOCTYPE, the root element's
///   local name decides: `icalendar` is xCal (`xcal`), `multistatus` a CalDAV answer (`caldav-xml`);
/// - `[` followed by the string `"vcalendar"` is jCal (`jcal`); any other `[` or `{` is JSON (`json`).
/// Anything else is not recognised (nil), and the caller falls back to the extension.
package enum FormatSniffer {
    package static let prefixLength = 64 * 1024

    /// The source type for the regular file at `path`, or nil when it is not a regular file (standard input,
    /// a pipe: reading would consume it), cannot be read or is not recognised.
    package static func sourceType(ofFileAt path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: prefixLength) else { return nil }
        return sourceType(of: [UInt8](data))
    }

    package static func sourceType(of bytes: [UInt8]) -> String? {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        skipSpace(bytes, &i)
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "<"): return xmlType(bytes, from: i)
        case UInt8(ascii: "["):
            i += 1
            skipSpace(bytes, &i)
            return hasPrefix(bytes, at: i, "\"vcalendar\"") ? "jcal" : "json"
        case UInt8(ascii: "{"): return "json"
        default: return hasPrefix(bytes, at: i, "BEGIN:VCALENDAR") ? "ics" : nil
        }
    }

    private static func xmlType(_ bytes: [UInt8], from start: Int) -> String? {
        var i = start
        while i < bytes.count {
            skipSpace(bytes, &i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { return nil }
            if hasPrefix(bytes, at: i, "<?") {
                guard let end = find(bytes, "?>", from: i + 2) else { return nil }
                i = end + 2
            } else if hasPrefix(bytes, at: i, "<!--") {
                guard let end = find(bytes, "-->", from: i + 4) else { return nil }
                i = end + 3
            } else if hasPrefix(bytes, at: i, "<!") {
                // DOCTYPE, possibly with an internal subset in brackets.
                var depth = 0
                i += 2
                while i < bytes.count, !(bytes[i] == UInt8(ascii: ">") && depth == 0) {
                    if bytes[i] == UInt8(ascii: "[") { depth += 1 } else if bytes[i] == UInt8(ascii: "]") { depth -= 1 }
                    i += 1
                }
                i += 1
            } else {
                var end = i + 1
                while end < bytes.count, !isNameEnd(bytes[end]) { end += 1 }
                let name = String(decoding: bytes[(i + 1)..<end], as: UTF8.self)
                let local = name.split(separator: ":").last.map { $0.lowercased() } ?? ""
                switch local {
                case "icalendar": return "xcal"
                case "multistatus": return "caldav-xml"
                default: return nil
                }
            }
        }
        return nil
    }

    private static func isNameEnd(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r")
            || b == UInt8(ascii: ">") || b == UInt8(ascii: "/")
    }

    private static func skipSpace(_ bytes: [UInt8], _ i: inout Int) {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    /// Case-insensitive for ASCII letters.
    private static func hasPrefix(_ bytes: [UInt8], at i: Int, _ text: String) -> Bool {
        let t = Array(text.utf8)
        guard i + t.count <= bytes.count else { return false }
        for k in 0..<t.count where lower(bytes[i + k]) != lower(t[k]) { return false }
        return true
    }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 0x20 : b }

    private static func find(_ bytes: [UInt8], _ text: String, from start: Int) -> Int? {
        let t = Array(text.utf8)
        var i = start
        while i + t.count <= bytes.count {
            if bytes[i..<(i + t.count)].elementsEqual(t) { return i }
            i += 1
        }
        return nil
    }

    /// What the file at `path` looks like when it is not XML, for an XML source's error: `"not XML: it starts like
    /// iCalendar (BEGIN:VCALENDAR); read it with \"type\": \"ics\""`. nil when it starts with `<`, is empty or
    /// cannot be read (the XML reader then says what it finds).
    package static func notXMLHint(ofFileAt path: String, expected: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096) else { return nil }
        let bytes = [UInt8](data)
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        skipSpace(bytes, &i)
        guard i < bytes.count, bytes[i] != UInt8(ascii: "<") else { return nil }
        let names = ["ics": "iCalendar (BEGIN:VCALENDAR)", "jcal": "jCal", "json": "JSON"]
        if let type = sourceType(of: bytes), let name = names[type] {
            return "not \(expected): the file is not XML, it starts like \(name); read it with \"type\": \"\(type)\""
        }
        return "not \(expected): the file is not XML (an XML document starts with \"<\")"
    }
}
