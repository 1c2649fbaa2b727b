import CalSQLite
@testable import Exporters
import Foundation
import Pipeline
import XCTest

/// The `days` and `meta` tables (issue 17): every day of the window with its weather, the pipeline's facts,
/// the `agenda` view joining them, and no change on a re-run of the same input.
final class SQLiteDaysTableTests: XCTestCase {
    /// Gives every day of the window a day header, as the forecast stage does: snow on even days, none on odd ones.
    final class HeaderStage: Stage {
        var produces: BatchContent { [] }
        func process(_ batch: Batch, context: RunContext) throws -> Batch { batch }
        func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
            guard let window = context.window else { return }
            var batch = Batch(content: .days)
            for n in window.from.daysSinceEpoch..<window.to.daysSinceEpoch {
                let day = CivilDate(daysSinceEpoch: n)
                let weather = n % 2 == 0
                    ? DayWeather(result: .forecast(DailyForecast(weatherCode: 71, summary: "Slight snowfall", temperatureMax: 1.5, temperatureMin: -2,
                                                                 precipitationProbability: 54, units: "metric", provider: "file"),
                                                   place: Coordinate(latitude: 52.52, longitude: 13.41)), placeName: "Berlin")
                    : DayWeather(result: .missing(reason: "beyond-horizon"), placeName: "Berlin")
                batch.agendaDays.append(AgendaDay(date: day, weather: weather))
            }
            try emit(batch)
        }
    }

    func run(_ path: String, events: [Event], locale: String = "en") throws -> RunReport {
        var env = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test", zone: berlin,
                                      window: Window(from: CivilDate(year: 2026, month: 11, day: 23), to: CivilDate(year: 2026, month: 11, day: 30)),
                                      environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 23))
        env.locale = locale
        env.now = 1_795_392_000
        let sink = SQLiteSink(path: path, displayPath: "agenda.db")
        let pipeline = PipelineDefinition(environment: env, sources: [ListSource([events])], sourceLabels: ["team"],
                                          stages: [SplitStage(), HeaderStage()], sinks: [sink])
        let context = RunContext(environment: env, quiet: true)
        try Runner().run(pipeline, context: context)
        return context.report
    }

    func testEveryDayOfTheWindowWithItsWeatherAndTheViewJoinsIt() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("agenda.db").path
        let feed = [event("a@x", "Standup", at(2026, 11, 24, 9), at(2026, 11, 24, 10))]
        _ = try run(path, events: feed, locale: "de")
        let db = try Database(path: path, configuration: .init(readOnly: true))
        let days = try db.rows("SELECT date, weekday, weekday_short, weather_status, weather_reason, icon, summary, place FROM days ORDER BY date")
        XCTAssertEqual(days.count, 7)
        // The header stage gives even days (since 1970) snow: 2026-11-25 is one, the 26th has none.
        XCTAssertEqual(CivilDate(year: 2026, month: 11, day: 25).daysSinceEpoch % 2, 0)
        XCTAssertEqual(days[2], ["2026-11-25", "Mittwoch", "Mi.", "forecast", .null, "snow", "Slight snowfall", "Berlin"])
        XCTAssertEqual(days[3], ["2026-11-26", "Donnerstag", "Do.", "missing", "beyond-horizon", .null, .null, "Berlin"])
        XCTAssertEqual(try db.rows("SELECT pipeline, timezone, window_from, window_to, locale, generated_at, schema_version FROM meta"),
                       [["test", "Europe/Berlin", "2026-11-23", "2026-11-30", "de", "2026-11-23T00:00:00Z", 12]])
        XCTAssertEqual(try db.rows("SELECT day, title, day_weekday, day_weather_status, day_icon, timezone FROM agenda"),
                       [["2026-11-24", "Standup", "Dienstag", "missing", .null, "Europe/Berlin"]])

        // The same input again: no row of days (or any other table but runs) changes.
        let before = try db.rows("SELECT * FROM days ORDER BY date")
        let report = try run(path, events: feed, locale: "de")
        XCTAssertEqual(report.counter("sqlite agenda.db: rows changed"), 0)
        XCTAssertEqual(try db.rows("SELECT * FROM days ORDER BY date"), before)
    }

    /// Schema 8 renames `days.day` to `date` (the days document's name): a file of version 7 is upgraded in place
    /// by the next run, its days rows kept (those outside the run's window untouched), and it ends with exactly
    /// the schema of a new file.
    func testVersion7DaysTableIsRenamedInPlaceKeepingItsRows() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("agenda.db").path
        do {
            // What calpipe wrote at version 7 (migrations are never edited: these are its statements).
            let old = try Database(path: path)
            try old.execute("BEGIN")
            for migration in SQLiteSchema.migrations.prefix(7) { try old.execute(migration) }
            try old.setUserVersion(7)
            try old.execute("INSERT INTO runs (id, pipeline, started_at, finished_at, status) VALUES (1, 'test', '2026-10-30T06:00:00Z', '2026-10-30T06:00:01Z', 'ok')")
            try old.execute("""
                INSERT INTO days (day, weekday, weekday_short, weather_status, summary, temperature_max, updated_run)
                VALUES ('2026-10-30', 'Friday', 'Fri', 'forecast', 'Clear sky', 11.5, 1),
                       ('2026-11-24', 'Tuesday', 'Tue', 'forecast', 'Fog', 3, 1)
                """)
            try old.execute("COMMIT")
        }
        _ = try run(path, events: [event("a@x", "Standup", at(2026, 11, 24, 9), at(2026, 11, 24, 10))], locale: "de")

        let db = try Database(path: path, configuration: .init(readOnly: true))
        XCTAssertEqual(try db.userVersion, 12)
        XCTAssertEqual(try db.rows("SELECT name FROM pragma_table_info('days') ORDER BY cid LIMIT 2"), [["date"], ["weekday"]])
        // The day before the window keeps its row as it was; the window's days are this run's.
        XCTAssertEqual(try db.rows("SELECT date, weekday, weather_status, summary, temperature_max, updated_run FROM days ORDER BY date LIMIT 3"), [
            ["2026-10-30", "Friday", "forecast", "Clear sky", 11.5, 1],
            ["2026-11-23", "Montag", "forecast", "Slight snowfall", 1.5, 2],
            ["2026-11-24", "Dienstag", "missing", .null, .null, 2],
        ])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM days"), 8)
        // The view joins on the new name; its own `day` column (the entry's day) keeps its name.
        XCTAssertEqual(try db.rows("SELECT day, title, day_weekday, day_weather_status FROM agenda"),
                       [["2026-11-24", "Standup", "Dienstag", "missing"]])
        XCTAssertEqual(try db.integrityCheck(), ["ok"])

        // The upgraded schema is exactly the schema of a new file.
        let fresh = dir.appendingPathComponent("fresh.db").path
        _ = try run(fresh, events: [])
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        XCTAssertEqual(try db.rows(schema), try Database(path: fresh).rows(schema))
    }
}
