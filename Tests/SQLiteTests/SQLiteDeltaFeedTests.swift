import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// A source that sends only changes and deletions (`SourceFeed.delta`), in one batch.
final class DeltaListSource: EventSource {
    let events: [Event]
    let deletions: [Deletion]
    let failure: Error?

    init(_ events: [Event], deletions: [Deletion] = [], failure: Error? = nil) {
        self.events = events
        self.deletions = deletions
        self.failure = failure
    }

    var feed: SourceFeed { .delta }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        var batch = Batch(events: events)
        batch.deletions = deletions
        if !batch.isEmpty { try emit(batch) }
        if let failure { throw failure }
    }
}

/// A delta run (`SourceFeed.delta`, `Batch.deletions`) into a database a complete run filled gives the rows of a
/// fresh load of the whole feed it stands for.
final class SQLiteDeltaFeedTests: XCTestCase {
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("agenda.db").path }
    private var fresh: String { dir.appendingPathComponent("fresh.db").path }

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A (timed, with attendees), B (weekly, four instances), C, D (two all-day days), E.
    private var feed: [Event] {
        get throws {
            [
                event("a@x", "Standup", at(2026, 11, 10, 10), at(2026, 11, 10, 11)) {
                    $0.attendees = [Attendee(name: "Ann", email: "ann@example.com", role: "CHAIR")]
                },
                try {
                    var b = event("b@x", "Weekly", at(2026, 11, 2, 9), at(2026, 11, 2, 10))
                    b.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=4")]
                    return b
                }(),
                event("c@x", "Dentist", at(2026, 11, 20, 9), at(2026, 11, 20, 9, 30)),
                event("d@x", "Offsite", date(2026, 11, 12), date(2026, 11, 14)) {
                    $0.attendees = [Attendee(email: "bob@example.com")]
                },
                event("e@x", "Review", at(2026, 11, 28, 14), at(2026, 11, 28, 15)),
            ]
        }
    }

    @discardableResult
    private func run(_ path: String, _ source: EventSource, keepRemoved: Bool = false) throws -> RunReport {
        try runSink(path: path, sources: [("team", source)], keepRemoved: keepRemoved, expand: true)
    }

    /// The rows without ids and run numbers, keyed by event (source, uid, recurrence id); `skip`: event columns left out.
    private func rows(_ path: String, skip: Set<String> = [], live: Bool = false) throws -> [String: [[SQLiteValue]]] {
        let db = try Database(path: path, configuration: .init(readOnly: true))
        func columns(_ table: String, _ alias: String, _ leave: Set<String>) throws -> String {
            try db.rows("SELECT name FROM pragma_table_info('\(table)')").compactMap { $0[0].text }
                .filter { !leave.contains($0) && !["id", "created_run", "updated_run", "removed_run", "origin"].contains($0) }
                .map { "\(alias).\($0)" }.joined(separator: ", ")
        }
        let alive = live ? "e.removed_run IS NULL" : "1"
        var out: [String: [[SQLiteValue]]] = [:]
        out["events"] = try db.rows("SELECT \(try columns("events", "e", skip)) FROM events e WHERE \(alive) ORDER BY source, uid, recurrence_id")
        out["attendees"] = try db.rows("""
            SELECT e.source, e.uid, e.recurrence_id, \(try columns("attendees", "a", ["event_id"])) FROM attendees a JOIN events e ON e.id = a.event_id
            WHERE \(alive) ORDER BY 1, 2, 3, 4
            """)
        out["occurrences"] = try db.rows("""
            SELECT e.uid, e.recurrence_id, \(try columns("occurrences", "o", ["event_id"])) FROM occurrences o JOIN events e ON e.id = o.event_id
            WHERE \(live ? "o.removed_run IS NULL" : "1") ORDER BY 1, 2, 3
            """)
        out["day_entries"] = try db.rows("""
            SELECT e.uid, o.instance, \(try columns("day_entries", "d", ["event_id", "occurrence_id"])) FROM day_entries d
            JOIN occurrences o ON o.id = d.occurrence_id JOIN events e ON e.id = d.event_id
            WHERE \(live ? "d.removed_run IS NULL" : "1") ORDER BY 1, 2, d.day
            """)
        return out
    }

    private func assertSameRows(_ a: [String: [[SQLiteValue]]], _ b: [String: [[SQLiteValue]]], file: StaticString = #filePath, line: UInt = #line) {
        for table in a.keys.sorted() {
            XCTAssertEqual(a[table], b[table], table, file: file, line: line)
        }
    }

    /// First run complete; second a delta with one changed event, one new and one deletion: the rows of a fresh
    /// load of the whole feed (nothing merely absent removed), with and without keep_removed.
    func testDeltaWithAChangeAndADeletionEqualsAFreshLoadOfTheWholeFeed() throws {
        for keepRemoved in [false, true] {
            try? FileManager.default.removeItem(atPath: db)
            try? FileManager.default.removeItem(atPath: fresh)
            try run(db, ListSource([try feed]), keepRemoved: keepRemoved)
            var changed = try feed[2]
            changed.title = "Dentist (moved)"
            changed.start = at(2026, 11, 21, 15)
            changed.endSpec = .end(at(2026, 11, 21, 16))
            let added = event("f@x", "Party", at(2026, 11, 27, 18), at(2026, 11, 27, 22))
            let report = try run(db, DeltaListSource([changed, added], deletions: [Deletion(uid: "d@x")]), keepRemoved: keepRemoved)
            XCTAssertEqual(report.outcomes(of: "sqlite agenda.db")[.deleted], 1, "keep_removed \(keepRemoved)")

            var whole = try feed.filter { $0.uid != "d@x" }
            whole[2] = changed
            whole.append(added)
            try run(fresh, ListSource([whole]), keepRemoved: keepRemoved)
            assertSameRows(try rows(db, live: true), try rows(fresh))
            if keepRemoved {
                let marked = try Database(path: db).rows("SELECT uid FROM events WHERE removed_run IS NOT NULL")
                XCTAssertEqual(marked, [[.text("d@x")]])
            }
        }
    }

    /// An instance deletion removes that instance's occurrence and day entry; the series stays. The rows are those
    /// of the feed with the instance excluded (but for the master's EXDATE, which the delta does not send).
    func testInstanceDeletionRemovesThatInstanceOnly() throws {
        try run(db, ListSource([try feed]))
        let second = at(2026, 11, 9, 9)
        try run(db, DeltaListSource([], deletions: [Deletion(uid: "b@x", recurrenceID: second)]))

        var whole = try feed
        whole[1].recurrence.exceptionDates = [second]
        try run(fresh, ListSource([whole]))
        let skip: Set<String> = ["exdate", "content_hash", "text_hash"]
        assertSameRows(try rows(db, skip: skip), try rows(fresh, skip: skip))
        let instances = try Database(path: db).rows("SELECT count(*) FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = 'b@x'")
        XCTAssertEqual(instances, [[.integer(3)]])
    }

    /// An empty delta changes nothing (and is not an empty source); a delta that fails after its deletion rolls
    /// the deletion back with the run.
    func testEmptyDeltaKeepsEverythingAndAFailedDeltaDeletesNothing() throws {
        try run(db, ListSource([try feed]))
        let before = try dataDump(db)
        let report = try run(db, DeltaListSource([]))
        XCTAssertTrue(report.emptyResults.isEmpty)
        XCTAssertEqual(try dataDump(db), before)
        XCTAssertThrowsError(try run(db, DeltaListSource([], deletions: [Deletion(uid: "a@x")], failure: FeedBroke())))
        XCTAssertEqual(try dataDump(db), before)
    }
}
