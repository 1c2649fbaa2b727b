import Foundation
import Pipeline

/// `type: html`: the agenda as one self-contained web page: a calendar strip (weeks in rows) over the days of
/// the window, each day with its weather and entries. Inline CSS and SVG only: the page makes no request, works
/// from `file://` and needs no JavaScript; light and dark (`prefers-color-scheme`) and a print stylesheet.
/// Deterministic (the same input and run time give the same bytes) and atomic (temporary file, then rename).
///
/// Memory: the page covers a bounded set of days (the pipeline's window, else the strip's days around today),
/// and each day keeps at most `max_entries_per_day` rendered entries (the first ones in agenda order; the page
/// says "+N more" for the rest), so a huge feed costs at most days x cap entries, not the feed's size.
package final class HTMLSink: Sink {
    package static let descriptor = SinkDescriptor(
        type: "html",
        kind: .sink,
        summary: "Write the agenda as one self-contained web page (calendar strip, days with weather, light and dark)",
        options: [
            OptionDoc("path", "path", required: true, "output file; relative to the pipeline file"),
            OptionDoc("title", "string", "the page's heading", default: "the pipeline's name"),
            OptionDoc("days_before", "integer", "days the calendar strip shows before today (0-366)", default: "7"),
            OptionDoc("days_after", "integer", "days the calendar strip shows after today (0-366)", default: "34"),
            OptionDoc("locale", "string", "language for weekday and month names (\"en\", \"de\", \"fr-CH\")", default: "en"),
            OptionDoc("max_entries_per_day", "integer", "entries shown per day; the rest are counted as \"+N more\" (1-10000)", default: "100"),
            OptionDoc("theme", "object", "colours: {\"light\": {...}, \"dark\": {...}} with any of " + HTMLTheme.Palette.keys.joined(separator: ", ") + " as \"#rrggbb\""),
        ],
        fileExtensions: ["html", "htm"],
        make: { options in
            let path = options.path("path", required: true)
            let settings = Settings(
                title: options.string("title") ?? options.environment.name,
                daysBefore: options.integer("days_before", default: 7, range: 0...366),
                daysAfter: options.integer("days_after", default: 34, range: 0...366),
                locale: options.string("locale", default: "en"),
                maxEntriesPerDay: options.integer("max_entries_per_day", default: 100, range: 1...10_000),
                theme: HTMLTheme.read(options))
            try options.finish()
            guard let path else { throw CalpipeError.optionsRejected }
            return HTMLSink(path: path, settings: settings, label: options.pathLabel("path"))
        }
    )

    package struct Settings: Sendable {
        package var title: String
        package var daysBefore: Int
        package var daysAfter: Int
        package var locale: String
        package var maxEntriesPerDay: Int
        package var theme: HTMLTheme

        package init(title: String, daysBefore: Int = 7, daysAfter: Int = 34, locale: String = "en", maxEntriesPerDay: Int = 100,
                    theme: HTMLTheme = .standard) {
            self.title = title
            self.daysBefore = daysBefore
            self.daysAfter = daysAfter
            self.locale = locale
            self.maxEntriesPerDay = maxEntriesPerDay
            self.theme = theme
        }
    }

    package let path: String
    package let settings: Settings
    private let writtenPath: String
    private var file: AtomicFile?
    private var days = HTMLDayCollector(cap: 1)
    private var layout: HTMLLayout?
    private var renderer: HTMLEntryRenderer?

    package init(path: String, settings: Settings, label: String? = nil) {
        self.path = path
        self.settings = settings
        writtenPath = label ?? path
    }

    package var needs: BatchContent { .days }
    package var label: String { "html \(writtenPath)" }

    package func open(context: RunContext) throws {
        file = try AtomicFile(path: path, label: writtenPath, cancellation: context.cancellation)
        let layout = HTMLLayout(environment: context.environment, daysBefore: settings.daysBefore, daysAfter: settings.daysAfter)
        self.layout = layout
        days = HTMLDayCollector(cap: settings.maxEntriesPerDay)
        renderer = HTMLEntryRenderer(locale: AgendaLocale(identifier: settings.locale))
        for problem in settings.theme.contrastProblems {
            context.warn("\(label): theme colours below WCAG AA contrast (4.5:1): \(problem)")
        }
    }

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let layout, let renderer else { return }
        days.addHeaders(batch.agendaDays)
        for entry in batch.days where layout.agendaDays.contains(entry.day.daysSinceEpoch) {
            days.add(entry, renderer: renderer)
        }
    }

    package func commit(context: RunContext) throws -> Int {
        guard let file, let layout, let renderer else { return 0 }
        let page = HTMLPage(settings: settings, layout: layout, days: days, locale: renderer.locale,
                            zone: context.zone, generatedAt: Self.generatedAt(context.environment))
        try file.write(page.render())
        try file.commit()
        self.file = nil
        return days.totalEntries
    }

    package func abort(context: RunContext) {
        file?.abort()
        file = nil
        days = HTMLDayCollector(cap: 1)
    }

    /// The run's time (`SOURCE_DATE_EPOCH` when set, else the clock when the pipeline was loaded), UTC seconds.
    static func generatedAt(_ environment: PipelineEnvironment) -> Int64 { environment.now }
}

/// Which days the page shows: the agenda's days (the pipeline's window, else the strip's) and the strip's
/// whole weeks (Monday first) around today (`days_before`, `days_after`), today moved into the agenda's days
/// when it lies outside them, and the strip moved to stay inside them when they are long enough.
struct HTMLLayout {
    var agendaDays: Range<Int>
    var stripDays: Range<Int>
    var today: Int

    init(environment: PipelineEnvironment, daysBefore: Int, daysAfter: Int) {
        today = environment.today.daysSinceEpoch
        var center = today
        if let window = environment.window {
            agendaDays = window.from.daysSinceEpoch..<window.to.daysSinceEpoch
            center = min(max(today, agendaDays.lowerBound), agendaDays.upperBound - 1)
        } else {
            agendaDays = (today - daysBefore)..<(today + daysAfter + 1)
        }
        // Shifted to stay inside the agenda's days where they are long enough, so its days are links.
        var start = center - daysBefore, end = center + daysAfter
        if end > agendaDays.upperBound - 1 { start -= end - (agendaDays.upperBound - 1); end = agendaDays.upperBound - 1 }
        if start < agendaDays.lowerBound { end = min(end + agendaDays.lowerBound - start, max(agendaDays.upperBound - 1, center)); start = agendaDays.lowerBound }
        let first = CivilDate(daysSinceEpoch: start)
        let last = CivilDate(daysSinceEpoch: end)
        stripDays = (first.daysSinceEpoch - (first.isoWeekday - 1))..<(last.daysSinceEpoch + (7 - last.isoWeekday) + 1)
    }
}

extension HTMLSink: FileOutputSink {
    package var outputPath: String { path }
}
