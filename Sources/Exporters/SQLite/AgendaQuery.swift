import Foundation
import Pipeline

/// A range of days asked of a database the sqlite sink wrote, and its days document: what `calpipe query --json`
/// prints and what `calpipe serve` answers at `/NAME/days` (the same bytes for the same range and run time).
package struct AgendaQuery: Sendable {
    /// A parameter that cannot be read or combined: `parameter` is its name without dashes ("from").
    package struct ParameterError: Error, Sendable, Equatable {
        package enum Problem: Sendable, Equatable {
            case invalidDay(String)
            case combined
            case dayCount(Int)
            case notAfter(upper: CivilDate, lower: CivilDate)
        }
        package var parameter: String
        package var problem: Problem

        /// One line, with the parameters named by `name` (`{"--" + $0}` for the command line's options).
        package func message(name: (String) -> String) -> String {
            switch problem {
            case .invalidDay(let text):
                return "\(name(parameter)): invalid day \"\(text)\" (expected YYYY-MM-DD, today, tomorrow, yesterday, +N, -N, "
                    + "a weekday such as monday, today+Nd or today-Nw)"
            case .combined:
                return "\(name("day")) and \(name("days")) cannot be combined with \(name("from")) or \(name("to"))"
            case .dayCount(let n):
                return "\(name("days")): expected a number of days from 1 to 3660, got \(n)"
            case .notAfter(let upper, let lower):
                return "\(name("to")) \(upper.iso8601) must be after \(name("from")) \(lower.iso8601) (\(name("to")) is exclusive)"
            }
        }
    }

    package var day: String?
    package var days: Int?
    package var from: String?
    package var to: String?

    package init(day: String? = nil, days: Int? = nil, from: String? = nil, to: String? = nil) {
        self.day = day
        self.days = days
        self.from = from
        self.to = to
    }

    /// The days asked for: `lower ..< upper`, and whether every day of it is listed (empty ones included).
    package struct Range: Sendable, Equatable {
        package var lower: CivilDate
        package var upper: CivilDate
        package var everyDay: Bool
    }

    /// The combinations and counts that cannot be asked, checked before anything is read.
    package func check() throws(ParameterError) {
        if (day != nil || days != nil) && (from != nil || to != nil) {
            throw ParameterError(parameter: day != nil ? "day" : "days", problem: .combined)
        }
        if let days, days < 1 || days > 3660 { throw ParameterError(parameter: "days", problem: .dayCount(days)) }
    }

    /// The range for `today`; without a day or range, the window the database was last run with (`stored`).
    package func range(today: CivilDate, stored: Window?) throws(ParameterError) -> Range {
        try check()
        var range: Range
        if day != nil || days != nil {
            let lower = try day.map { text throws(ParameterError) in try Self.parseDay(text, parameter: "day", today: today) } ?? today
            range = Range(lower: lower, upper: lower.adding(days: days ?? 1), everyDay: true)
        } else if from != nil || to != nil {
            let lower = try from.map { text throws(ParameterError) in try Self.parseDay(text, parameter: "from", today: today) } ?? CivilDate(year: 1, month: 1, day: 1)
            let upper = try to.map { text throws(ParameterError) in try Self.parseDay(text, parameter: "to", today: today) } ?? CivilDate(year: 9999, month: 12, day: 31)
            range = Range(lower: lower, upper: upper, everyDay: from != nil && to != nil)
        } else if let stored {
            range = Range(lower: stored.from, upper: stored.to, everyDay: true)
        } else {
            range = Range(lower: CivilDate(year: 1, month: 1, day: 1), upper: CivilDate(year: 9999, month: 12, day: 31), everyDay: false)
        }
        if range.upper <= range.lower {
            throw ParameterError(parameter: "to", problem: .notAfter(upper: range.upper, lower: range.lower))
        }
        return range
    }

    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// A day as `calpipe query` reads it: YYYY-MM-DD, today, tomorrow, yesterday, +N, -N, a weekday (the next
    /// such day, today included), today+Nd or today-Nw.
    package static func parseDay(_ text: String, parameter: String, today: CivilDate) throws(ParameterError) -> CivilDate {
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
            let ahead = (index + 1 - today.isoWeekday + 7) % 7
            return today.adding(days: ahead)
        }
        if let date = Window.parseBound(t, today: today) { return date }
        throw ParameterError(parameter: parameter, problem: .invalidDay(text))
    }
}

/// A database opened for queries: its reader, what its `meta` row says, its zone and today in it.
package struct AgendaDatabase {
    package let reader: SQLiteAgendaReader
    package let meta: AgendaMeta?
    package let zone: Zone
    package let today: CivilDate

    /// Today as pipelines read it: SOURCE_DATE_EPOCH when set, else the clock, in the zone the database was written in.
    package init(path: String, environment: [String: String], zones: ZoneDatabase = ZoneDatabase()) throws {
        reader = try SQLiteAgendaReader(path: path)
        meta = try reader.meta()
        zone = meta.flatMap { zones.zone(named: $0.timezone) } ?? zones.defaultZone(environment: environment)
        today = PipelineEnvironment.today(in: zone, now: Date(timeIntervalSince1970: TimeInterval(PipelineEnvironment.runTime(environment: environment))))
    }

    package func days(_ range: AgendaQuery.Range) throws -> [AgendaDay] {
        try reader.agendaDays(from: range.lower, to: range.upper, zone: zone, everyDay: range.everyDay)
    }

    /// The days document of the range (`calpipe query --json`).
    package func daysDocument(_ range: AgendaQuery.Range) throws -> String {
        DaysDocument.render(try days(range), pipeline: meta?.pipeline ?? "", zone: zone, window: meta?.window, locale: meta?.locale ?? "en",
                            generatedAt: meta?.generatedAt ?? 0, today: today)
    }
}
