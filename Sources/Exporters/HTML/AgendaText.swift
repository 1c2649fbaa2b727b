import Pipeline

/// Small pieces of agenda text shared by the `html` sink and `calpipe agenda`: durations, attendee initials,
/// weather icon names, temperatures. English words; weekday and month names come from `AgendaLocale`.
package enum AgendaText {
    /// "30 min", "1 h", "1 h 30 min", "2 d 3 h" for a duration in seconds.
    package static func duration(seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        let days = minutes / 1440, hours = minutes % 1440 / 60, mins = minutes % 60
        var parts: [String] = []
        if days > 0 { parts.append("\(days) d") }
        if hours > 0 { parts.append("\(hours) h") }
        if mins > 0 && days == 0 { parts.append("\(mins) min") }
        return parts.isEmpty ? "0 min" : parts.joined(separator: " ")
    }

    /// Up to two capital letters for an attendee: the first letters of the name's first and last words
    /// ("Ines García" -> "IG"), else of the address before "@" ("ben.okafor@..." -> "BO"), else "?".
    package static func initials(name: String?, email: String?) -> String {
        func letters(_ words: [Substring]) -> String {
            let firsts = words.compactMap { $0.first(where: { $0.isLetter || $0.isNumber }) }
            guard let first = firsts.first else { return "" }
            let last = firsts.count > 1 ? String(firsts[firsts.count - 1]) : ""
            return (String(first) + last).uppercased()
        }
        if let name {
            let text = letters(name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "-" }))
            if !text.isEmpty { return text }
        }
        if let email, let local = email.split(separator: "@").first {
            let text = letters(local.split(whereSeparator: { $0 == "." || $0 == "_" || $0 == "-" || $0 == "+" }))
            if !text.isEmpty { return text }
        }
        return "?"
    }

    /// A weather icon name for a WMO weather code (the day form), nil for no code or an unknown one: the names
    /// of the days document (`WeatherIcon`).
    package static func weatherIcon(code: Int?) -> String? {
        code.flatMap { WeatherIcon.name(forCode: $0) }
    }

    /// "12°" (rounded to a whole degree; "-0" is written "0").
    package static func degrees(_ value: Double) -> String {
        let n = Int(value.rounded())
        return "\(n)°"
    }

    /// "day 2 of 3" for the parts of an event split over days.
    package static func part(_ part: Int, of parts: Int) -> String { "day \(part) of \(parts)" }
}
