#if Postgres
import Foundation
import XCTest

/// The postgres sink against a real PostgreSQL server (a throwaway cluster, `PostgresCluster`): the same rows as
/// the sqlite sink, idempotent re-runs, changes confined to their rows, shards writing at once, a killed run, a
/// wrong password.
final class PostgresSinkTests: XCTestCase {
    var cluster: PostgresCluster!
    var folder: URL!

    override func setUpWithError() throws {
        cluster = try PostgresCluster.start()
        folder = try PostgresTestSupport.temporaryDirectory()
    }

    override func tearDown() {
        if cluster != nil { PostgresCluster.release() }
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func schema(_ name: String) -> String { "t_\(name)_\(UUID().uuidString.prefix(6).lowercased())" }

    /// Runs the pipeline with both sinks and checks that every table holds the same rows in both databases.
    private func assertSameAsSQLite(_ pipeline: URL, schema: String, db: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        for (table, sql) in PostgresTestSupport.comparedQueries {
            let lite = try PostgresTestSupport.sqliteRows(db.path, sql)
            let pg = try PostgresTestSupport.postgresRows(cluster, schema: schema, sql)
            XCTAssertEqual(pg.count, lite.count, "\(table): row count", file: file, line: line)
            XCTAssertFalse(lite.isEmpty, "\(table): the test data fills it", file: file, line: line)
            for (a, b) in zip(pg, lite) where a != b {
                XCTFail("\(table): postgres \(a) != sqlite \(b)", file: file, line: line)
                break
            }
        }
    }

    func testFreshLoadHoldsTheSameRowsAsTheSQLiteSink() throws {
        let name = schema("fresh")
        let pipeline = folder.appendingPathComponent("p.json")
        let db = folder.appendingPathComponent("agenda.db")
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources,
                                              sinks: ["{ \"type\": \"sqlite\", \"path\": \"\(db.path)\" }", PostgresTestSupport.postgresSink(cluster, schema: name)])
        let result = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("postgres 127.0.0.1:\(cluster.port)/postgres: "), result.stderr)
        XCTAssertFalse(result.stderr.contains(PostgresCluster.password), "the password is never shown: \(result.stderr)")
        try assertSameAsSQLite(pipeline, schema: name, db: db)
        XCTAssertEqual(try cluster.query("SELECT schema_version FROM \(name).meta"), [["2"]])
        // The forecast stage's weather: one forecasts row per day entry the demo's forecast file covers, all in the view.
        let forecasts = try cluster.query("SELECT count(*) FROM \(name).forecasts")[0][0]
        XCTAssertGreaterThan(Int(forecasts) ?? 0, 0)
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).agenda WHERE forecast_status IS NOT NULL"), [[forecasts]])
    }

    func testADayEntryWrittenAgainWithoutWeatherLosesItsForecast() throws {
        let name = schema("weather")
        let pipeline = folder.appendingPathComponent("p.json")
        let db = folder.appendingPathComponent("agenda.db")
        let sinks = ["{ \"type\": \"sqlite\", \"path\": \"\(db.path)\" }", PostgresTestSupport.postgresSink(cluster, schema: name)]
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources, sinks: sinks)
        XCTAssertEqual(try PostgresTestSupport.run(["run", pipeline.path], in: folder).code, 0)
        XCTAssertNotEqual(try cluster.query("SELECT count(*) FROM \(name).forecasts"), [["0"]])
        // The same pipeline without the forecast stage: every day entry is written again, none with weather.
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources, sinks: sinks, forecast: false)
        let result = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).forecasts"), [["0"]])
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).agenda WHERE forecast_status IS NOT NULL"), [["0"]])
        XCTAssertEqual(try PostgresTestSupport.sqliteRows(db.path, "SELECT count(*) FROM agenda WHERE forecast_status IS NOT NULL"), [["0.0"]])
        try assertSameAsSQLite(pipeline, schema: name, db: db)
    }

    func testReRunOnTheSameInputChangesNoRow() throws {
        let name = schema("rerun")
        let pipeline = folder.appendingPathComponent("p.json")
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources, sinks: [PostgresTestSupport.postgresSink(cluster, schema: name)])
        let first = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(first.code, 0, first.stderr)
        let before = try PostgresTestSupport.snapshot(cluster, schema: name)
        XCTAssertGreaterThan(before["day_entries"]?.count ?? 0, 50)
        let second = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(second.code, 0, second.stderr)
        XCTAssertEqual(try PostgresTestSupport.snapshot(cluster, schema: name), before)
        let events = before["events"]!.count
        XCTAssertTrue(second.stderr.contains("postgres 127.0.0.1:\(cluster.port)/postgres: \(events) unchanged"), second.stderr)
        XCTAssertEqual(try cluster.query("SELECT count(*), max(rows_changed) FROM \(name).runs WHERE id = 2"), [["1", "0"]])
    }

    func testAChangedFeedUpdatesOnlyItsRows() throws {
        let name = schema("change")
        let feed = folder.appendingPathComponent("gen.ics")
        try Self.writeFeed(feed, events: 30)
        let pipeline = folder.appendingPathComponent("p.json")
        let db = folder.appendingPathComponent("agenda.db")
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources + [("Generated", feed.path)],
                                              sinks: ["{ \"type\": \"sqlite\", \"path\": \"\(db.path)\" }", PostgresTestSupport.postgresSink(cluster, schema: name)])
        let first = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(first.code, 0, first.stderr)
        let before = try PostgresTestSupport.snapshot(cluster, schema: name)
        // Event 1 retitled, event 0 dropped.
        try Self.writeFeed(feed, events: 30, retitle: 1, drop: 0)
        let result = try PostgresTestSupport.run(["run", pipeline.path], in: folder)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("postgres 127.0.0.1:\(cluster.port)/postgres: 1 updated, 1 deleted"), result.stderr)
        let after = try PostgresTestSupport.snapshot(cluster, schema: name)
        // Events: the retitled one changed in place (same id, updated_run 2), the dropped one is gone, the rest are as they were.
        let beforeEvents = Dictionary(uniqueKeysWithValues: before["events"]!.map { ($0[0], $0) })
        let afterEvents = Dictionary(uniqueKeysWithValues: after["events"]!.map { ($0[0], $0) })
        XCTAssertEqual(Set(beforeEvents.keys).subtracting(afterEvents.keys).count, 1)
        var changedIDs: [String] = []
        for (id, row) in afterEvents where beforeEvents[id] != row { changedIDs.append(id) }
        XCTAssertEqual(changedIDs.count, 1, "only the retitled event's row changed")
        let updated = try cluster.query("SELECT uid, title, updated_run FROM \(name).events WHERE id = \(changedIDs.first ?? "0")")
        XCTAssertEqual(updated, [["event-1@tests", "Meeting 1 (moved)", "2"]])
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).events WHERE uid = 'event-0@tests'"), [["0"]])
        XCTAssertEqual(try cluster.query("SELECT count(*) FROM \(name).occurrences o JOIN \(name).events e ON e.id = o.event_id WHERE e.uid = 'event-1@tests'"), [["3"]])
        // The other sources' rows are untouched (same ids and values).
        let team = Set(before["events"]!.filter { $0[1] == "Generated" }.map { $0[0] })
        func others(_ snapshot: [String: [[String]]], _ table: String, eventColumn: Int) -> [[String]] {
            snapshot[table]!.filter { !team.contains($0[eventColumn]) }
        }
        XCTAssertEqual(others(after, "day_entries", eventColumn: 2), others(before, "day_entries", eventColumn: 2))
        XCTAssertEqual(others(after, "occurrences", eventColumn: 1), others(before, "occurrences", eventColumn: 1))
        XCTAssertFalse(others(before, "day_entries", eventColumn: 2).isEmpty)
        try assertSameAsSQLite(pipeline, schema: name, db: db)
    }

    func testTwoShardsWriteAtOnceEachItsOwnSources() throws {
        let name = schema("shards")
        let pipeline = folder.appendingPathComponent("p.json")
        try PostgresTestSupport.writePipeline(pipeline, sources: PostgresTestSupport.demoSources, sinks: [PostgresTestSupport.postgresSink(cluster, schema: name)])
        let began = Date()
        let one = try PostgresTestSupport.start(["run", pipeline.path, "--shard", "1/2"], in: folder)
        let two = try PostgresTestSupport.start(["run", pipeline.path, "--shard", "2/2"], in: folder)
        let r1 = PostgresTestSupport.finish(one, since: began), r2 = PostgresTestSupport.finish(two, since: began)
        XCTAssertEqual(r1.code, 0, r1.stderr)
        XCTAssertEqual(r2.code, 0, r2.stderr)
        // Each summary names its shard's sources; together they are every source, each once.
        func sources(_ stderr: String, _ shard: String) -> [String] {
            guard let line = stderr.split(separator: "\n").first(where: { $0.contains("shard \(shard): ") }) else { return [] }
            guard let colon = line.range(of: "source", options: .backwards), let list = line[colon.upperBound...].split(separator: ":", maxSplits: 1).last else { return [] }
            return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let s1 = sources(r1.stderr, "1/2"), s2 = sources(r2.stderr, "2/2")
        XCTAssertEqual((s1 + s2).sorted(), PostgresTestSupport.demoSources.map(\.name).sorted(), r1.stderr + r2.stderr)
        XCTAssertTrue(Set(s1).isDisjoint(with: s2))
        XCTAssertEqual(try cluster.query("SELECT DISTINCT source FROM \(name).events ORDER BY 1").map { $0[0] }, PostgresTestSupport.demoSources.map(\.name).sorted())
        // A later run of shard 1 leaves shard 2's rows exactly as they were.
        let shard2 = "SELECT e.* FROM \(name).events e WHERE source IN (\(s2.map { "'\($0)'" }.joined(separator: ","))) ORDER BY id"
        let before = try cluster.query(shard2)
        XCTAssertFalse(before.isEmpty)
        let again = try PostgresTestSupport.run(["run", pipeline.path, "--shard", "1/2", "--full"], in: folder)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try cluster.query(shard2), before)
    }

    func testARunKilledDuringCOPYLeavesThePreviousState() throws {
        let name = schema("kill")
        let feed = folder.appendingPathComponent("big.ics")
        try Self.writeFeed(feed, events: 20)
        let pipeline = folder.appendingPathComponent("p.json")
        try PostgresTestSupport.writePipeline(pipeline, sources: [("big", feed.path)], sinks: [PostgresTestSupport.postgresSink(cluster, schema: name)],
                                              forecast: false, window: ("2026-01-01", "2027-01-01"))
        XCTAssertEqual(try PostgresTestSupport.run(["run", pipeline.path], in: folder).code, 0)
        let before = try PostgresTestSupport.snapshot(cluster, schema: name)
        let runsBefore = try cluster.query("SELECT * FROM \(name).runs ORDER BY id")
        // A feed big enough that the run is still sending rows when it is killed.
        try Self.writeFeed(feed, events: 60_000)
        let started = try PostgresTestSupport.start(["run", pipeline.path], in: folder)
        var sawCopy = false
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && started.0.isRunning {
            if (try? cluster.query("SELECT count(*) FROM pg_stat_progress_copy WHERE command = 'COPY FROM'")) == [["1"]] {
                sawCopy = true
                kill(started.0.processIdentifier, SIGKILL)
                break
            }
            usleep(20_000)
        }
        _ = PostgresTestSupport.finish(started, since: Date())
        XCTAssertTrue(sawCopy, "the run was killed while COPY was sending rows")
        // The server notices the closed connection and rolls the transaction back.
        for _ in 0..<100 {
            if try cluster.query("SELECT count(*) FROM pg_stat_activity WHERE datname = 'postgres' AND state LIKE 'idle in transaction%'") == [["0"]] { break }
            usleep(50_000)
        }
        XCTAssertEqual(try PostgresTestSupport.snapshot(cluster, schema: name), before)
        XCTAssertEqual(try cluster.query("SELECT * FROM \(name).runs ORDER BY id"), runsBefore)
    }

    /// An ICS feed of `events` weekly meetings (three each, 20 minutes, from 2026-10-12 on) with an attendee; event
    /// `retitle` has " (moved)" after its title, event `drop` is left out.
    static func writeFeed(_ url: URL, events: Int, retitle: Int? = nil, drop: Int? = nil) throws {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe tests//EN\r\n"
        for i in 0..<events where i != drop {
            let start = "202610\(12 + i % 10)T\(String(format: "%02d", 8 + i % 10))0000Z"
            text += "BEGIN:VEVENT\r\nUID:event-\(i)@tests\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:\(start)\r\n"
            text += "DURATION:PT20M\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Meeting \(i)\(i == retitle ? " (moved)" : "")\r\n"
            text += "ATTENDEE;CN=Ann:mailto:ann\(i)@example.com\r\nEND:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        try Data(text.utf8).write(to: url)
    }

    func testAWrongPasswordFailsAtOnceWithOneLine() throws {
        let pipeline = folder.appendingPathComponent("p.json")
        let wrong = "postgres://\(PostgresCluster.user):not-the-password@127.0.0.1:\(cluster.port)/postgres?sslmode=disable"
        try PostgresTestSupport.writePipeline(pipeline, sources: [PostgresTestSupport.demoSources[0]],
                                              sinks: ["{ \"type\": \"postgres\", \"connection\": \"\(wrong)\" }"], forecast: false)
        let result = try PostgresTestSupport.run(["run", pipeline.path, "-q"], in: folder)
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertLessThan(result.seconds, 10)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines, ["calpipe: error: postgres 127.0.0.1:\(cluster.port)/postgres: password authentication failed for user \"calpipe\" (check the password or PGPASSWORD); nothing was written"])
        XCTAssertFalse(result.stderr.contains("not-the-password"))
    }
}
#endif
