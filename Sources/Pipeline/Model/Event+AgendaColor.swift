extension Event {
    /// The metadata key a source sets to its calendar's colour ("#rrggbb": the VCALENDAR's RFC 7986 COLOR, else
    /// X-APPLE-CALENDAR-COLOR, else X-WR-CALCOLOR).
    public static let calendarColorKey = "calendar_color"

    /// The colour an agenda shows the event in, as "#rrggbb", or nil (the page's accent then):
    /// the event's own COLOR, else its source's `color` option (`sourceColors`, by source label), else its
    /// calendar's colour. A user who sets a source's colour chooses over the feed's publisher; an event's own
    /// colour stays the event's. The one place that decides (docs/html.md).
    public func agendaColor(sourceColors: [String: String]) -> String? {
        if let own = color.flatMap({ CSSColor.hex($0) }) { return own }
        if !sourceColors.isEmpty, let source = metadata["source"], let chosen = sourceColors[source] { return chosen }
        return metadata[Self.calendarColorKey].flatMap { CSSColor.hex($0, allowAlpha: true) }
    }
}
