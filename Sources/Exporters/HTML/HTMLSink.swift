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
// @unchecked Sendable: the open file and the collected days are the run's, used as the `Sink` contract says (open,
// write, commit in turn, never two at once, one run at a time).
package final class HTMLSink: Sink, @unchecked Sendable {
    package static let descriptor = SinkDescriptor(
        type: "html",
        kind: .sink,
        summary: "Write the agenda as one self-contained web page (calendar strip, days with weather, light and dark)",
        options: Options.self,
        fileExtensions: ["html", "htm"],
        make: { options, context in
            let environment = context.environment
            let settings = Settings(
                title: options.title ?? environment.name, titleFromCalendar: options.title == nil && !environment.nameWritten,
                daysBefore: options.daysBefore, daysAfter: options.daysAfter, stripAroundToday: options.stripAroundToday,
                locale: options.locale, maxEntriesPerDay: options.maxEntriesPerDay, theme: options.theme.theme)
            return HTMLSink(path: options.path.resolved, settings: settings, label: options.path.label)
        }
    )

    /// The `html` sink's options.
    package struct Options: OptionConfig {
        var path = OptionPath()
        var title: String?
        var daysBefore = 7
        var daysAfter = 34
        var locale = "en"
        var maxEntriesPerDay = 100
        var theme = HTMLThemeOptions()
        /// `days_before` or `days_after` was given.
        var stripAroundToday = false

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("path", \.path, .path, required: true, "output file; relative to the pipeline file")
            Key("title", \.title, .string, "the page's heading",
                default: "the pipeline's name; without one, the calendar's name (X-WR-CALNAME, NAME) when the page's events all have the same, else the file's name")
            Key("days_before", \.daysBefore, .integer(in: 0...366),
                "days the calendar strip shows before today; without days_before and days_after the strip shows the page's days",
                default: "7 (without a window)")
            Key("days_after", \.daysAfter, .integer(in: 0...366), "days the calendar strip shows after today", default: "34 (without a window)")
            Key("locale", \.locale, .string, "language for weekday and month names (\"en\", \"de\", \"fr-CH\")")
            Key("max_entries_per_day", \.maxEntriesPerDay, .integer(in: 1...10_000), "entries shown per day; the rest are counted as \"+N more\"")
            Group("theme", \.theme, "colours: {\"light\": {...}, \"dark\": {...}}, each colour as \"#rrggbb\"")
        }

        package mutating func validate(_ context: OptionContext<Options>) {
            stripAroundToday = context.isGiven(\.daysBefore) || context.isGiven(\.daysAfter)
        }
    }

    package struct Settings: Sendable {
        package var title: String
        /// No `title` and no pipeline `name`: the calendar's name, when the page's events all have the same one,
        /// wins over `title` (the file's name).
        package var titleFromCalendar: Bool
        package var daysBefore: Int
        package var daysAfter: Int
        /// `days_before` or `days_after` was set: the strip shows those days around today. Else it shows the page's
        /// days (the window's).
        package var stripAroundToday: Bool
        package var locale: String
        package var maxEntriesPerDay: Int
        package var theme: HTMLTheme

        package init(title: String, titleFromCalendar: Bool = false, daysBefore: Int = 7, daysAfter: Int = 34, stripAroundToday: Bool = false,
                     locale: String = "en", maxEntriesPerDay: Int = 100, theme: HTMLTheme = .standard) {
            self.title = title
            self.titleFromCalendar = titleFromCalendar
            self.daysBefore = daysBefore
            self.daysAfter = daysAfter
            self.stripAroundToday = stripAroundToday
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
    /// The sources of the page's legend, in the pipeline's order, and what the page learns of each.
    private var legend = HTMLLegend()
    /// The calendars' names the page's events carry (`metadata["calendar"]`), for the title: at most two kept
    /// (only "exactly one" matters); `unnamedCalendar` when an event has none.
    private var calendarNames: Set<String> = []
    private var unnamedCalendar = false

    package init(path: String, settings: Settings, label: String? = nil) {
        self.path = path
        self.settings = settings
        writtenPath = label ?? path
    }

    package var needs: BatchContent { .days }
    package var label: String { "html \(writtenPath)" }
    /// A temporary file renamed over the target; standard output (`"-"`) is written as it goes and flushed in
    /// place, which cannot be taken back, so it commits as a transaction does (after the files, before their renames).
    package var commitKind: SinkCommit { path == "-" ? .transaction : .file }

    package func open(context: RunContext) throws {
        file = try AtomicFile(path: path, label: writtenPath, cancellation: context.cancellation)
        let layout = HTMLLayout(environment: context.environment, daysBefore: settings.daysBefore, daysAfter: settings.daysAfter,
                                aroundToday: settings.stripAroundToday)
        self.layout = layout
        days = HTMLDayCollector(cap: settings.maxEntriesPerDay)
        legend = HTMLLegend(labels: context.runState.sourceLabels, colors: context.runState.sourceColors, named: context.runState.namedSources)
        calendarNames = []
        unnamedCalendar = false
        renderer = HTMLEntryRenderer(locale: AgendaLocale(identifier: settings.locale), sourceColors: context.runState.sourceColors,
                                     showsSource: context.runState.sourceLabels.count > 1, namedSources: context.runState.namedSources)
        for problem in settings.theme.contrastProblems {
            context.warn("\(label): theme colours below WCAG AA contrast (4.5:1): \(problem)")
        }
    }

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let layout, let renderer else { return }
        days.addHeaders(batch.agendaDays)
        for entry in batch.days where layout.agendaDays.contains(entry.day.daysSinceEpoch) {
            days.add(entry, renderer: renderer)
            entry.occurrence.withEvent { event in
                legend.note(event)
                if let name = event.metadata[EventJSON.calendarKey], !name.isEmpty {
                    if calendarNames.count < 2 { calendarNames.insert(name) }
                } else {
                    unnamedCalendar = true
                }
            }
        }
    }

    package func commit(context: RunContext) throws -> Int {
        guard let file, let layout, let renderer else { return 0 }
        var settings = settings
        if settings.titleFromCalendar, calendarNames.count == 1, !unnamedCalendar, let name = calendarNames.first { settings.title = name }
        let page = HTMLPage(settings: settings, layout: layout, days: days, locale: renderer.locale,
                            zone: context.zone, generatedAt: Self.generatedAt(context.environment), legend: legend)
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

/// Which days the page shows: the agenda's days (the pipeline's window, else `days_before` and `days_after`
/// around today) and the strip's whole weeks (Monday first). By default the strip shows the agenda's days; with
/// `aroundToday` (`days_before` or `days_after` set) it shows those days around today, today moved into the
/// agenda's days when it lies outside them, and the strip moved to stay inside them when they are long enough.
struct HTMLLayout {
    var agendaDays: Range<Int>
    var stripDays: Range<Int>
    var today: Int

    init(environment: PipelineEnvironment, daysBefore: Int, daysAfter: Int, aroundToday: Bool = true) {
        today = environment.today.daysSinceEpoch
        var center = today
        if let window = environment.window {
            agendaDays = window.from.daysSinceEpoch..<window.to.daysSinceEpoch
            center = min(max(today, agendaDays.lowerBound), agendaDays.upperBound - 1)
        } else {
            agendaDays = (today - daysBefore)..<(today + daysAfter + 1)
        }
        if !aroundToday && !agendaDays.isEmpty {
            // The strip shows the list's days, in whole weeks.
            let first = CivilDate(daysSinceEpoch: agendaDays.lowerBound)
            let last = CivilDate(daysSinceEpoch: agendaDays.upperBound - 1)
            stripDays = (first.daysSinceEpoch - (first.isoWeekday - 1))..<(last.daysSinceEpoch + (7 - last.isoWeekday) + 1)
            return
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

/// The page's legend: each source of the pipeline with the colour of its events: its `color` option, else the
/// first calendar colour its events carry, else none (the accent). A source is shown by its `name`; without one,
/// by the first calendar name its events carry (X-WR-CALNAME), else by its path or URL as written.
struct HTMLLegend {
    struct Item: Equatable {
        var label: String
        var color: String?
        /// The label is the source's `name`.
        var named: Bool
        /// The first calendar name among the source's events (for a source without `name`).
        var calendar: String?

        var shownName: String { named ? label : calendar ?? label }
    }

    private(set) var items: [Item] = []
    private var index: [String: Int] = [:]
    /// Sources that may still learn something from their events (a calendar colour or name).
    private var open = 0

    init(labels: [String] = [], colors: [String: String] = [:], named: Set<String> = []) {
        for label in labels where index[label] == nil {
            index[label] = items.count
            let item = Item(label: label, color: colors[label], named: named.contains(label))
            items.append(item)
            if item.isOpen { open += 1 }
        }
    }

    /// Takes the calendar colour and name of a source that has none yet.
    mutating func note(_ event: borrowing Event) {
        guard open > 0, let label = event.metadata["source"], let i = index[label], items[i].isOpen else { return }
        if items[i].color == nil, let color = event.metadata[Event.calendarColorKey].flatMap({ CSSColor.hex($0, allowAlpha: true) }) {
            items[i].color = color
        }
        if !items[i].named, items[i].calendar == nil, let name = event.metadata[EventJSON.calendarKey], !name.isEmpty {
            items[i].calendar = name
        }
        if !items[i].isOpen { open -= 1 }
    }

    /// A legend is shown for more than one source, or for one source with a colour.
    var isShown: Bool { items.count > 1 || items.contains { $0.color != nil } }
}

extension HTMLLegend.Item {
    fileprivate var isOpen: Bool { color == nil || (!named && calendar == nil) }
}

extension HTMLSink: FileOutputSink {
    package var outputPath: String { path }
}
