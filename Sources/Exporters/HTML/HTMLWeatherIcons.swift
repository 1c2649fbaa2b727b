/// The weather icons as inline SVG symbols, one per icon name of the days document (`AgendaText.weatherIcon`),
/// plus "unknown", drawn in a
/// 24x24 box and coloured by the page's CSS (`.i-sun`, `.i-cloud`, `.i-water`, `.i-bolt`). A day's header
/// uses one with `<svg role="img" aria-label="..."><use href="#wx-rain"/></svg>`: no file, no request.
enum HTMLWeatherIcons {
    static let cloud = "M6.5 18a3.5 3.5 0 0 1-.4-6.98A6 6 0 0 1 17.6 10.1a4 4 0 0 1-.1 7.9z"
    static let highCloud = "M6.5 15a3.5 3.5 0 0 1-.4-6.98A6 6 0 0 1 17.6 7.1a4 4 0 0 1-.1 7.9z"

    static let shapes: [(name: String, body: String)] = [
        ("clear-day", """
            <circle class="i-sun" cx="12" cy="12" r="4.6"/><g class="i-ray">\
            <path d="M12 2.2v2.6M12 19.2v2.6M2.2 12h2.6M19.2 12h2.6M5.1 5.1l1.8 1.8M17.1 17.1l1.8 1.8M5.1 18.9l1.8-1.8M17.1 6.9l1.8-1.8"/></g>
            """),
        ("partly-cloudy-day", """
            <circle class="i-sun" cx="9" cy="8.5" r="3.8"/><g class="i-ray">\
            <path d="M9 1.8v1.6M2.3 8.5h1.6M4.3 3.8l1.1 1.1M13.7 3.8l-1.1 1.1"/></g>\
            <path class="i-cloud" d="M8.5 20a3.2 3.2 0 0 1-.4-6.38A5.4 5.4 0 0 1 18.4 12.6a3.7 3.7 0 0 1-.1 7.4z"/>
            """),
        ("clear-night", """
            <path class="i-moon" d="M15.5 3.2a8.6 8.6 0 1 0 5.3 13.6A7 7 0 0 1 15.5 3.2z"/>
            """),
        ("partly-cloudy-night", """
            <path class="i-moon" d="M10.8 2.4a6 6 0 1 0 4.6 9.6A4.9 4.9 0 0 1 10.8 2.4z"/>\
            <path class="i-cloud" d="M8.5 20a3.2 3.2 0 0 1-.4-6.38A5.4 5.4 0 0 1 18.4 12.6a3.7 3.7 0 0 1-.1 7.4z"/>
            """),
        ("cloudy", "<path class=\"i-cloud\" d=\"\(cloud)\"/>"),
        ("fog", """
            <path class="i-cloud" d="\(highCloud)"/><g class="i-mist"><path d="M4 18.5h16M6 21.5h12"/></g>
            """),
        ("drizzle", """
            <path class="i-cloud" d="\(highCloud)"/><g class="i-water">\
            <circle cx="8" cy="18.5" r="1.1"/><circle cx="12" cy="20.5" r="1.1"/><circle cx="16" cy="18.5" r="1.1"/></g>
            """),
        ("rain", """
            <path class="i-cloud" d="\(highCloud)"/><g class="i-rain"><path d="M8 17.5l-1.2 4M12 17.5l-1.2 4M16 17.5l-1.2 4"/></g>
            """),
        ("sleet", """
            <path class="i-cloud" d="\(highCloud)"/><g class="i-rain"><path d="M8 17.5l-1.2 4M16 17.5l-1.2 4"/></g>\
            <g class="i-snow"><circle cx="12" cy="19.5" r="1.3"/></g>
            """),
        ("snow", """
            <path class="i-cloud" d="\(highCloud)"/><g class="i-snow">\
            <circle cx="8" cy="18.3" r="1.3"/><circle cx="12" cy="20.8" r="1.3"/><circle cx="16" cy="18.3" r="1.3"/></g>
            """),
        ("thunderstorm", """
            <path class="i-cloud" d="\(highCloud)"/><path class="i-bolt" d="M12.6 14.5l-3.2 5h2.6l-1.2 4 4.2-5.8h-2.7l1.5-3.2z"/>
            """),
        ("unknown", """
            <circle class="i-none" cx="12" cy="12" r="8"/><path class="i-none-mark" d="M8 12h8"/>
            """),
    ]

    /// The hidden `<svg>` holding every symbol, written once near the top of the page.
    static var definitions: String {
        var out = "<svg class=\"defs\" aria-hidden=\"true\" focusable=\"false\" width=\"0\" height=\"0\"><defs>"
        for shape in shapes {
            out += "<symbol id=\"wx-\(shape.name)\" viewBox=\"0 0 24 24\">" + shape.body + "</symbol>"
        }
        out += "<symbol id=\"i-pin\" viewBox=\"0 0 24 24\"><path fill=\"currentColor\" d=\"M12 2a7 7 0 0 0-7 7c0 5.2 7 13 7 13s7-7.8 7-13a7 7 0 0 0-7-7zm0 9.6a2.6 2.6 0 1 1 0-5.2 2.6 2.6 0 0 1 0 5.2z\"/></symbol>"
        return out + "</defs></svg>"
    }
}
