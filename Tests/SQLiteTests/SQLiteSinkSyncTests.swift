import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// Three successive runs of one feed (events added, changed, moved, cancelled, removed), in both sync modes.
final class SQLiteSinkSyncTests: XCTestCase {
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("agenda.db").path }

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    // Run 1: A (timed), B (two all-day days), C (timed), D (overnight), E (outside the window).
    private var run1: [Event] {
        [
            event("a@x", "Standup", at(2026, 11, 10, 10), at(2026, 11, 10, 11)) {
                $0.attendees = [Attendee(name: "Ann", email: "ann@example.com", role: "CHAIR"), Attendee(email: "bob@example.com")]
            },
            event("b@x", "Offsite", date(2026, 11, 12), date(2026, 11, 14)),
            event("c@x", "Dentist", at(2026, 11, 20, 9), at(2026, 11, 20, 9, 30)),
            event("d@x", "Night shift", at(2026, 11, 25, 22), at(2026, 11, 26, 2)),
            event("e@x", "Holiday party", at(2026, 12, 15, 18), at(2026, 12, 15, 23)),
        ]
    }

    // Run 2: A retitled, B moved, C cancelled, D gone from the feed, F added.
    private var run2: [Event] {
        var events = run1
        events[0].title = "Standup (room 4)"
        events[1].start = date(2026, 11, 15)
        events[1].endSpec = .end(date(2026, 11, 17))
        events[2].status = "CANCELLED"
        events.remove(at: 3)
        events.append(event("f@x", "Review", at(2026, 11, 28, 14), at(2026, 11, 28, 15)))
        return events
    }

    // Run 3: E gone from the feed (it is outside the window), F moved out of the window.
    private var run3: [Event] {
        var events = run2.filter { $0.uid != "e@x" && $0.uid != "c@x" }
        let f = events.firstIndex { $0.uid == "f@x" }!
        events[f].start = at(2026, 12, 3, 14)
        events[f].endSpec = .end(at(2026, 12, 3, 15))
        return events
    }

    private var archive: [Event] {
        [event("g@old", "Old import", at(2026, 11, 11, 8), at(2026, 11, 11, 9))]
    }

    private func uids(_ source: String) throws -> [[SQLiteValue]] {
        try Database(path: db).rows("SELECT uid, title, removed_run FROM events WHERE source = ? ORDER BY uid", arguments: [.text(source)])
    }

    private func lastRun() throws -> [SQLiteValue] {
        try Database(path: db).rows("""
            SELECT status, events, day_entries, events_inserted, events_updated, events_removed, keep_removed, window_from, window_to
            FROM runs ORDER BY id DESC LIMIT 1
            """)[0]
    }

    func testMirrorOverThreeRuns() throws {
        // Another source written earlier: a run of "team" must never touch it.
        try runSink(path: db, label: "archive", events: archive)

        try runSink(path: db, events: run1)
        XCTAssertEqual(try agenda(db), [
            ["2026-11-10", "Standup", "2026-11-10T10:00:00", "2026-11-10T11:00:00", "1/1", 0, "team"],
            ["2026-11-11", "Old import", "2026-11-11T08:00:00", "2026-11-11T09:00:00", "1/1", 0, "archive"],
            ["2026-11-12", "Offsite", "2026-11-12T00:00:00", "2026-11-13T00:00:00", "1/2", 1, "team"],
            ["2026-11-13", "Offsite", "2026-11-13T00:00:00", "2026-11-14T00:00:00", "2/2", 1, "team"],
            ["2026-11-20", "Dentist", "2026-11-20T09:00:00", "2026-11-20T09:30:00", "1/1", 0, "team"],
            ["2026-11-25", "Night shift", "2026-11-25T22:00:00", "2026-11-26T00:00:00", "1/2", 0, "team"],
            ["2026-11-26", "Night shift", "2026-11-26T00:00:00", "2026-11-26T02:00:00", "2/2", 0, "team"],
        ])
        XCTAssertEqual(try lastRun(), ["ok", 5, 6, 5, 0, 0, 0, "2026-11-01", "2026-12-01"])
        XCTAssertEqual(try Database(path: db).rows("SELECT position, name, email, role FROM attendees ORDER BY position"),
                       [[0, "Ann", "ann@example.com", "CHAIR"], [1, .null, "bob@example.com", .null]])
        let idsAfterRun1 = try Database(path: db).rows("SELECT uid, id FROM events ORDER BY uid")

        try runSink(path: db, events: run2)
        XCTAssertEqual(try agenda(db), [
            ["2026-11-10", "Standup (room 4)", "2026-11-10T10:00:00", "2026-11-10T11:00:00", "1/1", 0, "team"],
            ["2026-11-11", "Old import", "2026-11-11T08:00:00", "2026-11-11T09:00:00", "1/1", 0, "archive"],
            ["2026-11-15", "Offsite", "2026-11-15T00:00:00", "2026-11-16T00:00:00", "1/2", 1, "team"],
            ["2026-11-16", "Offsite", "2026-11-16T00:00:00", "2026-11-17T00:00:00", "2/2", 1, "team"],
            ["2026-11-28", "Review", "2026-11-28T14:00:00", "2026-11-28T15:00:00", "1/1", 0, "team"],
        ])
        XCTAssertEqual(try uids("team"), [
            ["a@x", "Standup (room 4)", .null], ["b@x", "Offsite", .null], ["e@x", "Holiday party", .null], ["f@x", "Review", .null],
        ])
        // Changed rows are updated in place (same ids), not deleted and re-inserted.
        let idsAfterRun2 = try Database(path: db).rows("SELECT uid, id FROM events ORDER BY uid")
        XCTAssertEqual(idsAfterRun2.filter { ["a@x", "b@x", "e@x", "g@old"].contains($0[0].text!) },
                       idsAfterRun1.filter { ["a@x", "b@x", "e@x", "g@old"].contains($0[0].text!) })
        XCTAssertEqual(try lastRun(), ["ok", 5, 4, 1, 2, 2, 0, "2026-11-01", "2026-12-01"])
        // Deleting C and D took their attendees, occurrences and day entries along; nothing dangles.
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM occurrences WHERE event_id NOT IN (SELECT id FROM events)"), 0)
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM day_entries"), 5)

        try runSink(path: db, events: run3)
        XCTAssertEqual(try agenda(db), [
            ["2026-11-10", "Standup (room 4)", "2026-11-10T10:00:00", "2026-11-10T11:00:00", "1/1", 0, "team"],
            ["2026-11-11", "Old import", "2026-11-11T08:00:00", "2026-11-11T09:00:00", "1/1", 0, "archive"],
            ["2026-11-15", "Offsite", "2026-11-15T00:00:00", "2026-11-16T00:00:00", "1/2", 1, "team"],
            ["2026-11-16", "Offsite", "2026-11-16T00:00:00", "2026-11-17T00:00:00", "2/2", 1, "team"],
        ])
        // E left the feed but lies outside the window: left alone. F moved out of the window: updated.
        XCTAssertEqual(try uids("team"), [
            ["a@x", "Standup (room 4)", .null], ["b@x", "Offsite", .null], ["e@x", "Holiday party", .null], ["f@x", "Review", .null],
        ])
        // F's event row has its new times; its occurrence lies outside the window, so no day entry carries it (schema 10:
        // occurrences live in their day entries; a pipeline of the CLI expands in the window, where every occurrence has one).
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT start_utc FROM events WHERE uid = 'f@x'"), 1_796_302_800)  // 2026-12-03 14:00 in Berlin
        XCTAssertEqual(try Database(path: db).rows("""
            SELECT o.start_local, o.end_local FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = 'f@x'
            """), [])
        XCTAssertEqual(try lastRun(), ["ok", 3, 3, 0, 1, 0, 0, "2026-11-01", "2026-12-01"])
        XCTAssertEqual(try uids("archive"), [["g@old", "Old import", .null]])
        XCTAssertEqual(try Database(path: db).integrityCheck(), ["ok"])
        XCTAssertEqual(try Database(path: db).rows("PRAGMA foreign_key_check"), [])
    }

    func testKeepRemovedMarksInsteadOfDeletingAndUnmarksOnReturn() throws {
        try runSink(path: db, events: run1, keepRemoved: true)
        try runSink(path: db, events: run2, keepRemoved: true)
        // The agenda shows live rows only.
        XCTAssertEqual(try agenda(db).map { [$0[0], $0[1]] }, [
            ["2026-11-10", "Standup (room 4)"], ["2026-11-15", "Offsite"], ["2026-11-16", "Offsite"], ["2026-11-28", "Review"],
        ])
        // C (cancelled) and D (gone) are kept, marked with the run that found them gone (run 2).
        XCTAssertEqual(try uids("team"), [
            ["a@x", "Standup (room 4)", .null], ["b@x", "Offsite", .null], ["c@x", "Dentist", 2], ["d@x", "Night shift", 2],
            ["e@x", "Holiday party", .null], ["f@x", "Review", .null],
        ])
        XCTAssertEqual(try Database(path: db).rows("SELECT day, removed_run FROM day_entries ORDER BY day"), [
            ["2026-11-10", .null], ["2026-11-12", 2], ["2026-11-13", 2], ["2026-11-15", .null], ["2026-11-16", .null],
            ["2026-11-20", 2], ["2026-11-25", 2], ["2026-11-26", 2], ["2026-11-28", .null],
        ])
        XCTAssertEqual(try lastRun(), ["ok", 5, 4, 1, 2, 2, 1, "2026-11-01", "2026-12-01"])

        // Run 3, plus D back in the feed: its mark is cleared and its days return.
        var third = run3
        third.append(run1[3])
        try runSink(path: db, events: third, keepRemoved: true)
        XCTAssertEqual(try uids("team"), [
            ["a@x", "Standup (room 4)", .null], ["b@x", "Offsite", .null], ["c@x", "Dentist", 2], ["d@x", "Night shift", .null],
            ["e@x", "Holiday party", .null], ["f@x", "Review", .null],
        ])
        XCTAssertEqual(try Database(path: db).rows("SELECT day, removed_run FROM day_entries ORDER BY day"), [
            ["2026-11-10", .null], ["2026-11-12", 2], ["2026-11-13", 2], ["2026-11-15", .null], ["2026-11-16", .null],
            ["2026-11-20", 2], ["2026-11-25", .null], ["2026-11-26", .null], ["2026-11-28", 3],
        ])
        XCTAssertEqual(try agenda(db).map { [$0[0], $0[1]] }, [
            ["2026-11-10", "Standup (room 4)"], ["2026-11-15", "Offsite"], ["2026-11-16", "Offsite"],
            ["2026-11-25", "Night shift"], ["2026-11-26", "Night shift"],
        ])
        // D updated (unmarked), F updated (moved); nothing newly marked among events.
        XCTAssertEqual(try lastRun(), ["ok", 4, 5, 0, 2, 0, 1, "2026-11-01", "2026-12-01"])
    }

    func testUnchangedRerunChangesNoRowButRuns() throws {
        let events = run1
        try runSink(path: db, events: events)
        let before = try dataDump(db)
        let changesBefore = try Database(path: db).rows("SELECT uid, created_run, updated_run FROM events ORDER BY uid")
        let report = try runSink(path: db, events: events)
        XCTAssertEqual(try dataDump(db), before)
        XCTAssertEqual(try Database(path: db).rows("SELECT uid, created_run, updated_run FROM events ORDER BY uid"), changesBefore)
        XCTAssertEqual(try Database(path: db).rows("SELECT id, rows_changed, events_inserted, events_updated, events_removed FROM runs ORDER BY id"),
                       [[1, 17, 5, 0, 0], [2, 0, 0, 0, 0]])  // E's occurrence lies outside the window: no day entry stores it
        XCTAssertEqual(report.counter("sqlite agenda.db: rows changed"), 0)
        XCTAssertEqual(report.rowsWritten.map(\.rows), [6])
    }

    /// Issue 16: a source that sends nothing, where the database remembers events of it, keeps them (the run
    /// says so and exits 1); with `allow_empty` it is mirrored empty.
    func testSourceThatSendsNothingKeepsItsRowsUnlessAllowedEmpty() throws {
        try runSink(path: db, events: run1)
        let before = try dataDump(db)
        let report = try runSink(path: db, sources: [("team", ListSource([]))])
        XCTAssertEqual(try dataDump(db), before)
        XCTAssertEqual(report.keptSources, ["team: it sent no events, but the database remembers events from it: they are kept (set \"allow_empty\": true on the source if this feed may really be empty)"])

        let env = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test", zone: berlin,
                                      window: november2026, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 1))
        var pipeline = PipelineDefinition(environment: env, sources: [ListSource([])], sourceLabels: ["team"], stages: [SplitStage()],
                                          sinks: [SQLiteSink(path: db, displayPath: "agenda.db")])
        pipeline.allowEmpty = [true]
        let context = RunContext(environment: env, quiet: true)
        try Runner().run(pipeline, context: context)
        XCTAssertEqual(context.report.keptSources, [])
        // Everything of "team" that touches the window is gone; E (December) stays.
        XCTAssertEqual(try uids("team"), [["e@x", "Holiday party", .null]])
        XCTAssertEqual(try agenda(db), [])
    }

    func testARunWithRejectedRecordsRemovesNothing() throws {
        try runSink(path: db, events: run1)
        // B is missing from this run, but one record of the feed was rejected: it may have been B.
        var events = run1
        events.remove(at: 1)
        events[0].title = "Standup (changed)"
        let rejected = Rejection(location: SourceLocation(file: "team.json", path: "[1].start"), reason: "invalid date \"soon\"")
        let report = try runSink(path: db, sources: [("team", ListSource([events], rejections: [rejected]))])
        XCTAssertEqual(report.warnings, ["sqlite agenda.db: 1 record was rejected, so this run removed nothing (a rejected record may be an event still in its feed)"])
        XCTAssertEqual(try uids("team").map { $0[0] }, ["a@x", "b@x", "c@x", "d@x", "e@x"])
        XCTAssertEqual(try uids("team")[0][1], "Standup (changed)", "changes and additions are still written")
        XCTAssertEqual(try lastRun()[0], "ok-with-rejections")
    }

    func testNoWindowMirrorsTheWholeSource() throws {
        try runSink(path: db, events: run1, window: nil)
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM day_entries"), 7, "E's day counts too without a window")
        try runSink(path: db, events: Array(run1.prefix(1)), window: nil)
        XCTAssertEqual(try uids("team"), [["a@x", "Standup", .null]])
        XCTAssertEqual(try lastRun()[7], .null)
    }

    func testExpandedSeriesAndOverridesAreKeyedByInstance() throws {
        var master = event("w@x", "Weekly", at(2026, 11, 2, 10), at(2026, 11, 2, 11))
        master.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=4")]
        master.recurrence.exceptionDates = [at(2026, 11, 16, 10)]
        var moved = event("w@x", "Weekly (moved)", at(2026, 11, 10, 15), at(2026, 11, 10, 16))
        moved.recurrenceID = RecurrenceID(time: at(2026, 11, 9, 10))
        func occurrences() throws -> [[SQLiteValue]] {
            try Database(path: db).rows("""
                SELECT e.recurrence_id, o.instance, o.start_local FROM occurrences o JOIN events e ON e.id = o.event_id ORDER BY o.start_utc
                """)
        }

        try runSink(path: db, sources: [("team", ListSource([[master, moved]]))], expand: true)
        XCTAssertEqual(try occurrences(), [
            ["", "2026-11-02T10:00:00+01:00", "2026-11-02T10:00:00"],
            ["2026-11-09T10:00:00+01:00", "2026-11-09T10:00:00+01:00", "2026-11-10T15:00:00"],
            ["", "2026-11-23T10:00:00+01:00", "2026-11-23T10:00:00"],
        ])
        XCTAssertEqual(try agenda(db).map { [$0[0], $0[1]] }, [["2026-11-02", "Weekly"], ["2026-11-10", "Weekly (moved)"], ["2026-11-23", "Weekly"]])
        // A COUNT-bounded series ends with its last instance, found by expanding it once: 2026-11-23 11:00 in
        // Berlin (10:00 UTC; the EXDATE of the 16th does not move it).
        XCTAssertEqual(try Database(path: db).rows("SELECT uid, recurrence_id, rrule, exdate, span_end_utc FROM events ORDER BY recurrence_id"), [
            ["w@x", "", "FREQ=WEEKLY;COUNT=4", "2026-11-16T10:00:00+01:00[Europe/Berlin]", .integer(1_795_428_000)],
            ["w@x", "2026-11-09T10:00:00+01:00", .null, .null, 1_794_322_800],
        ])

        // Unchanged input (the expand stage emits the series in its finish batch): nothing changes.
        let before = try dataDump(db)
        let report = try runSink(path: db, sources: [("team", ListSource([[master, moved]]))], expand: true)
        XCTAssertEqual(report.counter("sqlite agenda.db: rows changed"), 0)
        XCTAssertEqual(try dataDump(db), before)

        // The override leaves the feed: its instance goes back to the series' own time.
        try runSink(path: db, sources: [("team", ListSource([[master]]))], expand: true)
        XCTAssertEqual(try occurrences(), [
            ["", "2026-11-02T10:00:00+01:00", "2026-11-02T10:00:00"],
            ["", "2026-11-09T10:00:00+01:00", "2026-11-09T10:00:00"],
            ["", "2026-11-23T10:00:00+01:00", "2026-11-23T10:00:00"],
        ])
        XCTAssertEqual(try agenda(db).map { [$0[0], $0[1]] }, [["2026-11-02", "Weekly"], ["2026-11-09", "Weekly"], ["2026-11-23", "Weekly"]])
        XCTAssertEqual(try Database(path: db).rows("PRAGMA foreign_key_check"), [])
    }

    func testDuplicateUIDWarnsAndKeepsTheLast() throws {
        let first = event("dup@x", "First", at(2026, 11, 3, 9), at(2026, 11, 3, 10))
        let second = event("dup@x", "Second", at(2026, 11, 4, 9), at(2026, 11, 4, 10))
        let report = try runSink(path: db, events: [first, second])
        XCTAssertEqual(report.warnings, ["sqlite agenda.db: source \"team\" has event uid \"dup@x\" more than once; the last one is kept"])
        XCTAssertEqual(try uids("team"), [["dup@x", "Second", .null]])
        // Both occurrences' days were written from the batch; the event row is the last one.
        XCTAssertEqual(try agenda(db).map { [$0[0], $0[1]] }, [["2026-11-04", "Second"]])
    }
}
