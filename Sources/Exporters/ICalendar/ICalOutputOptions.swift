import Foundation
import Pipeline

/// The options of the `ics`, `xcal` and `jcal` sinks: the file, `expand`, and the calendar's own properties
/// (`ICalCalendarHead`).
struct ICalOutputOptions: OptionConfig {
    var path = OptionPath()
    var expand = false
    var calendarName: String?
    var refreshInterval: CalDuration?
    /// As given: a CSS3 colour name or "#rrggbb".
    var color: String?

    init() {}

    static let options = OptionSpec<ICalOutputOptions> {
        Key("path", \.path, .path, required: true, "output file, or \"-\" for standard output; relative to the pipeline file")
        Key("expand", \.expand, .boolean, "one VEVENT per occurrence (with RECURRENCE-ID) instead of the source events with their rules")
        Key("calendar_name", \.calendarName, .string, "the calendar's name (NAME and X-WR-CALNAME); \"\" for none", default: "the pipeline's name")
        Key("refresh_interval", \.refreshInterval, refreshIntervalType,
            "how often subscribers should reload (REFRESH-INTERVAL and X-PUBLISHED-TTL): \"PT1H\", \"30m\", \"1h\", \"1d\", \"1w\"")
        Key("color", \.color, colorType,
            "the calendar's colour (COLOR): a CSS3 colour name, or \"#rrggbb\" written as the nearest name and exactly in X-APPLE-CALENDAR-COLOR")
    }

    static let refreshIntervalType = OptionType<String>.string.map({ text, input -> CalDuration? in
        guard let d = ICalCalendarHead.duration(text), !d.isNegative, d != .zero else {
            input.report("invalid duration \"\(text)\" (expected an ISO 8601 duration such as \"PT1H\", or a number with s, m, h, d or w, such as \"30m\")")
            return nil
        }
        return d
    }, encode: { $0.iCalendarText })

    static let colorType = OptionType<String>.string.map { text, input -> String? in
        guard CSSColorNames.name(for: text) != nil else {
            input.report("unknown colour \"\(text)\" (expected a CSS3 colour name such as \"steelblue\", or \"#rrggbb\")")
            return nil
        }
        return text
    }

    /// The calendar's head; the name defaults to the pipeline's.
    func head(in environment: PipelineEnvironment) -> ICalCalendarHead {
        let name = calendarName ?? environment.name
        var head = ICalCalendarHead(name: name.isEmpty ? nil : name, refreshInterval: refreshInterval)
        if let color, let found = CSSColorNames.name(for: color) {
            head.color = found.name
            let given = color.trimmingCharacters(in: .whitespaces)
            if CSSColorNames.hexRGB(given.lowercased()) != nil { head.exactColor = given }
        }
        return head
    }
}
