import ArgumentParser
import Exporters
import Fetch
import Foundation
import Pipeline

struct Agenda: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the agenda of a pipeline or of a database in the terminal.",
        discussion: """
            With a pipeline file, runs it without writing its sinks and prints every day of its window (empty \
            days included); with a database written by the sqlite sink, prints what it stores. Day headers carry \
            the weather; lines are fitted to the terminal's width. Colours follow --color: "auto" colours a \
            terminal unless NO_COLOR is set.

            Example:
              calpipe agenda pipelines/demo.json --from 2026-10-19 --to 2026-10-26
              calpipe agenda out/agenda.sqlite --color never
            """
    )

    enum ColorMode: String, ExpressibleByArgument, CaseIterable {
        case never, auto, always
    }

    @Argument(help: "A pipeline file (JSON) or a database written by the sqlite sink.")
    var input: String

    @Option(help: "First day to show (YYYY-MM-DD, today, today+Nd, today-Nw).")
    var from: String?

    @Option(help: "Day to stop before (exclusive).")
    var to: String?

    @Option(help: "Colours: never, auto (a terminal without NO_COLOR) or always.")
    var color: ColorMode = .auto

    @Option(help: "Columns to fit (default: the terminal's width, else $COLUMNS, else 80).")
    var width: Int?

    @Option(help: "Language of weekday and month names (en, en-GB, de, ...).")
    var locale = "en"

    @Option(name: .customLong("set"), help: ArgumentHelp("Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sources[0].path=feeds/team.ics.", valueName: "KEY=VALUE"))
    var overrides: [String] = []

    func validate() throws {
        if let width, width < 30 || width > 1000 { throw ValidationError("--width: \(width) is out of range (expected 30 to 1000)") }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let useColor: Bool
        switch color {
        case .never: useColor = false
        case .always: useColor = true
        case .auto: useColor = isatty(STDOUT_FILENO) != 0 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
        let columns = width ?? Self.terminalColumns(environment: environment)
        let days: [TerminalAgenda.Day]
        let today: CivilDate
        if Self.isSQLite(input) {
            let zone = ZoneDatabase().defaultZone(environment: environment)
            today = PipelineEnvironment.today(in: zone)
            days = try databaseDays(today: today)
        } else {
            (days, today) = try pipelineDays()
        }
        let renderer = TerminalAgenda(width: max(30, columns), color: useColor, locale: AgendaLocale(identifier: locale), today: today)
        FileHandle.standardOutput.write(Data((days.isEmpty ? "no agenda entries\n" : renderer.render(days)).utf8))
    }

    static func isSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head == Data("SQLite format 3\u{0}".utf8)
    }

    /// The terminal's width (TIOCGWINSZ on standard output), else $COLUMNS, else 80.
    static func terminalColumns(environment: [String: String]) -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment["COLUMNS"], let n = Int(text), n > 0 { return n }
        return 80
    }

    private func day(_ text: String?, option: String, today: CivilDate) throws -> CivilDate? {
        guard let text else { return nil }
        guard let date = Window.parseBound(text, today: today) else {
            throw ValidationError("--\(option): invalid day \"\(text)\" (expected YYYY-MM-DD, today, today+Nd or today-Nw)")
        }
        return date
    }

    /// Every day from `lower` to `upper` (exclusive), each with its entries from `byDay`.
    static func allDays(_ lower: CivilDate, _ upper: CivilDate, _ byDay: [Int: TerminalAgenda.Day]) -> [TerminalAgenda.Day] {
        guard lower < upper else { return [] }
        return (lower.daysSinceEpoch..<upper.daysSinceEpoch).map {
            byDay[$0] ?? TerminalAgenda.Day(date: CivilDate(daysSinceEpoch: $0), weather: nil, entries: [])
        }
    }

    private func pipelineDays() throws -> ([TerminalAgenda.Day], CivilDate) {
        let loader = try PipelineSession.loader(overrides: overrides)
        var pipeline = try loader.load(file: input)
        let today = pipeline.environment.today
        let window = pipeline.environment.window
        let lower = try day(from, option: "from", today: today) ?? window?.from
        let upper = try day(to, option: "to", today: today) ?? window?.to
        if let lower, let upper, upper <= lower {
            throw ValidationError("--to \(upper.iso8601) must be after --from \(lower.iso8601) (--to is exclusive)")
        }
        // Days asked for outside the pipeline's window are expanded too: the pipeline runs with the asked range as
        // its window, so a day the feed has (a holiday next spring) shows its events instead of an empty day.
        if let lower, let upper, window.map({ lower < $0.from || upper > $0.to }) ?? true {
            let widened = overrides + ["window.from=" + lower.iso8601, "window.to=" + upper.iso8601]
            pipeline = try PipelineSession.loader(overrides: widened, http: loader.fetcher as? HTTPFetcher).load(file: input)
            if let window {
                Terminal.error("calpipe: note: \(lower.iso8601) to \(upper.iso8601) reaches outside the pipeline's window (\(window.from.iso8601) to "
                               + "\(window.to.iso8601)); the pipeline is read for the days shown")
            }
        }
        // The pipeline's own sinks are not run: the agenda is collected instead (a dry run for them).
        let collector = AgendaCollector(range: lower.map { $0.daysSinceEpoch } ?? Int.min, upper.map { $0.daysSinceEpoch } ?? Int.max)
        pipeline.sinks = [collector]
        let report = RunReport()
        let context = RunContext(environment: pipeline.environment, report: report, quiet: true)
        try Runner().run(pipeline, context: context)
        for warning in report.warnings { Terminal.error("calpipe: warning: \(warning)") }
        for rejection in report.rejections { Terminal.error("calpipe: rejected: \(rejection)") }
        let byDay = collector.days()
        let first = lower ?? byDay.keys.min().map(CivilDate.init(daysSinceEpoch:))
        let end = upper ?? byDay.keys.max().map { CivilDate(daysSinceEpoch: $0 + 1) }
        guard let first, let end else { return ([], today) }
        return (Self.allDays(first, end, byDay), today)
    }

    private func databaseDays(today: CivilDate) throws -> [TerminalAgenda.Day] {
        let lower = try day(from, option: "from", today: today)
        let upper = try day(to, option: "to", today: today)
        if let lower, let upper, upper <= lower {
            throw ValidationError("--to \(upper.iso8601) must be after --from \(lower.iso8601) (--to is exclusive)")
        }
        let rows: [AgendaRow]
        var dayWeather: [Int: DailyForecast] = [:]
        let reader = try SQLiteAgendaReader(path: input)
        // As `query` says it: days asked for outside what the database's last run wrote hold only what earlier runs kept.
        if let stored = try reader.meta()?.window, let lower, let upper, lower < stored.from || upper > stored.to {
            Terminal.error("calpipe: note: \(input) holds the days \(stored.from.iso8601) to \(stored.to.adding(days: -1).iso8601) (the window of its "
                           + "last run); days outside them show only what earlier runs kept")
        }
        rows = try reader.rows(from: lower, to: upper)
        // The days table's weather per day (issue 17), empty days included.
        let from = lower ?? CivilDate(year: 1, month: 1, day: 1), through = upper ?? CivilDate(year: 9999, month: 12, day: 31)
        for day in try reader.agendaDays(from: from, to: through, zone: .utc, everyDay: false) {
            if let f = day.weather?.forecast { dayWeather[day.date.daysSinceEpoch] = f }
        }
        var byDay: [Int: TerminalAgenda.Day] = [:]
        for row in rows {
            guard let date = ISODate.parseDate(row.day) else { continue }
            var day = byDay[date.daysSinceEpoch] ?? TerminalAgenda.Day(date: date, weather: nil, entries: [])
            if day.weather == nil, let f = dayWeather[date.daysSinceEpoch] {
                day.weather = TerminalAgenda.Weather(summary: f.summary, high: f.temperatureMax, low: f.temperatureMin,
                                                     precipitationProbability: f.precipitationProbability)
            }
            if day.weather == nil, row.forecastStatus == "forecast" {
                day.weather = TerminalAgenda.Weather(summary: row.forecastSummary, high: row.temperatureMax, low: row.temperatureMin,
                                                     precipitationProbability: row.precipitationProbability)
            }
            day.entries.append(TerminalAgenda.Entry(
                allDay: row.allDay, start: AgendaFormatter.clock(row.startLocal, day: row.day), durationSeconds: row.durationSeconds,
                title: row.title.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)", location: row.location, color: row.color,
                attendees: row.attendees.filter { !$0.isEmpty }, part: row.part, parts: row.parts, status: row.status))
            byDay[date.daysSinceEpoch] = day
        }
        for (n, f) in dayWeather where byDay[n] == nil {
            byDay[n] = TerminalAgenda.Day(date: CivilDate(daysSinceEpoch: n), weather: TerminalAgenda.Weather(
                summary: f.summary, high: f.temperatureMax, low: f.temperatureMin, precipitationProbability: f.precipitationProbability), entries: [])
        }
        guard let first = lower ?? byDay.keys.min().map(CivilDate.init(daysSinceEpoch:)),
              let end = upper ?? byDay.keys.max().map({ CivilDate(daysSinceEpoch: $0 + 1) }) else { return [] }
        return Self.allDays(first, end, byDay)
    }
}

/// Keeps the day entries of a pipeline run for `calpipe agenda`: per day the first `cap` in agenda order and a
/// count of the rest, so a huge feed does not grow memory beyond days x cap.
/// @unchecked Sendable: what it keeps is written on the sinks' thread and read after the run (the `Sink` contract
/// orders the calls; the run's end joins that thread).
final class AgendaCollector: Sink, @unchecked Sendable {
    private struct Kept {
        var key: (Bool, Int64, String, String, Int64)
        var entry: TerminalAgenda.Entry
        var forecast: ForecastResult?
    }

    private let lower: Int
    private let upper: Int
    private let cap: Int
    private var kept: [Int: [Kept]] = [:]
    private var counts: [Int: Int] = [:]
    /// Weather given to whole days (the per-day model of the agenda-day issue), preferred to entries' forecasts.
    private var dayWeather: [Int: ForecastResult] = [:]

    /// Gives a day its own weather (from `Batch.agendaDays` once the forecast stage makes day headers).
    func setWeather(_ weather: ForecastResult, forDay n: Int) { dayWeather[n] = weather }

    init(range lower: Int, _ upper: Int, cap: Int = 200) {
        self.lower = lower
        self.upper = upper
        self.cap = cap
    }

    var needs: BatchContent { .days }
    var label: String { "agenda" }
    func open(context: RunContext) throws {}
    func commit(context: RunContext) throws -> Int { counts.values.reduce(0, +) }
    func abort(context: RunContext) {}

    private static func before(_ a: (Bool, Int64, String, String, Int64), _ b: (Bool, Int64, String, String, Int64)) -> Bool {
        if a.0 != b.0 { return a.0 }
        if a.1 != b.1 { return a.1 < b.1 }
        if a.2 != b.2 { return a.2 < b.2 }
        if a.3 != b.3 { return a.3 < b.3 }
        return a.4 < b.4
    }

    func write(_ batch: Batch, context: RunContext) throws {
        for header in batch.agendaDays { if let w = header.weather { dayWeather[header.date.daysSinceEpoch] = w.result } }
        for entry in batch.days {
            let n = entry.day.daysSinceEpoch
            guard n >= lower, n < upper else { continue }
            counts[n, default: 0] += 1
            let event = entry.event
            let key = (entry.allDay, entry.startUTC, event.title ?? "", event.uid, entry.endUTC)
            var list = kept[n] ?? []
            if list.count >= cap, !Self.before(key, list[list.count - 1].key) { continue }
            let line = TerminalAgenda.Entry(
                allDay: entry.allDay, start: entry.start.shortTimeText, durationSeconds: entry.durationSeconds,
                title: event.title.flatMap { $0.isEmpty ? nil : $0 } ?? "(no title)", location: event.location,
                // The event's own colour as written; else its source's `color` or its calendar's, as on the page.
                color: event.color ?? event.agendaColor(sourceColors: context.runState.sourceColors),
                attendees: event.attendees.map { $0.name ?? $0.email ?? "?" }, part: entry.part, parts: entry.parts, status: event.status)
            let index = list.firstIndex { Self.before(key, $0.key) } ?? list.count
            list.insert(Kept(key: key, entry: line, forecast: entry.forecast), at: index)
            if list.count > cap { list.removeLast() }
            kept[n] = list
        }
    }

    /// The collected days. A day's weather is its first entry's forecast (agenda order) until the forecast stage
    /// gives every day its own.
    func days() -> [Int: TerminalAgenda.Day] {
        var out: [Int: TerminalAgenda.Day] = [:]
        for n in Set(kept.keys).union(dayWeather.keys) {
            let list = kept[n] ?? []
            var weather: TerminalAgenda.Weather?
            for item in (dayWeather[n].map { [$0] } ?? list.map(\.forecast)) {
                if case .forecast(let f, _)? = item {
                    weather = TerminalAgenda.Weather(summary: f.summary, high: f.temperatureMax, low: f.temperatureMin,
                                                     precipitationProbability: f.precipitationProbability)
                    break
                }
            }
            out[n] = TerminalAgenda.Day(date: CivilDate(daysSinceEpoch: n), weather: weather, entries: list.map(\.entry),
                                        more: (counts[n] ?? 0) - list.count)
        }
        return out
    }
}
