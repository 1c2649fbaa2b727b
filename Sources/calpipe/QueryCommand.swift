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

    var query: AgendaQuery { AgendaQuery(day: day, days: days, from: from, to: to) }

    func validate() throws {
        do { try query.check() } catch { throw ValidationError(error.message { "--" + $0 }) }
        if let width, width < 20 { throw ValidationError("--width: expected at least 20 characters, got \(width)") }
    }

    func run() throws {
        let database = try AgendaDatabase(path: self.database, environment: ProcessInfo.processInfo.environment)
        let meta = database.meta
        let range: AgendaQuery.Range
        do { range = try query.range(today: database.today, stored: meta?.window) } catch { throw ValidationError(error.message { "--" + $0 }) }
        // Days outside the window the database was last run with hold only what earlier runs kept: say so, so an
        // empty day there is not read as a free one.
        let stored = meta?.window
        if let stored, range.lower < stored.from || range.upper > stored.to {
            Terminal.error("calpipe: note: \(self.database) holds the days \(stored.from.iso8601) to \(stored.to.adding(days: -1).iso8601) (the window of its "
                           + "last run); days outside them show only what earlier runs kept")
        }
        if json {
            print(try database.daysDocument(range), terminator: "")
        } else {
            let names = WeekdayNames(locale: meta?.locale ?? "en")
            print(AgendaFormatter.table(try database.days(range), names: names, today: database.today, width: width ?? Terminal.outputWidth, stored: stored),
                  terminator: "")
        }
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
