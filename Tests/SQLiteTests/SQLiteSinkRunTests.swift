import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// Atomic runs, concurrent writers, and what the rows hold.
final class SQLiteSinkRunTests: XCTestCase {
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("agenda.db").path }

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private let first = [
        event("a@x", "Standup", at(2026, 11, 10, 10), at(2026, 11, 10, 11)),
        event("b@x", "Offsite", date(2026, 11, 12), date(2026, 11, 14)),
    ]

    func testFailingSourceLeavesTheDatabaseAsBefore() throws {
        try runSink(path: db, events: first)
        let before = try dataDump(db)
        let runsBefore = try Database(path: db).rows("SELECT * FROM runs")
        // A second run writes a batch (changing A, adding C) and then its feed breaks.
        var changed = first
        changed[0].title = "Changed"
        let c = event("c@x", "New", at(2026, 11, 3, 9), at(2026, 11, 3, 10))
        XCTAssertThrowsError(try runSink(path: db, sources: [("team", ListSource([changed, [c]], failure: FeedBroke()))])) { error in
            XCTAssertEqual("\(error)", "feed broke")
        }
        XCTAssertEqual(try dataDump(db), before)
        XCTAssertEqual(try Database(path: db).rows("SELECT * FROM runs"), runsBefore)
        XCTAssertEqual(try Database(path: db).integrityCheck(), ["ok"])
    }

    func testFailureOnAFreshDatabaseLeavesNoSchemaBehind() throws {
        XCTAssertThrowsError(try runSink(path: db, sources: [("team", ListSource([first], failure: FeedBroke()))]))
        let fresh = try Database(path: db)
        XCTAssertEqual(try fresh.userVersion, 0)
        XCTAssertEqual(try fresh.scalarInt("SELECT count(*) FROM sqlite_master"), 0)
    }

    func testSecondWriterGivesUpWithAClearMessage() throws {
        try runSink(path: db, events: first)
        let before = try dataDump(db)
        let holder = try Database(path: db)
        try holder.beginTransaction(.immediate)
        let started = Date()
        XCTAssertThrowsError(try runSink(path: db, events: [], busyTimeout: 200)) { error in
            XCTAssertEqual("\(error)", "sqlite agenda.db: another program is writing this database; gave up after waiting 200 ms (option busy_timeout_ms); nothing was written")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.15, "it waited for the lock")
        try holder.rollback()
        XCTAssertEqual(try dataDump(db), before)
    }

    func testSecondWriterWaitsAndThenRuns() throws {
        try runSink(path: db, events: first)
        let holder = try Database(path: db)
        try holder.beginTransaction(.immediate)
        try holder.execute("UPDATE events SET title = 'held' WHERE uid = 'a@x'")
        let outcome = Outcome()
        let done = expectation(description: "second run finished")
        let path = db
        let events = first
        let thread = Thread {
            do {
                try runSink(path: path, events: events, busyTimeout: 20_000)
                outcome.set("ok")
            } catch {
                outcome.set("\(error)")
            }
            done.fulfill()
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertNil(outcome.value, "still waiting for the lock")
        try holder.commit()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(outcome.value, "ok")
        // The waiting run saw the committed change and put the feed's title back.
        XCTAssertEqual(try Database(path: db).rows("SELECT title FROM events WHERE uid = 'a@x'"), [["Standup"]])
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM runs"), 2)
    }

    func testEventColumnsKeepEverythingTheModelHas() throws {
        let ny = Zone.system(identifier: "America/New_York")!
        var e = Event(uid: "full@x", start: .zoned(CivilDateTime(year: 2026, month: 11, day: 2, hour: 9), ny), endSpec: .duration(CalDuration(seconds: 5400)), title: "Planning")
        e.description = "Quarterly\nplanning"
        e.location = "HQ"
        e.coordinate = Coordinate(latitude: 40.7128, longitude: -74.006)
        e.organizer = Attendee(name: "Olga", email: "olga@example.com", otherParameters: [Parameter("SENT-BY", "mailto:pa@example.com")])
        e.attendees = [Attendee(name: "Ann", email: "ann@example.com", role: "REQ-PARTICIPANT", status: "ACCEPTED", otherParameters: [Parameter("RSVP", "TRUE")])]
        e.categories = ["work", "q4"]
        e.color = "#1E88E5"
        e.url = "https://example.com/p"
        e.status = "CONFIRMED"
        e.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=3;BYDAY=MO")]
        e.recurrence.exceptionDates = [.zoned(CivilDateTime(year: 2026, month: 11, day: 9, hour: 9), ny)]
        e.recurrence.dates = [.time(.utc(1_795_000_000))]
        e.otherProperties = [RawProperty(name: "X-TEAM", parameters: [Parameter("LANGUAGE", "de")], value: "Platform")]
        e.components = [RawComponent(name: "VALARM", properties: [RawProperty(name: "TRIGGER", value: "-PT15M"), RawProperty(name: "ACTION", value: "DISPLAY")])]
        e.fieldParameters = ["SUMMARY": [Parameter("LANGUAGE", "en")]]
        e.origin = SourceLocation(file: "team.ics", line: 12)
        e.metadata = ["etag": "\"42\""]
        e.sourceText = "BEGIN:VEVENT\r\nUID:full@x\r\nEND:VEVENT\r\n"
        // The original text is kept only with `source_text: true` (below, after this run's checks).
        try runSink(path: db, events: [e])
        XCTAssertEqual(try Database(path: db).scalarText("SELECT coalesce(source_text, 'NULL') FROM events"), "NULL")
        try runSink(path: db, events: [e], keepSourceText: true)
        let row = try Database(path: db).rows("""
            SELECT source, uid, recurrence_id, title, description, location, latitude, longitude, organizer_name, organizer_email,
                   organizer_parameters, categories, color, url, status, all_day, dtstart, dtstart_tzid, start_utc, dtend, duration,
                   end_utc, span_end_utc, rrule, rdate, exdate, other_properties, components, field_parameters, metadata, origin, source_text
            FROM events
            """)
        XCTAssertEqual(row, [[
            "team", "full@x", "", "Planning", "Quarterly\nplanning", "HQ", 40.7128, -74.006, "Olga", "olga@example.com",
            #"[{"name":"SENT-BY","values":["mailto:pa@example.com"]}]"#, #"["work","q4"]"#, "#1E88E5", "https://example.com/p", "CONFIRMED",
            0, "2026-11-02T09:00:00-05:00", "America/New_York", 1_793_628_000, .null, "PT1H30M",
            1_793_633_400, .null, "FREQ=WEEKLY;COUNT=3;BYDAY=MO", "2026-11-18T11:06:40Z", "2026-11-09T09:00:00-05:00[America/New_York]",
            #"[{"name":"X-TEAM","parameters":[{"name":"LANGUAGE","values":["de"]}],"value":"Platform"}]"#,
            #"[{"name":"VALARM","properties":[{"name":"TRIGGER","value":"-PT15M"},{"name":"ACTION","value":"DISPLAY"}]}]"#,
            #"{"SUMMARY":[{"name":"LANGUAGE","values":["en"]}]}"#, #"{"etag":"\"42\""}"#, "team.ics:12",
            "BEGIN:VEVENT\r\nUID:full@x\r\nEND:VEVENT\r\n",
        ]])
        XCTAssertEqual(try Database(path: db).rows("SELECT position, name, email, role, status, other_parameters FROM attendees"), [
            [0, "Ann", "ann@example.com", "REQ-PARTICIPANT", "ACCEPTED", #"[{"name":"RSVP","values":["TRUE"]}]"#],
        ])
        // 09:00 in New York is 15:00 in Berlin (instants checked with Python zoneinfo).
        XCTAssertEqual(try agenda(db), [["2026-11-02", "Planning", "2026-11-02T15:00:00", "2026-11-02T16:30:00", "1/1", 0, "team"]])
    }

    func testAttendeeChangeAloneUpdatesTheEvent() throws {
        var events = first
        events[0].attendees = [Attendee(email: "ann@example.com")]
        try runSink(path: db, events: events)
        events[0].attendees = [Attendee(email: "ann@example.com"), Attendee(email: "ben@example.com")]
        let report = try runSink(path: db, events: events)
        XCTAssertEqual(report.outcomes(of: "sqlite agenda.db")[.updated], 1)
        XCTAssertEqual(try Database(path: db).rows("SELECT e.uid, e.updated_run, a.email FROM attendees a JOIN events e ON e.id = a.event_id ORDER BY a.position"),
                       [["a@x", 2, "ann@example.com"], ["a@x", 2, "ben@example.com"]])
    }

    func testForecastsAreStoredWithTheirDayEntries() throws {
        let place = Coordinate(latitude: 52.52, longitude: 13.405)
        let forecast = DailyForecast(weatherCode: 61, summary: "Light rain", temperatureMax: 8.5, temperatureMin: 2, precipitationProbability: 70,
                                     precipitationAmount: 1.2, windSpeedMax: 14, provider: "open-meteo")
        final class ForecastStage: Stage {
            let result: @Sendable (DayEntry) -> ForecastResult?
            init(_ result: @escaping @Sendable (DayEntry) -> ForecastResult?) { self.result = result }
            func process(_ batch: Batch, context: RunContext) throws -> Batch {
                var out = batch
                for i in out.days.indices { out.days[i].forecast = result(out.days[i]) }
                return out
            }
        }
        func run(_ stage: ForecastStage) throws {
            let env = PipelineEnvironment(pipelineFile: "f.json", baseDirectory: dir, name: "f", zone: berlin, window: november2026,
                                          environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 1))
            let pipeline = PipelineDefinition(environment: env, sources: [ListSource([first])], sourceLabels: ["team"],
                                              stages: [SplitStage(), stage], sinks: [SQLiteSink(path: db)])
            try Runner().run(pipeline, context: RunContext(environment: env, quiet: true))
        }
        try run(ForecastStage { $0.allDay ? .missing(reason: "beyond-horizon") : .forecast(forecast, place: place) })
        XCTAssertEqual(try Database(path: db).rows("""
            SELECT day, forecast_status, forecast_reason, forecast_summary, weather_code, temperature_min, temperature_max,
                   precipitation_probability, precipitation_amount, wind_speed_max, forecast_units, forecast_provider FROM agenda
            """), [
                ["2026-11-10", "forecast", .null, "Light rain", 61, 2.0, 8.5, 70.0, 1.2, 14.0, "metric", "open-meteo"],
                ["2026-11-12", "missing", "beyond-horizon", .null, .null, .null, .null, .null, .null, .null, .null, .null],
                ["2026-11-13", "missing", "beyond-horizon", .null, .null, .null, .null, .null, .null, .null, .null, .null],
            ])
        // A run without forecasts removes them; the day entries stay.
        try run(ForecastStage { _ in nil })
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM forecasts"), 0)
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM day_entries"), 3)
    }
}
