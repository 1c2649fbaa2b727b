#if Postgres
import Foundation
import XCTest

/// Incremental runs per source (docs/incremental.md) into PostgreSQL: `source_state` holds each source's
/// fingerprint, written in the run's transaction; an unchanged source is not read and its rows stay.
extension PostgresSinkTests {
    private func rows(_ schema: String, source: String) throws -> [[String]] {
        try cluster.query("""
            SELECT e.*, o.*, d.* FROM \(schema).events e JOIN \(schema).occurrences o ON o.event_id = e.id
            JOIN \(schema).day_entries d ON d.occurrence_id = o.id WHERE e.source = '\(source)' ORDER BY d.id
            """)
    }

    private func run(_ pipeline: URL, _ extra: [String] = []) throws -> PostgresTestSupport.Result {
        let result = try PostgresTestSupport.run(["run", pipeline.path] + extra, in: folder)
        XCTAssertEqual(result.code, 0, result.stderr)
        return result
    }

    func testAnUnchangedFeedIsNotReadAgainAndOnlyTheChangedFeedIsSynced() throws {
        let name = schema("incremental")
        let a = folder.appendingPathComponent("a.ics"), b = folder.appendingPathComponent("b.ics")
        try Self.writeFeed(a, events: 12)
        try Self.writeFeed(b, events: 8)
        let pipeline = folder.appendingPathComponent("p.json")
        // No forecast stage: it reads live data, which turns incremental runs off.
        try PostgresTestSupport.writePipeline(pipeline, sources: [("A", a.path), ("B", b.path)],
                                              sinks: [PostgresTestSupport.postgresSink(cluster, schema: name)], forecast: false)
        let label = "postgres 127.0.0.1:\(cluster.port)/postgres"
        let first = try run(pipeline)
        XCTAssertTrue(first.stderr.contains("pgtest: 20 events read"), first.stderr)
        XCTAssertEqual(try cluster.query("SELECT source, run_id, input_fingerprint IS NOT NULL FROM \(name).source_state ORDER BY 1"),
                       [["A", "1", "t"], ["B", "1", "t"]])
        let before = try PostgresTestSupport.snapshot(cluster, schema: name)

        // Nothing changed: nothing is read, no row but the run's changes.
        let second = try run(pipeline)
        XCTAssertTrue(second.stderr.contains("pgtest: 0 events read, 0 occurrences, 0 day entries"), second.stderr)
        XCTAssertTrue(second.stderr.contains("sources unchanged (not read): 2"), second.stderr)
        XCTAssertTrue(second.stderr.contains("\(label): rows changed: 0"), second.stderr)
        XCTAssertEqual(try PostgresTestSupport.snapshot(cluster, schema: name), before)
        XCTAssertEqual(try cluster.query("SELECT events, day_entries, rows_changed, status FROM \(name).runs WHERE id = 2"), [["0", "0", "0", "ok"]])

        // One feed of two changed: only it is read and synced; the other's rows keep their ids and values.
        let aRows = try rows(name, source: "A"), bRows = try rows(name, source: "B")
        try Self.writeFeed(b, events: 8, retitle: 3)
        let third = try run(pipeline)
        XCTAssertTrue(third.stderr.contains("pgtest: 8 events read"), third.stderr)
        XCTAssertTrue(third.stderr.contains("sources unchanged (not read): 1"), third.stderr)
        XCTAssertTrue(third.stderr.contains("\(label): 1 updated, 7 unchanged"), third.stderr)
        XCTAssertEqual(try rows(name, source: "A"), aRows)
        XCTAssertEqual(try cluster.query("SELECT uid, updated_run FROM \(name).events WHERE source = 'B' AND updated_run <> 1"), [["event-3@tests", "3"]])
        XCTAssertEqual(try rows(name, source: "B").count, bRows.count)
        XCTAssertEqual(try cluster.query("SELECT source, run_id FROM \(name).source_state ORDER BY 1"), [["A", "1"], ["B", "3"]])

        // --full reads both and forgets the fingerprints (a run that is not incremental stores none), as the sqlite sink does.
        let full = try run(pipeline, ["--full"])
        XCTAssertTrue(full.stderr.contains("pgtest: 20 events read"), full.stderr)
        XCTAssertFalse(full.stderr.contains("sources unchanged"), full.stderr)
        XCTAssertTrue(full.stderr.contains("\(label): 20 unchanged"), full.stderr)
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).source_state"), [["0"]])
        XCTAssertEqual(try rows(name, source: "A"), aRows)
    }
}
#endif
