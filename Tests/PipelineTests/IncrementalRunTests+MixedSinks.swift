import CalSQLite
import CalpipeKit
import XCTest
@testable import Pipeline

/// Incremental runs per source, not per pipeline (issue 24 item 5): a sink without incremental support (a JSON
/// file, rewritten whole) gets every event, and the sqlite sink beside it still keeps the rows of an unchanged
/// source without writing them.
extension IncrementalRunTests {
    func mixedPipeline(db: String, json: String) -> String {
        """
        {"name": "mixed", "timezone": "Europe/Berlin", "window": {"from": "2026-11-01", "to": "2027-01-01"},
         "sources": [{"type": "ics", "path": "a.ics"}, {"type": "ics", "path": "b.ics"}],
         "stages": [{"type": "expand"}, {"type": "split"}],
         "sinks": [{"type": "sqlite", "path": "\(db)"}, {"type": "json", "path": "\(json)", "shape": "days"}]}
        """
    }

    func testJSONSinkGetsEveryEventWhileTheSQLiteSinkKeepsAnUnchangedSource() throws {
        var a = Self.items(count: 120)
        let b = Self.items(count: 80).map { item in
            Item(uid: "b-" + item.uid, lines: item.lines.map { $0.replacingOccurrences(of: "UID:", with: "UID:b-").replacingOccurrences(of: "SUMMARY:", with: "SUMMARY:B ") })
        }
        try writeFeed(a, name: "a.ics")
        try writeFeed(b, name: "b.ics")
        let first = try run(mixedPipeline(db: "mixed.db", json: "mixed.json"))
        let all = first.eventsRead
        XCTAssertEqual(all, a.count + b.count)
        XCTAssertEqual(first.counter("sources unchanged (rows kept, read for the other sinks)"), 0)

        // One event of a.ics (a single one, on 2026-11-03) retitled; b.ics as it was.
        let retitled = a.firstIndex { $0.uid == "ev-2@calpipe.test" }!
        a[retitled].lines = a[retitled].lines.map { $0.hasPrefix("SUMMARY:") ? "SUMMARY:Retitled" : $0 }
        try writeFeed(a, name: "a.ics")
        let second = try run(mixedPipeline(db: "mixed.db", json: "mixed.json"))
        XCTAssertEqual(second.counter("sources unchanged (rows kept, read for the other sinks)"), 1, "\(second.counters)")
        XCTAssertEqual(second.counter("sources unchanged (not read)"), 0)
        XCTAssertEqual(second.eventsRead, all, "the JSON sink needs every event: both sources are read")

        // The sqlite sink wrote nothing of b.ics (its rows keep the first run's stamp) and the retitled event of a.ics.
        let db = try Database(path: dir.appendingPathComponent("mixed.db").path, configuration: .init(readOnly: true))
        XCTAssertEqual(try db.rows("SELECT DISTINCT updated_run FROM events WHERE source = 'b.ics'").map { $0[0].int64 }, [1])
        XCTAssertEqual(try db.rows("SELECT title FROM events WHERE source = 'a.ics' AND updated_run = 2").map { $0[0].text }, ["Retitled"])

        // Both outputs are those of a fresh load of the same feeds.
        try run(mixedPipeline(db: "fresh.db", json: "fresh.json"))
        assertSameRows(try rows("mixed.db"), try rows("fresh.db"))
        let json = try String(contentsOf: dir.appendingPathComponent("mixed.json"), encoding: .utf8)
        XCTAssertEqual(json, try String(contentsOf: dir.appendingPathComponent("fresh.json"), encoding: .utf8))
        XCTAssertTrue(json.contains("\"Retitled\"") && json.contains("\"B Event 2\""), "every source's events are in the JSON file")
    }

    /// A source that fails with a JSON sink in the pipeline fails the run, as without the sqlite sink: keeping its
    /// rows would leave the JSON file without its events.
    func testFailedSourceWithAWholeFileSinkFailsTheRun() throws {
        try writeFeed(Self.items(count: 20), name: "a.ics")
        try writeFeed(Self.items(count: 10), name: "b.ics")
        try run(mixedPipeline(db: "mixed.db", json: "mixed.json"))
        let before = try Data(contentsOf: dir.appendingPathComponent("mixed.json"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("b.ics"))
        XCTAssertThrowsError(try run(mixedPipeline(db: "mixed.db", json: "mixed.json")))
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("mixed.json")), before)
    }
}
