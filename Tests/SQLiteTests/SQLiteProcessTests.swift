import CalSQLite
import Foundation
import XCTest

/// Tests that spawn the real calpipe executable: kills mid-write, concurrent runs, `calpipe query`.
final class SQLiteProcessTests: XCTestCase {
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("agenda.db").path }

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The calpipe built next to this test bundle (swift build --build-tests builds both).
    private func calpipe() throws -> URL {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
        candidates.append(Bundle(for: Self.self).bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for folder in candidates {
            var url = folder
            // On Linux the bundle is a folder holding the test binary; go up until the build folder.
            for _ in 0..<3 {
                let binary = url.appendingPathComponent("calpipe")
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDir), !isDir.boolValue { return binary }
                url = url.deletingLastPathComponent()
            }
        }
        XCTFail("calpipe executable not found near \(candidates.map(\.path)); run swift build --build-tests")
        throw CocoaError(.fileNoSuchFile)
    }

    /// A JSON feed of `count` timed events in November 2026, one per 7 minutes from 07:00 on.
    private func writeFeed(_ name: String, count: Int, prefix: String, title: String) throws {
        var text = "[\n"
        for i in 0..<count {
            let day = 1 + (i / 96) % 30
            let minute = 7 * 60 + (i % 96) * 7
            let start = String(format: "2026-11-%02dT%02d:%02d:00", day, minute / 60, minute % 60)
            text += #"{"uid": "\#(prefix)\#(i)@feed", "title": "\#(title) \#(i)", "start": "\#(start)", "duration": "PT30M", "timezone": "Europe/Berlin", "attendees": ["ann@example.org"]}"#
            text += i < count - 1 ? ",\n" : "\n"
        }
        text += "]\n"
        try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func writePipeline(_ name: String, feed: String, source: String, busyTimeout: Int = 60_000) throws {
        let text = """
            {"name": "\(name)", "timezone": "Europe/Berlin", "window": {"from": "2026-11-01", "to": "2026-12-01"},
             "sources": [{"type": "json", "path": "\(feed)", "name": "\(source)"}],
             "stages": [{"type": "split"}],
             "sinks": [{"type": "sqlite", "path": "agenda.db", "busy_timeout_ms": \(busyTimeout)}]}
            """
        try text.write(to: dir.appendingPathComponent(name + ".pipeline.json"), atomically: true, encoding: .utf8)
    }

    private final class Output: @unchecked Sendable {
        var stdout = Data()
        var stderr = Data()
    }

    private func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try calpipe()
        process.arguments = arguments
        process.currentDirectoryURL = dir
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// Runs calpipe to the end: (exit status, stdout, stderr).
    @discardableResult
    private func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let (process, out, err) = try start(arguments)
        // Read before waiting so a full pipe cannot block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    private func walSize() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: db + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Waits until the running process has written `bytes` more into the WAL than `base`: it is mid-transaction.
    private func waitForWrites(_ process: Process, beyond base: Int, bytes: Int) {
        let deadline = Date().addingTimeInterval(120)
        while walSize() < base + bytes && process.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private func snapshot() throws -> [String: [[SQLiteValue]]] {
        var dump = try dataDump(db)
        dump["runs"] = try Database(path: db).rows("SELECT * FROM runs ORDER BY id")
        return dump
    }

    func testKilledRunLeavesThePreviousContentAndASecondWriterGivesUpCleanly() throws {
        try writeFeed("small.json", count: 50, prefix: "s", title: "Small")
        try writePipeline("small", feed: "small.json", source: "team")
        let (status, _, stderr) = try run(["run", "--quiet", "small.pipeline.json"])
        XCTAssertEqual(status, 0, stderr)
        let before = try snapshot()
        XCTAssertEqual(before["events"]?.count, 50)

        // A big run of the same source: it would replace all 50 events, add thousands and take a while.
        try writeFeed("big.json", count: 40_000, prefix: "b", title: "Big")
        try writePipeline("big", feed: "big.json", source: "team")
        let base = walSize()
        let (big, _, _) = try start(["run", "--quiet", "big.pipeline.json"])
        waitForWrites(big, beyond: base, bytes: 4 << 20)
        XCTAssertTrue(big.isRunning, "the big run must still be writing when it is killed")

        // Meanwhile a second writer with a short busy timeout gives up with a clear message.
        try writePipeline("impatient", feed: "small.json", source: "other", busyTimeout: 300)
        let (status2, stdout2, stderr2) = try run(["run", "--quiet", "impatient.pipeline.json"])
        XCTAssertEqual(status2, 1)
        XCTAssertEqual(stdout2, "")
        // The database's lock (issue 18) tells it at once, naming the other run.
        XCTAssertTrue(stderr2.hasPrefix("calpipe: error: sqlite agenda.db: another calpipe run is writing this database: pid \(big.processIdentifier), started "), stderr2)
        XCTAssertTrue(stderr2.hasSuffix(" (pipeline big); nothing was written (calpipe run --wait SECONDS waits for it)\n"), stderr2)

        XCTAssertTrue(big.isRunning)
        kill(big.processIdentifier, SIGKILL)
        big.waitUntilExit()
        XCTAssertEqual(big.terminationReason, .uncaughtSignal)
        XCTAssertEqual(big.terminationStatus, SIGKILL)
        XCTAssertGreaterThan(walSize(), base + (4 << 20), "the killed run had written into the WAL")

        XCTAssertEqual(try Database(path: db).integrityCheck(), ["ok"])
        XCTAssertEqual(try snapshot(), before)
        // And the database takes the next run normally.
        XCTAssertEqual(try run(["run", "--quiet", "small.pipeline.json"]).0, 0)
        XCTAssertEqual(try Database(path: db).scalarInt("SELECT count(*) FROM runs"), 2)
    }

    func testKilledBulkLoadLeavesThePreviousContentAndIndexes() throws {
        // A small source first; then a new, big source bulk-loads beside it (indexes dropped in its transaction).
        try writeFeed("small.json", count: 50, prefix: "s", title: "Small")
        try writePipeline("small", feed: "small.json", source: "archive")
        XCTAssertEqual(try run(["run", "--quiet", "small.pipeline.json"]).0, 0)
        let before = try snapshot()
        let schema = try Database(path: db).rows("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        XCTAssertTrue(schema.contains { $0[1] == "day_entries_key" })

        try writeFeed("big.json", count: 40_000, prefix: "b", title: "Big")
        try writePipeline("big", feed: "big.json", source: "team")
        let base = walSize()
        let (big, _, _) = try start(["run", "--quiet", "big.pipeline.json"])
        waitForWrites(big, beyond: base, bytes: 4 << 20)
        XCTAssertTrue(big.isRunning, "the bulk load must still be writing when it is killed")
        kill(big.processIdentifier, SIGKILL)
        big.waitUntilExit()
        XCTAssertEqual(big.terminationStatus, SIGKILL)

        let database = try Database(path: db)
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
        XCTAssertEqual(try snapshot(), before)
        XCTAssertEqual(try database.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name"), schema)
        // The load then runs to the end and builds the same indexes.
        XCTAssertEqual(try run(["run", "--quiet", "big.pipeline.json"]).0, 0)
        XCTAssertEqual(try database.rows("SELECT source, count(*) FROM events GROUP BY source ORDER BY source"), [["archive", 50], ["team", 40_000]])
        XCTAssertEqual(try database.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name"), schema)
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
    }

    func testKilledFirstRunIntoANewFileLeavesNoRows() throws {
        // A new file is loaded through a rollback journal (no WAL yet): a kill leaves a hot journal, which the
        // next connection rolls back, so the file holds no schema and no rows; the next run then works.
        try writeFeed("big.json", count: 40_000, prefix: "b", title: "Big")
        try writePipeline("big", feed: "big.json", source: "team")
        let (big, _, _) = try start(["run", "--quiet", "big.pipeline.json"])
        let deadline = Date().addingTimeInterval(120)
        func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: db))?[.size] as? Int) ?? 0 }
        while size() < 4 << 20 && big.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(big.isRunning, "the first run must still be writing when it is killed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"))
        kill(big.processIdentifier, SIGKILL)
        big.waitUntilExit()
        XCTAssertEqual(big.terminationStatus, SIGKILL)

        let database = try Database(path: db)
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
        XCTAssertEqual(try database.userVersion, 0)
        XCTAssertEqual(try database.scalarInt("SELECT count(*) FROM sqlite_master"), 0)
        XCTAssertEqual(try run(["run", "--quiet", "big.pipeline.json"]).0, 0)
        XCTAssertEqual(try database.scalarInt("SELECT count(*) FROM events"), 40_000)
        XCTAssertEqual(try database.journalMode, "wal")
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
    }

    func testSIGTERMMidWriteRollsBack() throws {
        try writeFeed("small.json", count: 20, prefix: "s", title: "Small")
        try writePipeline("small", feed: "small.json", source: "team")
        XCTAssertEqual(try run(["run", "--quiet", "small.pipeline.json"]).0, 0)
        let before = try snapshot()
        try writeFeed("big.json", count: 40_000, prefix: "b", title: "Big")
        try writePipeline("big", feed: "big.json", source: "team")
        let base = walSize()
        let (big, _, err) = try start(["run", "--quiet", "big.pipeline.json"])
        waitForWrites(big, beyond: base, bytes: 4 << 20)
        XCTAssertTrue(big.isRunning)
        kill(big.processIdentifier, SIGTERM)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        big.waitUntilExit()
        XCTAssertEqual(big.terminationReason, .exit)
        XCTAssertEqual(big.terminationStatus, 143, stderr)
        XCTAssertEqual(stderr, "calpipe: interrupted by SIGTERM: rolled back, nothing was written\n")
        XCTAssertEqual(try Database(path: db).integrityCheck(), ["ok"])
        XCTAssertEqual(try snapshot(), before)
    }

    func testTwoConcurrentRunsBothCommit() throws {
        try writeFeed("a.json", count: 3_000, prefix: "a", title: "Alpha")
        try writeFeed("b.json", count: 3_000, prefix: "b", title: "Beta")
        try writePipeline("a", feed: "a.json", source: "alpha")
        try writePipeline("b", feed: "b.json", source: "beta")
        // Two pipelines into one database: the second waits for the first's lock (--wait).
        let (pa, oa, ea) = try start(["run", "--quiet", "--wait", "120", "a.pipeline.json"])
        let (pb, ob, eb) = try start(["run", "--quiet", "--wait", "120", "b.pipeline.json"])
        for (process, out, err) in [(pa, oa, ea), (pb, ob, eb)] {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, stderr)
        }
        let database = try Database(path: db)
        XCTAssertEqual(try database.rows("SELECT source, count(*) FROM events GROUP BY source ORDER BY source"), [["alpha", 3_000], ["beta", 3_000]])
        XCTAssertEqual(try database.rows("SELECT count(*), count(DISTINCT pipeline) FROM runs WHERE status = 'ok'"), [[2, 2]])
        XCTAssertEqual(try database.scalarInt("SELECT count(*) FROM day_entries"), 6_000)
        // Both committed whole: every event of each feed, no half-written run.
        XCTAssertEqual(try database.integrityCheck(), ["ok"])
    }

    func testQueryPrintsTheAgendaAsATableAndAsJSON() throws {
        let feed = """
            [
             {"uid": "a@x", "title": "Standup", "start": "2026-11-10T10:00:00", "end": "2026-11-10T11:00:00", "timezone": "Europe/Berlin",
              "location": "Room 4", "attendees": ["Ann <ann@example.com>", "bob@example.com"]},
             {"uid": "b@x", "title": "Offsite", "start": "2026-11-12", "end": "2026-11-14"},
             {"uid": "d@x", "title": "Night shift", "start": "2026-11-25T22:00:00", "end": "2026-11-26T02:00:00", "timezone": "Europe/Berlin"}
            ]
            """
        try feed.write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        try writePipeline("q", feed: "feed.json", source: "team")
        XCTAssertEqual(try run(["run", "--quiet", "q.pipeline.json"]).0, 0)

        let (status, table, _) = try run(["query", "agenda.db"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(table, """
            DAY         TIME         TITLE              LOCATION  ATTENDEES
            2026-11-10  10:00-11:00  Standup            Room 4    Ann, bob@example.com
            2026-11-12  all day      Offsite (1/2)
            2026-11-13  all day      Offsite (2/2)
            2026-11-25  22:00-24:00  Night shift (1/2)
            2026-11-26  00:00-02:00  Night shift (2/2)

            """)
        XCTAssertEqual(try run(["query", "agenda.db", "--from", "2026-11-13", "--to", "2026-11-26"]).1, """
            DAY         TIME         TITLE              LOCATION  ATTENDEES
            2026-11-13  all day      Offsite (2/2)
            2026-11-25  22:00-24:00  Night shift (1/2)

            """)
        XCTAssertEqual(try run(["query", "agenda.db", "--day", "2026-11-01"]).1, "no agenda entries\n")
        let (jsonStatus, json, _) = try run(["query", "agenda.db", "--day", "2026-11-10", "--json"])
        XCTAssertEqual(jsonStatus, 0)
        XCTAssertEqual(json, """
            [
              {
                "day": "2026-11-10",
                "all_day": false,
                "start": "10:00",
                "end": "11:00",
                "starts_at_local": "2026-11-10T10:00:00",
                "ends_at_local": "2026-11-10T11:00:00",
                "duration_minutes": 60,
                "part": 1,
                "parts": 1,
                "title": "Standup",
                "location": "Room 4",
                "color": null,
                "status": null,
                "attendees": [
                  "Ann",
                  "bob@example.com"
                ],
                "source": "team",
                "uid": "a@x",
                "recurrence_id": null,
                "forecast": null
              }
            ]

            """)
        let (badStatus, _, badErr) = try run(["query", "agenda.db", "--day", "2026-11-10", "--from", "2026-11-01"])
        XCTAssertEqual(badStatus, 2)
        XCTAssertTrue(badErr.hasPrefix("Error: --day cannot be combined with --from or --to\n"), badErr)
        let (missingStatus, _, missingErr) = try run(["query", "missing.db"])
        XCTAssertEqual(missingStatus, 1)
        XCTAssertEqual(missingErr, "calpipe: error: sqlite missing.db: no such file\n")
    }
}
