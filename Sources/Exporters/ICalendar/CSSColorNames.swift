import Foundation
import Pipeline

/// The colour keywords of CSS (RFC 7986's COLOR is "a CSS3 color name"), with their RGB values, for writing a
/// "#rrggbb" colour as a name: the 147 names of CSS Color Module Level 3 (the SVG 1.1 list), and
/// `rebeccapurple`, which Level 4 added (accepted as a name, never chosen as the nearest: a client that knows
/// CSS3 alone would not know it).
enum CSSColorNames {
    /// The names and their values, from the one table of CSS colours (`CSSColor.named`), in alphabetical order.
    static let table: [(name: String, rgb: UInt32)] = CSSColor.named.keys.sorted().map { name in
        (name, UInt32(CSSColor.named[name]!.dropFirst(), radix: 16)!)
    }

    /// Names that CSS Color Level 3 does not have (accepted when written, never chosen as the nearest).
    static let level4Only: Set<String> = ["rebeccapurple"]

    /// Each CSS3 name's colour in CIELAB (D65), for the nearest-name search.
    private static let labTable: [(name: String, lab: (l: Double, a: Double, b: Double))] =
        table.filter { !level4Only.contains($0.name) }.map { ($0.name, lab($0.rgb)) }

    /// The keyword for a colour: a keyword in any letter case, or "#rrggbb" / "#rgb" as the keyword of the same
    /// colour, else the nearest CSS3 one (`exact` false). Nil for anything else. Nearest is by CIE76 colour
    /// difference, the Euclidean distance in CIELAB, which follows how far apart people see two colours much
    /// better than a distance in RGB does (in RGB, a step in green counts as much as one in blue, which the
    /// eye sees far less); ties go to the first name in alphabetical order (`aqua` before `cyan`, `gray`
    /// before `grey`).
    static func name(for colour: String) -> (name: String, exact: Bool)? {
        let text = colour.trimmingCharacters(in: .whitespaces).lowercased()
        if table.contains(where: { $0.name == text }) { return (text, true) }
        guard let rgb = hexRGB(text) else { return nil }
        if let same = table.first(where: { $0.rgb == rgb && !level4Only.contains($0.name) }) { return (same.name, true) }
        let target = lab(rgb)
        var best = labTable[0].name
        var bestDistance = Double.infinity
        for entry in labTable {
            let dl = target.l - entry.lab.l, da = target.a - entry.lab.a, db = target.b - entry.lab.b
            let d = dl * dl + da * da + db * db
            if d < bestDistance { best = entry.name; bestDistance = d }
        }
        return (best, false)
    }

    /// "#rrggbb" or "#rgb" (lower case) as its 24-bit value; nil for anything else.
    static func hexRGB(_ text: String) -> UInt32? {
        guard text.hasPrefix("#") else { return nil }
        var hex = String(text.dropFirst())
        guard hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 else { return nil }
        return UInt32(hex, radix: 16)
    }

    /// An sRGB colour in CIELAB (D65 white).
    static func lab(_ rgb: UInt32) -> (l: Double, a: Double, b: Double) {
        func linear(_ v: UInt32) -> Double {
            let c = Double(v & 0xFF) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let r = linear(rgb >> 16), g = linear(rgb >> 8), b = linear(rgb)
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let fx = f(x), fy = f(y), fz = f(z)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
}
