import CalSQLite
import Exporters
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
        let days = try db.rows("SELECT day, weekday, weekday_short, weather_status, weather_reason, icon, summary, place FROM days ORDER BY day")
        XCTAssertEqual(days.count, 7)
        // The header stage gives even days (since 1970) snow: 2026-11-25 is one, the 26th has none.
        XCTAssertEqual(CivilDate(year: 2026, month: 11, day: 25).daysSinceEpoch % 2, 0)
        XCTAssertEqual(days[2], ["2026-11-25", "Mittwoch", "Mi.", "forecast", .null, "snow", "Slight snowfall", "Berlin"])
        XCTAssertEqual(days[3], ["2026-11-26", "Donnerstag", "Do.", "missing", "beyond-horizon", .null, .null, "Berlin"])
        XCTAssertEqual(try db.rows("SELECT pipeline, timezone, window_from, window_to, locale, generated_at, schema_version FROM meta"),
                       [["test", "Europe/Berlin", "2026-11-23", "2026-11-30", "de", "2026-11-23T00:00:00Z", 7]])
        XCTAssertEqual(try db.rows("SELECT day, title, day_weekday, day_weather_status, day_icon, timezone FROM agenda"),
                       [["2026-11-24", "Standup", "Dienstag", "missing", .null, "Europe/Berlin"]])

        // The same input again: no row of days (or any other table but runs) changes.
        let before = try db.rows("SELECT * FROM days ORDER BY day")
        let report = try run(path, events: feed, locale: "de")
        XCTAssertEqual(report.counter("sqlite agenda.db: rows changed"), 0)
        XCTAssertEqual(try db.rows("SELECT * FROM days ORDER BY day"), before)
    }
}
