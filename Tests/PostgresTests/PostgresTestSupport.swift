import CalSQLite
import Foundation
import XCTest

/// Pipelines, runs of the built `calpipe` and table snapshots for the postgres sink's tests.
enum PostgresTestSupport {
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-pg-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The built `calpipe`, next to the test bundle.
    static var binary: URL {
        final class Marker {}
        let bundle = Bundle(for: Marker.self).bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    struct Result {
        var code: Int32
        var stderr: String
        var seconds: Double
    }

    /// Starts `calpipe arguments` in `directory` (TZ=UTC, a fixed run time, calpipe's folders inside `directory`).
    static func start(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["SOURCE_DATE_EPOCH"] = "1792483200"  // 2026-10-20T08:00:00Z
        env["CALPIPE_LOCKS"] = directory.appendingPathComponent("locks").path
        env["CALPIPE_STATE"] = directory.appendingPathComponent("state").path
        env["CALPIPE_CACHE"] = directory.appendingPathComponent("cache").path
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, err)
    }

    static func finish(_ started: (Process, Pipe), since: Date) -> Result {
        let data = started.1.fileHandleForReading.readDataToEndOfFile()
        started.0.waitUntilExit()
        return Result(code: started.0.terminationStatus, stderr: String(decoding: data, as: UTF8.self), seconds: Date().timeIntervalSince(since))
    }

    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> Result {
        let began = Date()
        return finish(try start(arguments, in: directory, environment: environment), since: began)
    }

    /// A pipeline file: `sources` (name, ICS or JSON path), expand, split, the forecast file of the demo, and `sinks`.
    static func writePipeline(_ url: URL, sources: [(name: String, path: String)], sinks: [String], forecast: Bool = true,
                              window: (String, String)? = ("2026-10-12", "2026-11-23")) throws {
        let root = repositoryRoot.path
        let sourceText = sources.map { s in
            let type = s.path.hasSuffix(".json") ? "json" : "ics"
            return "{ \"type\": \"\(type)\", \"name\": \"\(s.name)\", \"path\": \"\(s.path)\" }"
        }.joined(separator: ", ")
        let windowText = window.map { ", \"window\": { \"from\": \"\($0.0)\", \"to\": \"\($0.1)\" }" } ?? ""
        let forecastText = forecast ? ", { \"type\": \"forecast\", \"provider\": \"file\", \"path\": \"\(root)/data/forecast-sample.json\" }" : ""
        let text = """
            { "name": "pgtest", "timezone": "Europe/Berlin"\(windowText), "location": { "latitude": 52.52, "longitude": 13.41 },
              "sources": [ \(sourceText) ],
              "stages": [ { "type": "expand" }, { "type": "split" }\(forecastText) ],
              "sinks": [ \(sinks.joined(separator: ", ")) ] }
            """
        try Data(text.utf8).write(to: url)
    }

    /// The demo's sources: the sample agenda (JSON) and four published ICS feeds.
    static var demoSources: [(name: String, path: String)] {
        let root = repositoryRoot.path
        return [
            ("sample", "\(root)/data/agenda.json"),
            ("Family", "\(root)/Tests/Fixtures/html/icloud-family.ics"),
            ("Holidays", "\(root)/Tests/Fixtures/html/google-holidays-de.ics"),
            ("DevConf", "\(root)/Tests/Fixtures/html/rfc7986-devconf.ics"),
            ("Team", "\(root)/Tests/Fixtures/html/outlook-team.ics"),
        ]
    }

    #if Postgres
    static func postgresSink(_ cluster: PostgresCluster, schema: String, extra: String = "") -> String {
        "{ \"type\": \"postgres\", \"connection\": \"\(cluster.url)\", \"schema\": \"\(schema)\"\(extra) }"
    }

    #endif

    /// The agenda tables as rows of text keyed by their natural keys (ids left out), the same SQL on both databases.
    static let comparedQueries: [(table: String, sql: String)] = [
        ("events", """
            SELECT source, uid, recurrence_id, this_and_future, title, description, location, latitude, longitude, organizer_name,
                organizer_email, organizer_parameters, categories, color, url, status, all_day, dtstart, dtstart_tzid, start_utc, dtend,
                dtend_tzid, duration, end_utc, span_end_utc, rrule, exrule, rdate, exdate, other_properties, components,
                field_parameters, metadata, source_text, content_hash, text_hash, origin, created_run, updated_run, removed_run
            FROM events ORDER BY source, uid, recurrence_id
            """),
        ("attendees", """
            SELECT e.source, e.uid, e.recurrence_id, a.position, a.name, a.email, a.role, a.status, a.other_parameters
            FROM attendees a JOIN events e ON e.id = a.event_id ORDER BY 1, 2, 3, 4
            """),
        ("occurrences", """
            SELECT e.source, e.uid, e.recurrence_id, o.instance, o.all_day, o.start_utc, o.end_utc, o.start_local, o.end_local, o.removed_run
            FROM occurrences o JOIN events e ON e.id = o.event_id ORDER BY 1, 2, 3, 4
            """),
        ("day_entries", """
            SELECT e.source, e.uid, e.recurrence_id, o.instance, d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local,
                d.start_utc, d.end_utc, d.sort_key, d.removed_run
            FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id JOIN events e ON e.id = d.event_id ORDER BY 1, 2, 3, 4, 5
            """),
        ("days", "SELECT * FROM days ORDER BY date"),
        // The view, with the forecast stage's weather per day entry (`forecasts`); its id columns left out.
        ("agenda", """
            SELECT day, part, parts, all_day, start_local, end_local, start_utc, end_utc, duration_seconds, title, location, color, status,
                description, attendees, forecast_status, forecast_reason, forecast_summary, weather_code, temperature_min, temperature_max,
                precipitation_probability, precipitation_amount, wind_speed_max, forecast_units, forecast_provider, source, uid, recurrence_id,
                instance, sort_key, day_weekday, day_weather_status, day_weather_reason, day_icon, day_summary, day_temperature_max,
                day_temperature_min, day_precipitation_probability, day_units, timezone
            FROM agenda ORDER BY day, sort_key, coalesce(title, ''), uid, end_utc, source, recurrence_id, instance
            """),
        ("meta", "SELECT pipeline, timezone, window_from, window_to, locale, generated_at FROM meta"),
    ]

    /// Numbers written the same way whichever database printed them (PostgreSQL prints the double -3 as "-3",
    /// SQLite as "-3.0"); integers beyond a double's 53 bits (hashes) stay exact.
    static func normalized(_ s: String) -> String {
        if let i = Int64(s) { return i.magnitude < 1 << 53 ? Double(i).description : s }
        if let d = Double(s) { return d.description }
        return s
    }

    static func sqliteRows(_ path: String, _ sql: String) throws -> [[String]] {
        let db = try Database(path: path, configuration: .init(readOnly: true))
        return try db.rows(sql).map { row in
            row.map { value -> String in
                switch value {
                case .null: return "\\N"
                case .integer(let n): return normalized(String(n))
                case .real(let d): return normalized(d.description)
                case .text(let t): return normalized(t)
                case .blob(let b): return b.description
                }
            }
        }
    }

    #if Postgres
    static func postgresRows(_ cluster: PostgresCluster, schema: String, _ sql: String) throws -> [[String]] {
        try cluster.query("SET search_path TO \(schema); " + sql).map { $0.map(normalized) }
    }

    /// Every table with ids and run columns: what a re-run must leave exactly as it was.
    static func snapshot(_ cluster: PostgresCluster, schema: String) throws -> [String: [[String]]] {
        var out: [String: [[String]]] = [:]
        for table in ["events", "attendees", "occurrences", "day_entries", "forecasts", "days", "meta", "plugin_state", "source_state"] {
            out[table] = try cluster.query("SELECT * FROM \(schema).\(table) ORDER BY 1, 2")
        }
        return out
    }
    #endif
}
