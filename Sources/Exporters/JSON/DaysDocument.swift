import Pipeline

/// The days document (docs/json-format.md) of whole `AgendaDay`s held in memory, with the members and layout
/// the json sink streams: `calpipe query --json` prints it, so its output has the sink's shape.
package enum DaysDocument {
    /// The document's text. `sources` is empty when the days were not read by this run (a database).
    package static func render(_ days: [AgendaDay], pipeline: String, zone: Zone, window: Window?, locale: String, generatedAt: Int64,
                              today: CivilDate, pretty: Bool = true) -> String {
        var providers = Set<String>()
        for day in days {
            if let f = day.weather?.forecast { providers.insert(f.provider) }
            for entry in day.entries { if case .forecast(let f, _)? = entry.forecast { providers.insert(f.provider) } }
        }
        let credits = Set(providers.compactMap(DailyForecast.attribution(forProvider:))).sorted()
        let head = DaysDocumentHead(generatedAt: generatedAt, pipeline: pipeline, timezone: zone.identifier, window: window, locale: locale,
                                    today: today, attribution: credits.isEmpty ? nil : credits.joined(separator: "; "), sources: [])
        let out = JSONBytes(pretty: pretty)
        let initials = AttendeeInitials()
        out.raw("{")
        var first = true
        head.members(into: out, level: 0, first: &first, withSources: true)
        out.key("days", level: 0, first: &first)
        out.raw("[")
        for (i, day) in days.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.newline(2)
            out.dayHead(day.date, weather: day.weather, document: head, level: 2, standalone: false)
            out.raw("[")
            for (j, entry) in day.entries.enumerated() {
                if j > 0 { out.byte(0x2C) }
                out.newline(4)
                out.dayEntry(entry, zone: zone, level: 4, initials: initials)
            }
            if !day.entries.isEmpty { out.newline(3) }
            out.raw("]")
            out.newline(2)
            out.raw("}")
        }
        if !days.isEmpty { out.newline(1) }
        out.raw("]")
        if pretty { out.raw("\n") }
        out.raw("}\n")
        return String(decoding: out.buffer, as: UTF8.self)
    }
}
