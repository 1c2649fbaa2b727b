import Foundation
import Pipeline

/// The page's colours, light and dark, as "#rrggbb". The defaults meet WCAG 2.x AA (4.5:1 for text) for every
/// pair in `textPairs` in both modes (tested); a pipeline may override any of them with the sink's `theme`
/// option, and the sink warns when an override falls below AA.
package struct HTMLTheme: Hashable, Sendable {
    package struct Palette: Hashable, Sendable {
        /// The page behind everything.
        package var background: String
        /// Day cards and the strip.
        package var surface: String
        /// The shade of every other month in the strip, and of attendee initials.
        package var shade: String
        package var text: String
        /// Secondary text: durations, locations, the footer.
        package var muted: String
        /// Links, today's ring, the "today" badge.
        package var accent: String
        /// Text on the accent colour (today's date in the strip).
        package var onAccent: String

        /// The foreground/background pairs the page draws text with, named for messages.
        package var textPairs: [(name: String, foreground: String, background: String)] {
            [
                ("text on background", text, background), ("text on surface", text, surface), ("text on shade", text, shade),
                ("muted on background", muted, background), ("muted on surface", muted, surface), ("muted on shade", muted, shade),
                ("accent on surface", accent, surface), ("accent on background", accent, background), ("accent on shade", accent, shade),
                ("on_accent on accent", onAccent, accent),
            ]
        }
    }

    package var light: Palette
    package var dark: Palette

    package static let standard = HTMLTheme(
        light: Palette(background: "#eef1f5", surface: "#ffffff", shade: "#e1e7ef", text: "#16191d", muted: "#4f5965",
                       accent: "#0a58b0", onAccent: "#ffffff"),
        dark: Palette(background: "#0d1117", surface: "#161b22", shade: "#222b36", text: "#e8ecf1", muted: "#a5afbb",
                      accent: "#79b8ff", onAccent: "#0d1117"))

    /// WCAG 2.x contrast ratio of two "#rrggbb" colours (1...21), nil when either is not "#rrggbb".
    package static func contrast(_ a: String, _ b: String) -> Double? {
        guard let la = luminance(a), let lb = luminance(b) else { return nil }
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// WCAG relative luminance of "#rrggbb".
    package static func luminance(_ hex: String) -> Double? {
        guard let rgb = rgb(hex) else { return nil }
        func channel(_ v: Int) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(rgb.0) + 0.7152 * channel(rgb.1) + 0.0722 * channel(rgb.2)
    }

    /// The channels of "#rrggbb" (also "#rgb").
    package static func rgb(_ hex: String) -> (Int, Int, Int)? {
        var digits = Array(hex.utf8)
        guard digits.first == UInt8(ascii: "#") else { return nil }
        digits.removeFirst()
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6 else { return nil }
        var values: [Int] = []
        for d in digits {
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(Int(d - UInt8(ascii: "0")))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): values.append(Int(d - UInt8(ascii: "a")) + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): values.append(Int(d - UInt8(ascii: "A")) + 10)
            default: return nil
            }
        }
        return (values[0] * 16 + values[1], values[2] * 16 + values[3], values[4] * 16 + values[5])
    }

    /// Pairs below WCAG AA (4.5:1), as "dark: muted on surface 3.1:1".
    package var contrastProblems: [String] {
        var out: [String] = []
        for (mode, palette) in [("light", light), ("dark", dark)] {
            for pair in palette.textPairs {
                guard let ratio = Self.contrast(pair.foreground, pair.background), ratio < 4.5 else { continue }
                out.append("\(mode): \(pair.name) \(String(format: "%.1f", ratio)):1")
            }
        }
        return out
    }
}
