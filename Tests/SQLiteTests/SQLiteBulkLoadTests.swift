@testable import Exporters
import CalSQLite
import Foundation
import Pipeline
import XCTest

/// The bulk load (a run whose sources have no rows yet: plain inserts, indexes built before commit) must
/// leave exactly the tables the keyed writes leave, and the same indexes.
final class SQLiteBulkLoadTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Hands the day entries on at the end of the input, as the forecast stage does: they reach the sink in a
    /// batch of their own, after their occurrences.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    private final class HoldDaysStage: Stage, @unchecked Sendable {
        private var held: [DayEntry] = []

        func process(_ batch: Batch, context: RunContext) throws -> Batch {
            var out = batch
            // Handed on in another batch: without their links (`Batch`'s contract).
            held += out.days.map { var day = $0; day.occurrenceIndex = nil; return day }
            out.days = []
            return out
        }

        func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
            try emit(Batch(days: held, content: .days))
            held = []
        }
    }

    /// Hands every occurrence and day entry on a second time, in a batch of its own at the end of the input.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    private final class RepeatStage: Stage, @unchecked Sendable {
        private var occurrences: [Occurrence] = []
        private var days: [DayEntry] = []

        func process(_ batch: Batch, context: RunContext) throws -> Batch {
            // Re-linked to the occurrences' places in the batch made at the end (`Batch`'s contract).
            let offset = occurrences.count
            occurrences += batch.occurrences
            days += batch.days.map { var day = $0; day.occurrenceIndex = day.occurrenceIndex.map { $0 + offset }; return day }
            return batch
        }

        func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
            try emit(Batch(occurrences: occurrences, days: days, content: [.occurrences, .days]))
        }
    }

    /// Breaks the batch contract: every day's link points at the next occurrence of its batch.
    private final class WrongLinksStage: Stage {
        func process(_ batch: Batch, context: RunContext) throws -> Batch {
            var out = batch
            for i in out.days.indices { out.days[i].occurrenceIndex = out.days[i].occurrenceIndex.map { $0 + 1 } }
            return out
        }
    }

    /// Runs sources (batches of events each) → expand → split → sqlite; returns whether the run bulk-loaded.
    @discardableResult
    private func run(_ path: String, _ sources: [(label: String, batches: [[Event]])], bulkLoad: Bool, holdDays: Bool = false,
                     repeatRows: Bool = false, wrongLinks: Bool = false) throws -> Bool {
        let env = PipelineEnvironment(pipelineFile: "pipelines/bulk.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "bulk",
                                      zone: berlin, window: november2026, environment: [:], zones: ZoneDatabase(),
                                      today: CivilDate(year: 2026, month: 11, day: 1))
        let sink = SQLiteSink(path: path, displayPath: "agenda.db", bulkLoad: bulkLoad)
        let pipeline = PipelineDefinition(environment: env, sources: sources.map { ListSource($0.batches) }, sourceLabels: sources.map(\.label),
                                          stages: [ExpandStage(), SplitStage()] + (holdDays ? [HoldDaysStage()] : [])
                                              + (repeatRows ? [RepeatStage()] : []) + (wrongLinks ? [WrongLinksStage()] : []), sinks: [sink])
        try Runner().run(pipeline, context: RunContext(environment: env, quiet: true))
        return sink.lastRunBulkLoaded
    }

    /// Run 1 in three batches: timed with attendees, all-day over two days, overnight, a weekly series with a
    /// moved instance (expanded at the end of the input, in a batch of its own), a cancelled event, one outside
    /// the window, and many small events.
    private func feed1() throws -> [[Event]] {
        var series = event("s@x", "Weekly", at(2026, 11, 2, 10), at(2026, 11, 2, 11))
        series.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=5")]
        var moved = event("s@x", "Weekly (moved)", at(2026, 11, 10, 15), at(2026, 11, 10, 16))
        moved.recurrenceID = RecurrenceID(time: at(2026, 11, 9, 10))
        let first = [
            event("a@x", "Standup", at(2026, 11, 10, 10), at(2026, 11, 10, 11)) {
                $0.attendees = [Attendee(name: "Ann", email: "ann@example.com", role: "CHAIR"), Attendee(email: "bob@example.com")]
                $0.location = "Room 4"
            },
            event("b@x", "Offsite", date(2026, 11, 12), date(2026, 11, 14)),
            series,
        ]
        let second = [
            event("c@x", "Dentist", at(2026, 11, 20, 9), at(2026, 11, 20, 9, 30)) { $0.status = "CANCELLED" },
            event("d@x", "Night shift", at(2026, 11, 25, 22), at(2026, 11, 26, 2)),
            moved,
            event("e@x", "Holiday party", at(2026, 12, 15, 18), at(2026, 12, 15, 23)),
        ]
        let third = (0..<40).map { i in
            event("n\(i)@x", "Slot \(i)", at(2026, 11, 1 + i % 29, 8 + i % 9), at(2026, 11, 1 + i % 29, 9 + i % 9))
        }
        return [first, second, third]
    }

    /// Run 2: A retitled, B moved, D gone, the series' moved instance back in place, a new event.
    private func feed2() throws -> [[Event]] {
        var batches = try feed1()
        batches[0][0].title = "Standup (room 4)"
        batches[0][1].start = date(2026, 11, 15)
        batches[0][1].endSpec = .end(date(2026, 11, 17))
        batches[1].remove(at: 2)
        batches[1].remove(at: 1)
        batches[2].append(event("f@x", "Review", at(2026, 11, 28, 14), at(2026, 11, 28, 15)))
        return batches
    }

    private func schema(_ path: String) throws -> [[SQLiteValue]] {
        try Database(path: path).rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    }

    /// The runs rows without their times.
    private func runs(_ path: String) throws -> [[SQLiteValue]] {
        try Database(path: path).rows("""
            SELECT id, status, events, day_entries, events_inserted, events_updated, events_removed, occurrences, rows_changed
            FROM runs ORDER BY id
            """)
    }

    private func assertSame(_ bulk: String, _ keyed: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try dataDump(bulk), try dataDump(keyed), file: file, line: line)
        XCTAssertEqual(try runs(bulk), try runs(keyed), file: file, line: line)
        XCTAssertEqual(try schema(bulk), try schema(keyed), file: file, line: line)
        let db = try Database(path: bulk)
        XCTAssertEqual(try db.integrityCheck(), ["ok"], file: file, line: line)
        XCTAssertEqual(try db.rows("PRAGMA foreign_key_check"), [], file: file, line: line)
    }

    /// The sink checks each day's link (`DayEntry.occurrenceIndex`) before it trusts it: wrong links give the
    /// same rows as right ones.
    func testWrongLinksDoNotMislinkDays() throws {
        let right = dir.appendingPathComponent("right.db").path
        let wrong = dir.appendingPathComponent("wrong.db").path
        try run(right, [("team", try feed1())], bulkLoad: false)
        try run(wrong, [("team", try feed1())], bulkLoad: false, wrongLinks: true)
        XCTAssertEqual(try dataDump(wrong), try dataDump(right))
        // Every day entry belongs to an occurrence of its own event that starts on or before its day.
        let linked = try Database(path: wrong).rows("""
            SELECT count(*) FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id
            WHERE d.event_id = o.event_id AND d.day >= substr(o.start_local, 1, 10)
            """)
        XCTAssertEqual(linked, [[.integer(50)]])
    }

    func testBulkLoadThenSyncGivesTheTablesOfKeyedWrites() throws {
        let bulk = dir.appendingPathComponent("bulk.db").path
        let keyed = dir.appendingPathComponent("keyed.db").path
        XCTAssertTrue(try run(bulk, [("team", try feed1())], bulkLoad: true))
        XCTAssertFalse(try run(keyed, [("team", try feed1())], bulkLoad: false))
        try assertSame(bulk, keyed)
        XCTAssertEqual(try Database(path: bulk).rows("SELECT count(*) FROM events UNION ALL SELECT count(*) FROM day_entries"), [[46], [50]])
        XCTAssertEqual(try agenda(bulk).prefix(4).map { [$0[0], $0[1]] }, [
            ["2026-11-01", "Slot 0"], ["2026-11-01", "Slot 29"], ["2026-11-02", "Slot 1"], ["2026-11-02", "Weekly"],
        ])

        // The second run syncs (the source has rows now) on both.
        XCTAssertFalse(try run(bulk, [("team", try feed2())], bulkLoad: true))
        XCTAssertFalse(try run(keyed, [("team", try feed2())], bulkLoad: false))
        try assertSame(bulk, keyed)
        // 46 read (C cancelled), 49 day entries; F added, A and B changed, D and the moved instance removed;
        // occurrences: B's moved, the series' instance of Nov 9 back, F's.
        XCTAssertEqual(try runs(bulk).last, [2, "ok", 46, 49, 1, 2, 2, 3, 14])
        // An unchanged third run changes nothing.
        let before = try dataDump(bulk)
        try run(bulk, [("team", try feed2())], bulkLoad: true)
        XCTAssertEqual(try dataDump(bulk), before)
    }

    func testDuplicateEventInALaterBatchEndsTheBulkLoadWithTheSameResult() throws {
        var batches = try feed1()
        // a@x again, changed, two batches later: the last one is kept, as with keyed writes.
        batches[2].append(event("a@x", "Standup (again)", at(2026, 11, 11, 10), at(2026, 11, 11, 11)))
        let bulk = dir.appendingPathComponent("bulk.db").path
        let keyed = dir.appendingPathComponent("keyed.db").path
        XCTAssertTrue(try run(bulk, [("team", batches)], bulkLoad: true))
        try run(keyed, [("team", batches)], bulkLoad: false)
        try assertSame(bulk, keyed)
        XCTAssertEqual(try Database(path: bulk).rows("SELECT title FROM events WHERE uid = 'a@x'"), [["Standup (again)"]])
    }

    func testDaysHandedOnAfterTheirOccurrencesGiveTheSameTables() throws {
        let bulk = dir.appendingPathComponent("bulk.db").path
        let keyed = dir.appendingPathComponent("keyed.db").path
        let plain = dir.appendingPathComponent("plain.db").path
        XCTAssertTrue(try run(bulk, [("team", try feed1())], bulkLoad: true, holdDays: true))
        try run(keyed, [("team", try feed1())], bulkLoad: false, holdDays: true)
        try assertSame(bulk, keyed)
        // And the same rows as without the held days.
        try run(plain, [("team", try feed1())], bulkLoad: true)
        XCTAssertEqual(try dataDump(bulk), try dataDump(plain))
        // A, B, the series' 4 instances and its moved one, D, 40 slots (C cancelled, E outside the window).
        XCTAssertEqual(try Database(path: bulk).scalarInt("SELECT count(*) FROM occurrences"), 48)
    }

    func testRowsHandedOnTwiceAreMergedAsKeyedWritesWouldDo() throws {
        let bulk = dir.appendingPathComponent("bulk.db").path
        let keyed = dir.appendingPathComponent("keyed.db").path
        let plain = dir.appendingPathComponent("plain.db").path
        XCTAssertTrue(try run(bulk, [("team", try feed1())], bulkLoad: true, repeatRows: true))
        try run(keyed, [("team", try feed1())], bulkLoad: false, repeatRows: true)
        try assertSame(bulk, keyed)
        try run(plain, [("team", try feed1())], bulkLoad: true)
        XCTAssertEqual(try dataDump(bulk), try dataDump(plain))
        // Day entries seen twice count twice ("rows written"); rows changed count once.
        XCTAssertEqual(try runs(bulk).last, [1, "ok", 47, 100, 46, 0, 0, 48, try runs(plain).last![8]])
    }

    func testNewSourceBesideASmallOneBulkLoadsAndABigOneDoesNot() throws {
        let path = dir.appendingPathComponent("two.db").path
        let keyed = dir.appendingPathComponent("keyed.db").path
        XCTAssertTrue(try run(path, [("archive", [[event("g@old", "Old import", at(2026, 11, 11, 8), at(2026, 11, 11, 9))]])], bulkLoad: true))
        try run(keyed, [("archive", [[event("g@old", "Old import", at(2026, 11, 11, 8), at(2026, 11, 11, 9))]])], bulkLoad: false)
        // "team" is new: bulk load beside the archive's rows, which keep their ids and are not touched.
        XCTAssertTrue(try run(path, [("team", try feed1())], bulkLoad: true))
        try run(keyed, [("team", try feed1())], bulkLoad: false)
        try assertSame(path, keyed)
        // A pipeline of both: "archive" has rows, so no bulk load.
        XCTAssertFalse(try run(path, [("archive", []), ("new", [[event("h@x", "H", at(2026, 11, 3, 8), at(2026, 11, 3, 9))]])], bulkLoad: true))

        // Rows of other sources above the limit: keyed writes (rebuilding their indexes would cost more).
        let big = dir.appendingPathComponent("big.db").path
        let many = (0..<Int(SQLiteSyncWriter.bulkLoadMaxExistingRows + 1)).map { i in  // one day entry each
            event("m\(i)@x", "M", at(2026, 11, 1 + i % 29, 0) , at(2026, 11, 1 + i % 29, 0, 30))
        }
        XCTAssertTrue(try run(big, [("many", [many])], bulkLoad: true))
        XCTAssertFalse(try run(big, [("team", try feed1())], bulkLoad: true))
    }
}
