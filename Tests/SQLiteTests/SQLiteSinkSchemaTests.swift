import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// The schema from scratch, and the upgrade of a database an older calpipe wrote.
final class SQLiteSinkSchemaTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/sqlite")

    private func schema(_ path: String) throws -> [[SQLiteValue]] {
        try Database(path: path).rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    }

    private func columns(_ db: Database, _ table: String) throws -> [String] {
        try db.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [.text(table)]).map { $0[0].text! }
    }

    func testSchemaCreatedFromScratch() throws {
        let path = dir.appendingPathComponent("new.db").path
        try runSink(path: path, events: [])
        let db = try Database(path: path)
        XCTAssertEqual(try db.userVersion, 12)
        XCTAssertEqual(try db.journalMode, "wal")
        XCTAssertEqual(try db.scalarInt("PRAGMA page_size"), 16_384)
        XCTAssertEqual(try db.rows("SELECT type, name FROM sqlite_master ORDER BY type, name"), [
            ["index", "day_entries_by_day"], ["index", "day_entries_key"], ["index", "day_entries_occurrence"],
            ["index", "events_key"],
            ["index", "sqlite_autoindex_plugin_state_1"], ["index", "sqlite_autoindex_source_state_1"],
            ["table", "attendees"], ["table", "day_rows"], ["table", "days"], ["table", "events"], ["table", "forecasts"],
            ["table", "meta"], ["table", "plugin_state"], ["table", "runs"], ["table", "source_state"],
            ["view", "agenda"], ["view", "day_entries"], ["view", "occurrences"],
        ])
        XCTAssertEqual(try columns(db, "plugin_state"), ["pipeline", "plugin", "state", "run_id"])
        XCTAssertEqual(try columns(db, "days"), [
            "date", "weekday", "weekday_short", "weather_status", "weather_reason", "provider", "place", "latitude", "longitude",
            "weather_code", "icon", "summary", "temperature_max", "temperature_min", "precipitation_probability",
            "precipitation_amount", "wind_speed_max", "units", "fetched_at", "updated_run",
        ])
        XCTAssertEqual(try columns(db, "meta"), ["id", "pipeline", "timezone", "window_from", "window_to", "locale", "generated_at", "schema_version"])
        XCTAssertEqual(try columns(db, "events"), [
            "id", "source", "uid", "recurrence_id", "title", "description", "location", "latitude", "longitude",
            "organizer_name", "organizer_email", "categories", "color", "url", "status", "all_day", "dtstart", "dtstart_tzid",
            "start_utc", "dtend", "dtend_tzid", "duration", "end_utc", "rrule", "rdate", "exdate", "this_and_future",
            "organizer_parameters", "exrule", "span_end_utc", "other_properties", "components", "field_parameters", "metadata",
            "origin", "source_text", "created_run", "updated_run", "removed_run", "content_hash", "text_hash",
        ])
        XCTAssertEqual(try columns(db, "attendees"), ["event_id", "position", "name", "email", "role", "status", "other_parameters"])
        XCTAssertEqual(try columns(db, "occurrences"), [
            "id", "event_id", "instance", "all_day", "start_utc", "end_utc", "start_local", "end_local", "removed_run",
        ])
        XCTAssertEqual(try columns(db, "day_entries"), [
            "id", "occurrence_id", "event_id", "instance", "day", "part", "parts", "all_day", "start_local", "end_local", "start_utc",
            "end_utc", "sort_key", "removed_run", "occurrence_all_day", "occurrence_start_utc", "occurrence_end_utc",
            "occurrence_start_local", "occurrence_end_local", "occurrence_removed_run",
        ])
        // What day entries store (schemas 11, 12): the view computes the local times, the sort key and the instance from these.
        XCTAssertEqual(try columns(db, "day_rows"), [
            "id", "occurrence_id", "event_id", "instance_key", "day", "part", "parts", "all_day", "start_utc", "end_utc", "start_offset",
            "end_offset", "removed_run", "occurrence_all_day", "occurrence_start_utc", "occurrence_end_utc", "occurrence_start_local",
            "occurrence_end_local", "occurrence_removed_run", "start_local_text", "end_local_text", "sort_key_text", "instance_text",
        ])
        XCTAssertEqual(try columns(db, "forecasts"), [
            "day_entry_id", "status", "reason", "latitude", "longitude", "provider", "units", "weather_code", "summary",
            "temperature_max", "temperature_min", "precipitation_probability", "precipitation_amount", "wind_speed_max",
        ])
        XCTAssertEqual(try columns(db, "runs"), [
            "id", "pipeline", "started_at", "finished_at", "status", "events", "day_entries", "window_from", "window_to",
            "keep_removed", "events_inserted", "events_updated", "events_removed", "occurrences", "rows_changed", "rejected", "warnings",
        ])
        // "Agenda of day D" and "days from A to B" are index searches.
        let plan = try db.rows("EXPLAIN QUERY PLAN SELECT * FROM day_entries WHERE day >= '2026-11-01' AND day < '2026-11-08' ORDER BY day, sort_key")
        XCTAssertEqual(plan.map { $0[3] }, ["SEARCH r USING INDEX day_entries_by_day (day>? AND day<?)", "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"])
        XCTAssertEqual(try db.integrityCheck(), ["ok"])
    }

    /// `occurrences` is a view over the day rows: finding an occurrence by its id, or joining the day entries to
    /// their occurrence as readers of the old tables did, must seek, not scan the day rows once per row (that took
    /// 10 s for one minutely series' 8,724 entries). An occurrence whose earliest row is not its first (a window
    /// moved back gained a day before it) keeps its id.
    func testOccurrencesAreFoundByIdAndJoinedToTheirDayEntries() throws {
        let path = dir.appendingPathComponent("join.db").path
        let feed = [
            event("trip@x", "Trip", at(2026, 11, 2, 18), at(2026, 11, 5, 9)),
            event("call@x", "Call", at(2026, 11, 4, 10), at(2026, 11, 4, 11)),
        ]
        let joined = """
            SELECT e.uid, d.day, o.id = d.occurrence_id, o.start_local, o.end_local FROM day_entries d
            JOIN occurrences o ON o.id = d.occurrence_id JOIN events e ON e.id = o.event_id ORDER BY e.uid, d.day
            """
        let trip = "SELECT o.id FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = 'trip@x'"
        // First the window from the 3rd: the trip's row of the 3rd is its first, the occurrence's id.
        try runSink(path: path, events: feed, window: Window(from: CivilDate(year: 2026, month: 11, day: 3), to: CivilDate(year: 2026, month: 12, day: 1)))
        let tripId = try Database(path: path).rows(trip)
        XCTAssertEqual(try Database(path: path).rows(joined).map { $0[1].text }, ["2026-11-04", "2026-11-03", "2026-11-04", "2026-11-05"])
        // Then from the 1st: the gained row of the 2nd comes first and names the occurrence.
        try runSink(path: path, events: feed)
        let db = try Database(path: path)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM day_rows WHERE occurrence_id IS NOT NULL AND day = '2026-11-02'"), 1)
        XCTAssertEqual(try db.rows(joined).map { $0.map(\.description).joined(separator: "|") }, [
            "'call@x'|'2026-11-04'|1|'2026-11-04T10:00:00'|'2026-11-04T11:00:00'",
            "'trip@x'|'2026-11-02'|1|'2026-11-02T18:00:00'|'2026-11-05T09:00:00'",
            "'trip@x'|'2026-11-03'|1|'2026-11-02T18:00:00'|'2026-11-05T09:00:00'",
            "'trip@x'|'2026-11-04'|1|'2026-11-02T18:00:00'|'2026-11-05T09:00:00'",
            "'trip@x'|'2026-11-05'|1|'2026-11-02T18:00:00'|'2026-11-05T09:00:00'",
        ])
        XCTAssertEqual(try db.rows(trip), tripId)
        XCTAssertEqual(try db.rows("SELECT count(*) FROM occurrences WHERE id = ?", arguments: [tripId[0][0]]), [[1]])
        XCTAssertEqual(try db.rows("SELECT count(*) FROM occurrences"), [[2]])
        // The plans: a lookup by id seeks in both parts of the view, and no loop of the join scans the day rows
        // inside another scan (two SCANs under one parent are nested loops).
        func plan(_ sql: String) throws -> [(parent: Int, detail: String)] {
            try db.rows("EXPLAIN QUERY PLAN " + sql).map { (Int($0[1].int64 ?? -1), $0[3].text ?? "") }
        }
        let byId = try plan("SELECT * FROM occurrences WHERE id = 7")
        XCTAssertEqual(byId.filter { $0.detail.hasPrefix("SCAN") }.count, 0, "\(byId)")
        for sql in ["SELECT * FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id", joined] {
            let steps = try plan(sql)
            let scans = Dictionary(grouping: steps.filter { $0.detail.hasPrefix("SCAN") }, by: \.parent)
            XCTAssertEqual(scans.values.filter { $0.count > 1 }.count, 0, "nested scans: \(steps)")
        }
    }

    func testVersion1DatabaseIsUpgradedInPlace() throws {
        let path = dir.appendingPathComponent("old.db").path
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("agenda-v1.db").path, toPath: path)
        XCTAssertEqual(try Database(path: path).userVersion, 1)
        let idsBefore = try Database(path: path).rows("SELECT id, uid FROM events ORDER BY id")
        XCTAssertEqual(idsBefore, [[1, "a@x"], [2, "b@x"], [3, "c@x"]])

        // The same feed as the old run for A and B, C gone, E new.
        let feed = [
            event("a@x", "Standup", at(2026, 11, 10, 10), at(2026, 11, 10, 11)) {
                $0.location = "Room 4"
                $0.attendees = [Attendee(name: "Ann", email: "ann@example.com", role: "CHAIR"), Attendee(email: "bob@example.com")]
            },
            event("b@x", "Offsite", date(2026, 11, 12), date(2026, 11, 14)),
            event("e@x", "Retro", at(2026, 11, 27, 15), at(2026, 11, 27, 16)),
        ]
        try runSink(path: path, events: feed)

        let db = try Database(path: path)
        XCTAssertEqual(try db.userVersion, 12)
        // The days of the window and the pipeline's facts are there after the upgrade.
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM days"), 30)
        XCTAssertEqual(try db.rows("SELECT pipeline, timezone, window_from, window_to, locale, schema_version FROM meta"),
                       [["test", "Europe/Berlin", "2026-11-01", "2026-12-01", "en", 12]])
        // A and B were unchanged: same rows and ids, only their content hash written (version 5, so updated_run
        // is this run's); C deleted with its rows; E inserted.
        XCTAssertEqual(try db.rows("SELECT id, uid, created_run, updated_run, span_end_utc = end_utc, content_hash IS NOT NULL FROM events ORDER BY id"), [
            [1, "a@x", .null, 2, 1, 1], [2, "b@x", .null, 2, 1, 1], [4, "e@x", 2, 2, 1, 1],
        ])
        XCTAssertEqual(try db.rows("SELECT id, day FROM day_entries ORDER BY id"), [[10, "2026-11-10"], [21, "2026-11-12"], [22, "2026-11-13"], [31, "2026-11-27"]])
        XCTAssertEqual(try db.rows("SELECT id, pipeline, status, events, events_inserted, events_removed FROM runs ORDER BY id"), [
            [1, "team", "ok", 3, .null, .null], [2, "test", "ok", 3, 1, 1],
        ])
        XCTAssertEqual(try agenda(path).map { [$0[0], $0[1], $0[4]] }, [
            ["2026-11-10", "Standup", "1/1"], ["2026-11-12", "Offsite", "1/2"], ["2026-11-13", "Offsite", "2/2"], ["2026-11-27", "Retro", "1/1"],
        ])
        XCTAssertEqual(try db.integrityCheck(), ["ok"])
        XCTAssertEqual(try db.rows("PRAGMA foreign_key_check"), [])

        // The upgraded schema is exactly the schema of a new database.
        let fresh = dir.appendingPathComponent("fresh.db").path
        try runSink(path: fresh, events: [])
        XCTAssertEqual(try schema(path), try schema(fresh))
    }

    func testNewerSchemaIsRefusedUntouched() throws {
        let path = dir.appendingPathComponent("future.db").path
        try runSink(path: path, events: [])
        try Database(path: path).setUserVersion(13)
        let before = try dataDump(path)
        XCTAssertThrowsError(try runSink(path: path, events: [event("a@x", "A", at(2026, 11, 2, 9), at(2026, 11, 2, 10))])) { error in
            XCTAssertEqual("\(error)", "sqlite agenda.db: the database has schema version 13, newer than this calpipe knows (12); use a newer calpipe or another file")
        }
        XCTAssertEqual(try dataDump(path), before)
        XCTAssertEqual(try Database(path: path).scalarInt("SELECT count(*) FROM runs"), 1)
    }

    func testNotADatabaseIsRefused() throws {
        let path = dir.appendingPathComponent("notes.db").path
        try Data("these are my notes, not a database, and they are long enough to fill a header page......".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try runSink(path: path, events: [])) { error in
            XCTAssertEqual("\(error)", "sqlite agenda.db: the file is damaged or is not a SQLite database; nothing was written (move it aside to start a new one)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8).prefix(14), "these are my n")
    }
}
