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
}
