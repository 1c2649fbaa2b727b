import ArgumentParser
import Exporters
import Foundation
import Pipeline

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the agenda stored in a database written by the sqlite sink.",
        discussion: """
            Shows day entries in agenda order (all-day first, then by start time, then title), as a table or as
            JSON. Days are given as YYYY-MM-DD, "today", "today+7d" or "today-2w"; --to is exclusive, like a
            pipeline's window. Without a day or range, the whole agenda is printed.

            Example:
              calpipe query out/agenda.db --day today
              calpipe query out/agenda.db --from 2026-11-01 --to 2026-12-01 --json
            """
    )

    @Argument(help: "The database file.")
    var database: String

    @Option(help: "Show one day.")
    var day: String?

    @Option(help: "Show days from this one on.")
    var from: String?

    @Option(help: "Show days before this one (exclusive).")
    var to: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        if day != nil && (from != nil || to != nil) {
            throw ValidationError("--day cannot be combined with --from or --to")
        }
    }

    private func parseDay(_ text: String, option: String, today: CivilDate) throws -> CivilDate {
        guard let date = Window.parseBound(text, today: today) else {
            throw ValidationError("--\(option): invalid day \"\(text)\" (expected YYYY-MM-DD, today, today+Nd or today-Nw)")
        }
        return date
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let zone = ZoneDatabase().defaultZone(environment: environment)
        let today = PipelineEnvironment.today(in: zone)
        var lower: CivilDate?
        var upper: CivilDate?
        if let day {
            lower = try parseDay(day, option: "day", today: today)
            upper = lower?.adding(days: 1)
        }
        if let from { lower = try parseDay(from, option: "from", today: today) }
        if let to { upper = try parseDay(to, option: "to", today: today) }
        if let lower, let upper, upper <= lower {
            throw ValidationError("--to \(upper.iso8601) must be after --from \(lower.iso8601) (--to is exclusive)")
        }
        let rows: [AgendaRow]
        do {
            rows = try SQLiteAgendaReader(path: database).rows(from: lower, to: upper)
        } catch {
            Terminal.error("calpipe: error: \(error)")
            throw CalpipeExit.failed.code
        }
        print(json ? AgendaFormatter.json(rows) : AgendaFormatter.table(rows), terminator: "")
    }
}

/// Renders agenda rows for `calpipe query`: an aligned text table or JSON.
enum AgendaFormatter {
    /// "10:00-11:00", "22:00-24:00" when it runs to the next midnight, or "all day".
    static func time(_ row: AgendaRow) -> String {
        if row.allDay { return "all day" }
        return clock(row.startLocal, day: row.day) + "-" + clock(row.endLocal, day: row.day)
    }

    /// "HH:MM" of a local ISO date-time, "24:00" for the next day's midnight.
    static func clock(_ local: String, day: String) -> String {
        let chars = Array(local)
        guard chars.count >= 16 else { return local }
        if String(chars[0..<10]) > day { return "24:00" }
        return String(chars[11..<16])
    }

    static func number(_ value: Double) -> String { JSONWriter.numberText(value) }

    static func forecast(_ row: AgendaRow) -> String {
        switch row.forecastStatus {
        case "forecast"?:
            var parts: [String] = []
            if let s = row.forecastSummary { parts.append(s) }
            let unit = row.forecastUnits == "imperial" ? "°F" : "°C"
            if let lo = row.temperatureMin, let hi = row.temperatureMax { parts.append(number(lo) + "…" + number(hi) + unit) }
            if let p = row.precipitationProbability { parts.append(number(p) + "% rain") }
            return parts.joined(separator: ", ")
        case "missing"?: return "(" + (row.forecastReason ?? "missing") + ")"
        default: return ""
        }
    }

    static func table(_ rows: [AgendaRow]) -> String {
        guard !rows.isEmpty else { return "no agenda entries\n" }
        let showForecast = rows.contains { $0.forecastStatus != nil }
        var header = ["DAY", "TIME", "TITLE", "LOCATION", "ATTENDEES"]
        if showForecast { header.append("FORECAST") }
        var lines: [[String]] = [header]
        for row in rows {
            var title = row.title ?? "(no title)"
            if row.parts > 1 { title += " (\(row.part)/\(row.parts))" }
            var line = [row.day, time(row), title, row.location ?? "", row.attendees.joined(separator: ", ")]
            if showForecast { line.append(forecast(row)) }
            lines.append(line)
        }
        var widths = Array(repeating: 0, count: header.count)
        for line in lines { for (i, cell) in line.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for line in lines {
            var text = ""
            for (i, cell) in line.enumerated() {
                text += cell
                if i < line.count - 1 { text += String(repeating: " ", count: widths[i] - cell.count + 2) }
            }
            while text.hasSuffix(" ") { text.removeLast() }
            out += text + "\n"
        }
        return out
    }

    static func json(_ rows: [AgendaRow]) -> String {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func num(_ d: Double?) -> JSONValue { d.map(JSONValue.number) ?? .null }
        let items: [JSONValue] = rows.map { row in
            var forecast: JSONValue = .null
            if let status = row.forecastStatus {
                forecast = .object(JSONObject([
                    ("status", .string(status)), ("reason", text(row.forecastReason)), ("summary", text(row.forecastSummary)),
                    ("temperature_min", num(row.temperatureMin)), ("temperature_max", num(row.temperatureMax)),
                    ("precipitation_probability", num(row.precipitationProbability)), ("units", text(row.forecastUnits)),
                ]))
            }
            return .object(JSONObject([
                ("day", .string(row.day)),
                ("all_day", .bool(row.allDay)),
                ("start", row.allDay ? .null : .string(clock(row.startLocal, day: row.day))),
                ("end", row.allDay ? .null : .string(clock(row.endLocal, day: row.day))),
                ("starts_at_local", .string(row.startLocal)),
                ("ends_at_local", .string(row.endLocal)),
                ("duration_minutes", .number(Double(row.durationSeconds / 60))),
                ("part", .number(Double(row.part))),
                ("parts", .number(Double(row.parts))),
                ("title", text(row.title)),
                ("location", text(row.location)),
                ("color", text(row.color)),
                ("status", text(row.status)),
                ("attendees", .array(row.attendees.map(JSONValue.string))),
                ("source", .string(row.source)),
                ("uid", .string(row.uid)),
                ("recurrence_id", row.recurrenceID.isEmpty ? .null : .string(row.recurrenceID)),
                ("forecast", forecast),
            ]))
        }
        return JSONWriter(pretty: true).string(.array(items)) + "\n"
    }
}
