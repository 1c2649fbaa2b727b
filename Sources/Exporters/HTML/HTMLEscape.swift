/// Escaping for text and attribute values in the page.
enum HTMLEscape {
    /// Text content and attribute values (double-quoted): & < > " ' escaped; control characters other than
    /// tab and newline dropped (HTML5 forbids them).
    static func text(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0xFDD0...0xFDEF).contains(scalar.value)
                    || scalar.value & 0xFFFE == 0xFFFE { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// An event's COLOR as a CSS value, or nil when it is neither "#rgb"/"#rrggbb" nor a plain colour name
    /// (so nothing from a feed can reach the style attribute but a colour).
    static func cssColor(_ s: String?) -> String? {
        guard let s = s?.trimmingCharactersInSpaces(), !s.isEmpty, s.utf8.count <= 30 else { return nil }
        if HTMLTheme.rgb(s) != nil { return s.lowercased() }
        return s.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) }) ? s.lowercased() : nil
    }
}

extension String {
    func trimmingCharactersInSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
