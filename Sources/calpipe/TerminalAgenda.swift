import Exporters
import Foundation
import Pipeline

/// The agenda as `calpipe agenda` prints it: a header per day (weekday, date, weather on the right), then its
/// entries, fitted to the terminal's width; colours as ANSI escapes when asked. Knows nothing of where the
/// days came from (a pipeline run or a database), so `calpipe query` can print the same blocks.
struct TerminalAgenda {
    struct Entry {
        var allDay: Bool
        /// "HH:MM" local start on this day.
        var start: String
        var durationSeconds: Int64
        var title: String
        var location: String?
        var color: String?
        var attendees: [String]
        var part: Int
        var parts: Int
        var status: String?
    }

    struct Weather {
        var summary: String?
        var high: Double?
        var low: Double?
        var precipitationProbability: Double?
    }

    struct Day {
        var date: CivilDate
        var weather: Weather?
        var entries: [Entry]
        /// Entries not kept (past the per-day cap).
        var more = 0
    }

    var width: Int
    var color: Bool
    var locale: AgendaLocale
    var today: CivilDate?

    // ANSI SGR sequences.
    private func sgr(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text }

    func render(_ days: [Day]) -> String {
        var out = ""
        for (i, day) in days.enumerated() {
            if i > 0 { out += "\n" }
            out += header(day) + "\n"
            if day.entries.isEmpty {
                out += "  " + sgr("2", Self.fit("no events", width - 2)) + "\n"
            }
            for entry in day.entries { out += lines(entry) }
            if day.more > 0 { out += "  " + sgr("2", "+\(day.more) more") + "\n" }
        }
        return out
    }

    /// "Wednesday 21 October 2026 · today" on the left, "Moderate rain  3° / -3°" on the right.
    func header(_ day: Day) -> String {
        var left = locale.fullDate(day.date)
        let isToday = day.date == today
        if isToday { left += " · today" }
        // The weather, the longest form that fits: summary, rain chance and temperatures; else fewer of them.
        var right = ""
        if let w = day.weather {
            let temps = w.high.flatMap { hi in w.low.map { AgendaText.degrees(hi) + " / " + AgendaText.degrees($0) } }
            let chance = w.precipitationProbability.flatMap { $0 > 0 ? JSONWriter.numberText($0.rounded()) + "%" : nil }
            let forms = [[w.summary, chance, temps], [w.summary, temps], [temps], [w.summary]]
                .map { $0.compactMap { $0 }.joined(separator: "  ") }.filter { !$0.isEmpty }
            let room = width - Self.displayWidth(left) - 2
            right = forms.first { Self.displayWidth($0) <= room } ?? ""
        }
        // The weather goes right-aligned when both fit with two spaces between; else it is shortened, then dropped.
        let leftWidth = Self.displayWidth(left)
        if leftWidth + 2 + Self.displayWidth(right) > width {
            right = Self.fit(right, width - leftWidth - 2)
        }
        if right.isEmpty || leftWidth + 2 > width {
            return sgr(isToday ? "1;4" : "1", Self.fit(left, width))
        }
        let gap = width - leftWidth - Self.displayWidth(right)
        return sgr(isToday ? "1;4" : "1", left) + String(repeating: " ", count: gap) + sgr("36", right)
    }

    /// Indent of the text column: "  ● " + 11 for the time + 2 spaces.
    static let textColumn = 17

    func lines(_ entry: Entry) -> String {
        let textWidth = max(10, width - Self.textColumn)
        let dot = sgr(Self.ansiColor(entry.color) ?? "34", "●")
        var when: String
        if entry.allDay {
            when = "all day"
        } else {
            when = entry.start + " " + Self.shortDuration(entry.durationSeconds)
        }
        when = when.padding(toLength: 11, withPad: " ", startingAt: 0)
        var title = entry.title
        if entry.parts > 1 { title += " (" + AgendaText.part(entry.part, of: entry.parts) + ")" }
        if entry.status?.uppercased() == "CANCELLED" { title += " [cancelled]" }
        let indent = String(repeating: " ", count: Self.textColumn)
        // Wide terminals: title · location on one line; narrow ones: the location on a line of its own.
        var out: String
        let wide = width >= 100
        if wide, let location = entry.location, !location.isEmpty {
            let titleText = Self.fit(title, textWidth)
            let rest = textWidth - Self.displayWidth(titleText) - 3
            let locationText = rest >= 8 ? Self.fit(location, rest) : ""
            out = "  " + dot + " " + sgr("2", when) + "  " + sgr("1", titleText) + (locationText.isEmpty ? "" : sgr("2", " · " + locationText)) + "\n"
        } else {
            out = "  " + dot + " " + sgr("2", when) + "  " + sgr("1", Self.fit(title, textWidth)) + "\n"
            if let location = entry.location, !location.isEmpty {
                out += indent + sgr("2", Self.fit(location, textWidth)) + "\n"
            }
        }
        if !entry.attendees.isEmpty {
            out += indent + sgr("2", Self.people(entry.attendees, width: textWidth)) + "\n"
        }
        return out
    }

    /// "with Ben Okafor, Ines García +2": as many names as fit, then the count of the others.
    static func people(_ names: [String], width: Int) -> String {
        var text = "with "
        for (i, name) in names.enumerated() {
            let candidate = text + (i == 0 ? "" : ", ") + name
            let others = names.count - i - 1
            let suffix = others > 0 ? " +\(others)" : ""
            if displayWidth(candidate + suffix) > width {
                if i == 0 { return fit("with " + name, width - (names.count > 1 ? " +\(names.count - 1)".count : 0)) + (names.count > 1 ? " +\(names.count - 1)" : "") }
                return text + " +\(names.count - i)"
            }
            text = candidate
        }
        return text
    }

    /// "45m", "1h", "1h30", "2d".
    static func shortDuration(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        if minutes >= 1440 { return "\(minutes / 1440)d" + (minutes % 1440 >= 60 ? "\(minutes % 1440 / 60)h" : "") }
        if minutes >= 60 { return "\(minutes / 60)h" + (minutes % 60 > 0 ? String(format: "%02d", Int(minutes % 60)) : "") }
        return "\(minutes)m"
    }

    /// The SGR code of an event colour: 24-bit for "#rrggbb", the basic colours by name; nil otherwise.
    static func ansiColor(_ color: String?) -> String? {
        guard let color = color?.lowercased() else { return nil }
        if let (r, g, b) = HTMLTheme.rgb(color) { return "38;2;\(r);\(g);\(b)" }
        let names = ["black": "30", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "purple": "35",
                     "cyan": "36", "teal": "36", "white": "37", "gray": "90", "grey": "90", "orange": "38;5;208"]
        return names[color]
    }

    /// Columns a string takes in a terminal: East Asian wide and emoji characters count two, combining marks none.
    static func displayWidth(_ text: String) -> Int {
        var n = 0
        for scalar in text.unicodeScalars { n += scalarWidth(scalar) }
        return n
    }

    static func scalarWidth(_ s: Unicode.Scalar) -> Int {
        let v = s.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        switch s.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) {
            return 2
        }
        return 1
    }

    /// The text cut to `width` columns with "…" when it is longer.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if displayWidth(text) <= width { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = displayWidth(String(character))
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }
}
