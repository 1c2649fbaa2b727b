import CalSQLite
import Foundation
import Pipeline
import XCTest

/// Tests that spawn the real calpipe executable: kills mid-write, concurrent runs, `calpipe query`.
final class SQLiteProcessTests: XCTestCase {
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("agenda.db").path }

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The calpipe built next to this test bundle (swift build --build-tests builds both).
    private func calpipe() throws -> URL { try builtCalpipe(near: Self.self) }

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

    /// Set for every process the test starts (SOURCE_DATE_EPOCH fixes "today").
    private static let fixedNow = ["SOURCE_DATE_EPOCH": "1794787200"]  // 2026-11-16 00:00 UTC, a Monday
    /// That run time's day in Berlin.
    private static let fixedToday = PipelineEnvironment.today(in: Zone.system(identifier: "Europe/Berlin")!,
                                                             now: Date(timeIntervalSince1970: 1_794_787_200))

    private func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try calpipe()
        process.arguments = arguments
        process.currentDirectoryURL = dir
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "COLUMNS")
        for (k, v) in Self.fixedNow { environment[k] = v }
        process.environment = environment
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

        // Days that are today are marked "(today)" (the clock's day).
        let clockDay = Self.fixedToday.iso8601
        func mark(_ iso: String) -> String { iso == clockDay ? " (today)" : "" }
        let (status, table, _) = try run(["query", "agenda.db", "--from", "2026-11-10", "--to", "2026-11-14"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(table, """
            Tue 2026-11-10\(mark("2026-11-10"))
              10:00-11:00  Standup  Room 4  Ann, bob@example.com
            Wed 2026-11-11\(mark("2026-11-11"))
              no events
            Thu 2026-11-12\(mark("2026-11-12"))
              all day      Offsite (1/2)
            Fri 2026-11-13\(mark("2026-11-13"))
              all day      Offsite (2/2)

            """)
        XCTAssertEqual(try run(["query", "agenda.db", "--day", "2026-11-25", "--days", "2", "--width", "30"]).1, """
            Wed 2026-11-25\(mark("2026-11-25"))
              22:00-24:00  Night shift (1…
            Thu 2026-11-26\(mark("2026-11-26"))
              00:00-02:00  Night shift (2…

            """)
        // Relative days are read from today (SOURCE_DATE_EPOCH, in the pipeline's zone, as pipelines read it).
        let today = Self.fixedToday
        let names = WeekdayNames(locale: "en")
        func header(_ d: CivilDate) -> String { names.shortName(of: d) + " " + d.iso8601 }
        XCTAssertTrue(try run(["query", "agenda.db", "--day", "tomorrow"]).1.hasPrefix(header(today.adding(days: 1)) + "\n"))
        XCTAssertTrue(try run(["query", "agenda.db", "--day", "today"]).1.hasPrefix(header(today) + " (today)\n"))
        XCTAssertTrue(try run(["query", "agenda.db", "--day=-4"]).1.hasPrefix(header(today.adding(days: -4)) + "\n"))
        let wednesday = today.adding(days: (3 - today.isoWeekday + 7) % 7)
        XCTAssertTrue(try run(["query", "agenda.db", "--day", "wednesday", "--days", "1"]).1.hasPrefix(header(wednesday) + (wednesday == today ? " (today)" : "") + "\n"))
        XCTAssertEqual(try run(["query", "agenda.db", "--day", "2026-11-12"]).1, "Thu 2026-11-12" + (today.iso8601 == "2026-11-12" ? " (today)" : "") + "\n  all day      Offsite (1/2)\n")
        let (badDay, _, badDayErr) = try run(["query", "agenda.db", "--day", "someday"])
        XCTAssertEqual(badDay, 2)
        XCTAssertTrue(badDayErr.hasPrefix("Error: --day: invalid day \"someday\" (expected YYYY-MM-DD, today, tomorrow, yesterday, +N, -N, a weekday such as monday, today+Nd or today-Nw)"), badDayErr)
        // --json: the days document, as the json sink writes it (docs/agenda-days.schema.json).
        let (jsonStatus, json, _) = try run(["query", "agenda.db", "--day", "2026-11-10", "--json"])
        XCTAssertEqual(jsonStatus, 0)
        let doc = try JSONParser.parse(json)
        XCTAssertEqual(doc.objectValue?.keys, ["generated_at", "pipeline", "timezone", "window", "locale", "attribution", "sources", "days"])
        XCTAssertEqual(doc.value(atDottedPath: "generated_at"), .string("2026-11-16T00:00:00Z"))
        let standup = doc.value(atDottedPath: "days.0.entries.0")
        XCTAssertEqual(standup?.objectValue?.keys, ["id", "uid", "title", "description", "location", "url", "color", "all_day", "start", "end",
                                                    "duration_minutes", "starts_at", "ends_at", "part", "parts", "attendees", "attendee_count",
                                                    "status", "source", "calendar"])
        XCTAssertEqual(standup?.value(atDottedPath: "id"), .string(StableHashForTest.id(source: "team", uid: "a@x", day: "2026-11-10")))
        XCTAssertEqual(doc.value(atDottedPath: "days.0.weather"), .object(JSONObject([("available", .bool(false)), ("reason", .string("no-forecast"))])))
        let (badStatus, _, badErr) = try run(["query", "agenda.db", "--day", "2026-11-10", "--from", "2026-11-01"])
        XCTAssertEqual(badStatus, 2)
        XCTAssertTrue(badErr.hasPrefix("Error: --day and --days cannot be combined with --from or --to\n"), badErr)
        let (missingStatus, _, missingErr) = try run(["query", "missing.db"])
        XCTAssertEqual(missingStatus, 1)
        XCTAssertEqual(missingErr, "calpipe: error: sqlite missing.db: no such file\n")
    }

    /// Issue 17: a database made with a window around today, read with `--day tomorrow`, with the day's
    /// weather from the bundled sample forecast (it covers October to December 2026).
    func testQueryTomorrowOnAWindowAroundToday() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("data/forecast-sample.json").path
        // "Today" of the runs: SOURCE_DATE_EPOCH (fixedNow) fixes it for the pipeline and for query alike.
        let today = Self.fixedToday
        let tomorrow = today.adding(days: 1), lastWeek = today.adding(days: -6)
        try """
            [{"uid": "t@x", "title": "Dentist", "start": "\(tomorrow.iso8601)T08:30:00", "end": "\(tomorrow.iso8601)T09:00:00", "timezone": "Europe/Berlin"},
             {"uid": "r@x", "title": "Run", "start": "\(lastWeek.iso8601)T07:00:00", "end": "\(lastWeek.iso8601)T07:30:00", "timezone": "Europe/Berlin",
              "rrule": "FREQ=WEEKLY"}]
            """.write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        try """
            {"name": "around-today", "timezone": "Europe/Berlin", "window": {"from": "today-2d", "to": "today+5d"}, "locale": "de",
             "location": {"latitude": 52.52, "longitude": 13.41},
             "sources": [{"type": "json", "path": "feed.json", "name": "me"}],
             "stages": [{"type": "expand"}, {"type": "split"}, {"type": "forecast", "provider": "file", "path": "\(sample)"}],
             "sinks": [{"type": "sqlite", "path": "agenda.db"}, {"type": "json", "path": "days.json"}]}
            """.write(to: dir.appendingPathComponent("t.pipeline.json"), atomically: true, encoding: .utf8)
        let names = WeekdayNames(locale: "de")
        let (status, _, err) = try run(["run", "--quiet", "t.pipeline.json"])
        XCTAssertEqual(status, 0, err)
        let (queryStatus, table, queryErr) = try run(["query", "agenda.db", "--day", "tomorrow", "--days", "2"])
        XCTAssertEqual(queryStatus, 0, queryErr)
        let lines = table.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5, table)
        XCTAssertTrue(lines[0].hasPrefix(names.shortName(of: tomorrow) + " " + tomorrow.iso8601), table)
        // The weekly run (from six days ago) is expanded: tomorrow has its instance.
        XCTAssertEqual(lines[1], "  07:00-07:30  Run")
        XCTAssertEqual(lines[2], "  08:30-09:00  Dentist")
        XCTAssertTrue(lines[3].hasPrefix(names.shortName(of: tomorrow.adding(days: 1)) + " " + tomorrow.adding(days: 1).iso8601), table)
        XCTAssertEqual(lines[4], "  no events")
        // The weather text of the header comes from the day's one record in the days document.
        let document = try JSONParser.parse(String(contentsOf: dir.appendingPathComponent("days.json"), encoding: .utf8))
        let tomorrowDay = try XCTUnwrap(document.value(atDottedPath: "days")?.arrayValue?.first { $0.value(atDottedPath: "date") == .string(tomorrow.iso8601) })
        if let summary = tomorrowDay.value(atDottedPath: "weather.summary")?.stringValue {
            XCTAssertTrue(lines[0].contains(summary), table)
        }
        // --json gives the sink's day, member for member (the same ids, weather and entries).
        let (_, json, _) = try run(["query", "agenda.db", "--day", "tomorrow", "--json"])
        XCTAssertEqual(try JSONParser.parse(json).value(atDottedPath: "days.0"), tomorrowDay)
        // The whole window (today-2d to today+5d), today marked, empty days listed.
        let (_, week, _) = try run(["query", "agenda.db"])
        XCTAssertEqual(week.split(separator: "\n").filter { $0.hasPrefix("  ") == false }.count, 7, week)
        XCTAssertTrue(week.contains(names.shortName(of: today) + " " + today.iso8601 + " (today)"), week)
        XCTAssertEqual(week.components(separatedBy: "  no events").count - 1, 6, week)
    }
}

enum StableHashForTest {
    static func id(source: String, uid: String, day: String) -> String {
        String(DayEntry.stableIDValue(source: source, uid: uid, instance: "", day: ISODate.parseDate(day)!)!, radix: 16).leftPadded(16)
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
