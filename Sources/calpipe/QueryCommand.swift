import ArgumentParser
import Exporters
import Foundation
import Pipeline

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the agenda stored in a database written by the sqlite sink.",
        discussion: """
            Shows days with a header (weekday, date, the day's weather) and their entries in agenda order (all-day \
            first, then by start time, then title); a day without entries says "no events". Lines are cut to the \
            terminal's width. Days are YYYY-MM-DD, today, tomorrow, yesterday, +3, -1, a weekday (monday: the next \
            Monday, today included), today+7d or today-2w, in the pipeline's zone; --to is exclusive, like a \
            pipeline's window. Without a day or range, the pipeline's window is printed.

            Example:
              calpipe query out/agenda.db --day tomorrow
              calpipe query out/agenda.db --day monday --days 7
              calpipe query out/agenda.db --from 2026-11-01 --to 2026-12-01 --json
            """
    )

    @Argument(help: "The database file.")
    var database: String

    @Option(help: "Show this day (with --days, the first of them).")
    var day: String?

    @Option(help: "Show this many days (from --day, else from today).")
    var days: Int?

    @Option(help: "Show days from this one on.")
    var from: String?

    @Option(help: "Show days before this one (exclusive).")
    var to: String?

    @Option(help: "Cut lines to this many characters (default: the terminal's width; no cut when not a terminal).")
    var width: Int?

    @Flag(help: "Print the days document (the json sink's shape) instead of a table.")
    var json = false

    func validate() throws {
        if (day != nil || days != nil) && (from != nil || to != nil) {
            throw ValidationError("--day and --days cannot be combined with --from or --to")
        }
        if let days, days < 1 || days > 3660 { throw ValidationError("--days: expected a number of days from 1 to 3660, got \(days)") }
        if let width, width < 20 { throw ValidationError("--width: expected at least 20 characters, got \(width)") }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let zones = ZoneDatabase()
        let reader = try SQLiteAgendaReader(path: database)
        let meta = try reader.meta()
        let zone = meta.flatMap { zones.zone(named: $0.timezone) } ?? zones.defaultZone(environment: environment)
        // Today as pipelines read it: SOURCE_DATE_EPOCH when set, else the clock.
        let today = PipelineEnvironment.today(in: zone, now: Date(timeIntervalSince1970: TimeInterval(PipelineEnvironment.runTime(environment: environment))))
        var lower: CivilDate
        var upper: CivilDate
        var everyDay = true
        if day != nil || days != nil {
            lower = try day.map { try QueryDay.parse($0, option: "day", today: today) } ?? today
            upper = lower.adding(days: days ?? 1)
        } else if from != nil || to != nil {
            lower = try from.map { try QueryDay.parse($0, option: "from", today: today) } ?? CivilDate(year: 1, month: 1, day: 1)
            upper = try to.map { try QueryDay.parse($0, option: "to", today: today) } ?? CivilDate(year: 9999, month: 12, day: 31)
            everyDay = from != nil && to != nil
        } else if let window = meta?.window {
            (lower, upper) = (window.from, window.to)
        } else {
            (lower, upper) = (CivilDate(year: 1, month: 1, day: 1), CivilDate(year: 9999, month: 12, day: 31))
            everyDay = false
        }
        if upper <= lower {
            throw ValidationError("--to \(upper.iso8601) must be after --from \(lower.iso8601) (--to is exclusive)")
        }
        let agenda = try reader.agendaDays(from: lower, to: upper, zone: zone, everyDay: everyDay)
        // Days outside the window the database was last run with hold only what earlier runs kept: say so, so an
        // empty day there is not read as a free one.
        let stored = meta?.window
        if let stored, lower < stored.from || upper > stored.to {
            Terminal.error("calpipe: note: \(database) holds the days \(stored.from.iso8601) to \(stored.to.adding(days: -1).iso8601) (the window of its "
                           + "last run); days outside them show only what earlier runs kept")
        }
        if json {
            print(DaysDocument.render(agenda, pipeline: meta?.pipeline ?? "", zone: zone, window: meta?.window, locale: meta?.locale ?? "en",
                                      generatedAt: meta?.generatedAt ?? 0, today: today), terminator: "")
        } else {
            let names = WeekdayNames(locale: meta?.locale ?? "en")
            print(AgendaFormatter.table(agenda, names: names, today: today, width: width ?? Terminal.outputWidth, stored: stored), terminator: "")
        }
    }
}

/// The day words of `calpipe query`.
enum QueryDay {
    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    static func parse(_ text: String, option: String, today: CivilDate) throws -> CivilDate {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch t {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        case "yesterday": return today.adding(days: -1)
        default: break
        }
        if let first = t.first, first == "+" || first == "-", let n = Int(t.dropFirst()), n <= 100_000 {
            return today.adding(days: first == "-" ? -n : n)
        }
        if t.count >= 3, let index = weekdays.firstIndex(where: { $0.hasPrefix(t) }) {
            // The next such day, today included.
            let ahead = (index + 1 - today.isoWeekday + 7) % 7
            return today.adding(days: ahead)
        }
        if let date = Window.parseBound(t, today: today) { return date }
        throw ValidationError("--\(option): invalid day \"\(text)\" (expected YYYY-MM-DD, today, tomorrow, yesterday, +N, -N, a weekday such as monday, today+Nd or today-Nw)")
    }
}

/// Renders days for `calpipe query`: a header per day with its weather, then its entries, cut to a width.
enum AgendaFormatter {
    static func number(_ value: Double) -> String { JSONWriter.numberText(value) }

    /// "HH:MM" of a local ISO date-time, "24:00" for the next day's midnight (`calpipe agenda` reads rows with it).
    static func clock(_ local: String, day: String) -> String {
        let chars = Array(local)
        guard chars.count >= 16 else { return local }
        if String(chars[0..<10]) > day { return "24:00" }
        return String(chars[11..<16])
    }

    /// "Overcast, -1…4 °C, 54% snow": one daily record, so the precipitation's kind agrees with the summary.
    static func weather(_ w: DayWeather?) -> String {
        guard let w else { return "" }
        switch w.result {
        case .missing(let reason):
            return "(no weather: \(reason))"
        case .forecast(let f, _):
            var parts: [String] = []
            if let s = f.summary { parts.append(s) }
            let unit = f.units == "imperial" ? " °F" : " °C"
            if let lo = f.temperatureMin, let hi = f.temperatureMax { parts.append(number(lo) + "…" + number(hi) + unit) }
            if let p = f.precipitationProbability { parts.append(number(p) + "% " + WeatherIcon.precipitationKind(forCode: f.weatherCode)) }
            return parts.joined(separator: ", ")
        }
    }

    /// "10:00-11:00", "22:00-24:00" when it runs to the next midnight, or "all day".
    static func time(_ entry: DayEntry) -> String {
        if entry.allDay { return "all day" }
        let end = entry.end.date > entry.day ? "24:00" : entry.end.shortTimeText
        return entry.start.shortTimeText + "-" + end
    }

    static func cut(_ line: String, to width: Int?) -> String {
        guard let width, line.count > width else { return line }
        return String(line.prefix(width - 1)) + "…"
    }

    /// `stored`: the window the database was last run with; an empty day outside it says so.
    static func table(_ days: [AgendaDay], names: WeekdayNames, today: CivilDate, width: Int?, stored: Window? = nil) -> String {
        guard !days.isEmpty else { return "no agenda entries\n" }
        var out = ""
        for day in days {
            var header = names.shortName(of: day.date) + " " + day.date.iso8601
            if day.date == today { header += " (today)" }
            let w = weather(day.weather)
            if !w.isEmpty { header += "  " + w }
            out += cut(header, to: width) + "\n"
            if day.entries.isEmpty {
                if let stored, day.date < stored.from || day.date >= stored.to {
                    out += "  no events stored for this day (the database holds \(stored.from.iso8601) to \(stored.to.adding(days: -1).iso8601))\n"
                } else {
                    out += "  no events\n"
                }
            }
            for entry in day.entries {
                var title = entry.event.title ?? "(no title)"
                if entry.parts > 1 { title += " (\(entry.part)/\(entry.parts))" }
                var cells = ["  " + time(entry).padding(toLength: 11, withPad: " ", startingAt: 0), title]
                if let location = entry.event.location, !location.isEmpty { cells.append(location) }
                let people = entry.event.attendees.map { $0.name ?? $0.email ?? "" }.filter { !$0.isEmpty }
                if !people.isEmpty { cells.append(people.joined(separator: ", ")) }
                if case .forecast? = entry.forecast { cells.append("[" + weather(DayWeather(result: entry.forecast!)) + "]") }
                out += cut(cells.joined(separator: "  "), to: width) + "\n"
            }
        }
        return out
    }
}
