import Pipeline

/// One day entry as the page's `<li>`: colour dot, "all day" or start time and duration, title, location,
/// attendees as initials ("+N" past the first three), "day 2 of 3" for events split over days, and the name of
/// its source when the page has several (so the dot's colour is not the only way to tell them apart).
struct HTMLEntryRenderer {
    let locale: AgendaLocale
    /// The sources' `color` options by source label (`RunState.sourceColors`).
    var sourceColors: [String: String] = [:]
    /// Writes the source's name in each entry (pages of more than one source).
    var showsSource = false
    /// The labels that are a source's `name`; a source without one is named by its event's calendar.
    var namedSources: Set<String> = []
    static let shownAttendees = 3

    init(locale: AgendaLocale, sourceColors: [String: String] = [:], showsSource: Bool = false, namedSources: Set<String> = []) {
        self.locale = locale
        self.sourceColors = sourceColors
        self.showsSource = showsSource
        self.namedSources = namedSources
    }

    /// What names an event's source on the page: the source's `name`; without one, the event's calendar's name
    /// (X-WR-CALNAME), else the source's path or URL as written.
    static func sourceName(_ event: borrowing Event, namedSources: Set<String>) -> String? {
        guard let label = event.metadata["source"], !label.isEmpty else { return nil }
        if namedSources.contains(label) { return label }
        if let calendar = event.metadata[EventJSON.calendarKey], !calendar.isEmpty { return calendar }
        return label
    }

    func render(_ entry: DayEntry) -> String {
        entry.occurrence.withEvent { event in render(entry, event: event) }
    }

    private func render(_ entry: DayEntry, event: borrowing Event) -> String {
        let e = HTMLEscape.text
        let cancelled = event.status?.uppercased() == "CANCELLED"
        var out = "<li class=\"entry\(cancelled ? " cancelled" : "")\""
        // "#rrggbb" only (`Event.agendaColor`): nothing from a feed reaches the style attribute but a colour.
        if let color = event.agendaColor(sourceColors: sourceColors) { out += " style=\"--c:\(color)\"" }
        out += "><span class=\"swatch\" aria-hidden=\"true\"></span><p class=\"when\">"
        if entry.allDay {
            out += "<span class=\"start\">all day</span>"
        } else {
            out += "<time class=\"start\" datetime=\"\(entry.start.date.iso8601)T\(entry.start.shortTimeText)\">\(e(locale.time(entry.start)))</time>"
            out += "<span class=\"dur\"><span class=\"sr\">for </span>\(e(AgendaText.duration(seconds: entry.durationSeconds)))</span>"
        }
        out += "</p><div class=\"what\"><h3 class=\"title\">"
        out += e(event.title.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)")
        out += "</h3>"
        var tags: [String] = []
        if entry.parts > 1 { tags.append("<span class=\"tag\">\(AgendaText.part(entry.part, of: entry.parts))</span>") }
        if cancelled { tags.append("<span class=\"tag\">cancelled</span>") }
        if event.status?.uppercased() == "TENTATIVE" { tags.append("<span class=\"tag\">tentative</span>") }
        if !tags.isEmpty { out += "<p class=\"tags\">" + tags.joined() + "</p>" }
        if let location = event.location, !location.isEmpty {
            out += "<p class=\"loc\"><svg class=\"pin\" viewBox=\"0 0 24 24\" aria-hidden=\"true\" focusable=\"false\"><use href=\"#i-pin\"/></svg>"
            out += "<span class=\"sr\">Location: </span>\(e(location))</p>"
        }
        if showsSource, let source = Self.sourceName(event, namedSources: namedSources) {
            out += "<p class=\"src\"><span class=\"sr\">Calendar: </span>\(e(source))</p>"
        }
        if !event.attendees.isEmpty {
            let count = event.attendees.count
            out += "<ul class=\"people\" aria-label=\"\(count) attendee\(count == 1 ? "" : "s")\">"
            let shown = count > Self.shownAttendees + 1 ? Self.shownAttendees : count
            for attendee in event.attendees.prefix(shown) {
                let name = attendee.name ?? attendee.email ?? "attendee"
                out += "<li title=\"\(e(name))\"><span aria-hidden=\"true\">\(e(AgendaText.initials(name: attendee.name, email: attendee.email)))</span>"
                out += "<span class=\"sr\">\(e(name))</span></li>"
            }
            if count > shown {
                out += "<li class=\"more\"><span aria-hidden=\"true\">+\(count - shown)</span><span class=\"sr\">and \(count - shown) more</span></li>"
            }
            out += "</ul>"
        }
        return out + "</div></li>"
    }
}
