import CalSQLite
import Foundation
import Pipeline

/// One row of the `agenda` view, as `calpipe query` shows it.
package struct AgendaRow: Hashable, Sendable {
    package var day: String
    package var allDay: Bool
    /// Local start and end ("2026-11-10T10:00:00"); the end may be the next day's 00:00.
    package var startLocal: String
    package var endLocal: String
    package var durationSeconds: Int64
    package var part: Int
    package var parts: Int
    package var title: String?
    package var location: String?
    package var color: String?
    package var status: String?
    package var attendees: [String]
    package var source: String
    package var uid: String
    package var recurrenceID: String
    /// "forecast" or "missing", nil when no forecast stage ran.
    package var forecastStatus: String?
    package var forecastReason: String?
    package var forecastSummary: String?
    package var temperatureMin: Double?
    package var temperatureMax: Double?
    package var precipitationProbability: Double?
    package var forecastUnits: String?
}

/// Reads the agenda of a database the sqlite sink wrote, read-only.
package final class SQLiteAgendaReader {
    let db: Database
    package let path: String

    package init(path: String) throws {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CalpipeError.sqlite(path, "no such file")
        }
        if isFolder.boolValue { throw CalpipeError.sqlite(path, "cannot read: it is a folder, not a file") }
        // A file that is not a database at all (a calendar, a JSON document) is named as such, before SQLite's
        // own reading would call it damaged.
        if let handle = FileHandle(forReadingAtPath: path) {
            let head = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if head != Data("SQLite format 3\u{0}".utf8) {
                throw CalpipeError.sqlite(path, head.isEmpty ? "cannot read: the file is empty, not a calpipe agenda database"
                    : "cannot read: not a SQLite database (this reads what a pipeline's sqlite sink wrote; for a calendar file: "
                    + "calpipe convert FILE -o agenda.sqlite)")
            }
        }
        do {
            db = try Database(path: path, configuration: .init(readOnly: true, busyTimeoutMilliseconds: 5_000))
            let version = try db.userVersion
            if version > SQLiteSchema.currentVersion {
                throw CalpipeError.newerSchema(version: version).inFile("sqlite " + path)
            }
            let hasAgenda = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'agenda'") == 1
            if version == 0 || !hasAgenda {
                throw CalpipeError.sqlite(path, "not a calpipe agenda database (no agenda view); write one with a pipeline's sqlite sink")
            }
            if version < SQLiteSchema.currentVersion {
                throw CalpipeError.sqlite(path, "written by an older calpipe (schema version \(version)); run a pipeline into it once to upgrade it")
            }
        } catch {
            throw CalpipeError.sqlite(wrapping: error, path: path, busyTimeout: 5_000)
        }
    }

    /// Rows with `from <= day < to` (either bound may be nil), in display order.
    package func rows(from: CivilDate? = nil, to: CivilDate? = nil) throws -> [AgendaRow] {
        do {
            let statement = try db.prepare("""
                SELECT day, all_day, start_local, end_local, duration_seconds, part, parts, title, location, color, status,
                       source, uid, recurrence_id, forecast_status, forecast_reason, forecast_summary,
                       temperature_min, temperature_max, precipitation_probability, forecast_units, event_id
                FROM agenda WHERE day >= ?1 AND day < ?2
                ORDER BY day, sort_key, title, uid, end_utc
                """)
            try statement.bind(from?.iso8601 ?? "", at: 1)
            try statement.bind(to?.iso8601 ?? "~", at: 2)
            let attendees = try db.prepare("SELECT coalesce(name, email, '') FROM attendees WHERE event_id = ? ORDER BY position")
            var out: [AgendaRow] = []
            try statement.forEachRow { s in
                try attendees.bind(s.int64(at: 21), at: 1)
                var names: [String] = []
                try attendees.forEachRow { names.append($0.text(at: 0) ?? "") }
                out.append(AgendaRow(
                    day: s.text(at: 0) ?? "", allDay: s.bool(at: 1), startLocal: s.text(at: 2) ?? "", endLocal: s.text(at: 3) ?? "",
                    durationSeconds: s.int64(at: 4), part: s.int(at: 5), parts: s.int(at: 6), title: s.text(at: 7),
                    location: s.text(at: 8), color: s.text(at: 9), status: s.text(at: 10), attendees: names,
                    source: s.text(at: 11) ?? "", uid: s.text(at: 12) ?? "", recurrenceID: s.text(at: 13) ?? "",
                    forecastStatus: s.text(at: 14), forecastReason: s.text(at: 15), forecastSummary: s.text(at: 16),
                    temperatureMin: s.optionalDouble(at: 17), temperatureMax: s.optionalDouble(at: 18),
                    precipitationProbability: s.optionalDouble(at: 19), forecastUnits: s.text(at: 20)))
            }
            return out
        } catch {
            throw CalpipeError.sqlite(wrapping: error, path: path, busyTimeout: 5_000)
        }
    }
}
