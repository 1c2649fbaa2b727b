import CalSQLite
import Foundation
import XCTest
@testable import Pipeline

/// What a scheduled run (cron, a systemd timer) meets, through the real `calpipe` binary: an unchanged feed,
/// an emptied or broken feed (issue 16: the database keeps its rows, exit 1 or 3), an overlapping run (issue 18:
/// one run at a time), temporary files a killed run left behind.
final class ScheduledRunTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try TestSupport.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    struct Result {
        var code: Int32
        var stderr: String
    }

    func calpipe(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        process.environment = env
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(code: process.terminationStatus, stderr: String(decoding: errData, as: UTF8.self))
    }

    func write(_ text: String, _ name: String) throws {
        try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    static func calendar(_ uids: [String], title: String = "Meeting") -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe//test//EN\r\n"
        for (i, uid) in uids.enumerated() {
            text += "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:202611\(10 + i % 15)T090000Z\r\n"
            text += "DTEND:202611\(10 + i % 15)T100000Z\r\nSUMMARY:\(title) \(i)\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    func pipeline(sources: String, sinks: String = #"[{"type": "sqlite", "path": "agenda.db"}]"#) throws {
        try write("""
            {"name": "team", "timezone": "UTC", "window": {"from": "2026-11-01", "to": "2026-12-01"},
             "sources": \(sources), "stages": [{"type": "expand"}, {"type": "split"}], "sinks": \(sinks)}
            """, "p.json")
    }

    func count(_ sql: String) throws -> Int {
        try Database(path: dir.appendingPathComponent("agenda.db").path, configuration: .init(readOnly: true)).scalarInt(sql) ?? -1
    }

    func testUnchangedFeedIsNotReadAgainAndFullReadsIt() throws {
        try write(Self.calendar(["a", "b", "c"]), "a.ics")
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}]"#)
        XCTAssertEqual(try calpipe(["run", "p.json"]).code, 0)
        let again = try calpipe(["run", "p.json"])
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("calpipe:   sources unchanged (not read): 1\n"), again.stderr)
        let full = try calpipe(["run", "--full", "p.json"])
        XCTAssertEqual(full.code, 0, full.stderr)
        XCTAssertFalse(full.stderr.contains("sources unchanged"), full.stderr)
        XCTAssertTrue(full.stderr.hasPrefix("calpipe: team: 3 events read"), full.stderr)
    }

    func testEmptiedFeedKeepsItsRowsAndExits1UnlessAllowed() throws {
        try write(Self.calendar(["a", "b", "c"]), "a.ics")
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}]"#)
        XCTAssertEqual(try calpipe(["run", "p.json"]).code, 0)
        try write("", "a.ics")
        let result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: error: a.ics: the input is empty, but the database remembers events from it: they are kept (set \"allow_empty\": true on the source if this feed may really be empty)\n"), result.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM events"), 3)
        XCTAssertEqual(try count("SELECT count(*) FROM day_entries"), 3)
        // The feed that may truly empty out.
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics", "allow_empty": true}]"#)
        let allowed = try calpipe(["run", "p.json"])
        XCTAssertEqual(allowed.code, 0, allowed.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM events"), 0)
    }

    func testInputWithoutEventsWarnsWithTheReasonAndExits3() throws {
        try write(Self.calendar(["a", "b"]), "a.ics")
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}]"#)
        XCTAssertEqual(try calpipe(["run", "p.json"]).code, 0)
        try write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nSUMMARY:Todo\r\nEND:VTODO\r\nEND:VCALENDAR\r\n", "a.ics")
        let result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: warning: a.ics: 90 bytes read but no events in them (no event records of this format found); the rows the database has from it are kept\n"), result.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM events"), 2)
    }

    func testFailingSourceKeepsItsRowsAndTheOthersAreWritten() throws {
        try write(Self.calendar(["a1", "a2"]), "a.ics")
        try write(Self.calendar(["b1", "b2", "b3"]), "b.ics")
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}, {"type": "ics", "path": "b.ics"}]"#)
        XCTAssertEqual(try calpipe(["run", "p.json"]).code, 0)
        // A file that is gone is a pipeline problem, found before anything runs (as `validate` finds it): nothing changes.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("b.ics"))
        try write(Self.calendar(["a1", "a2", "a3"], title: "Changed"), "a.ics")
        let gone = try calpipe(["run", "p.json"])
        XCTAssertEqual(gone.code, 2, gone.stderr)
        XCTAssertEqual(gone.stderr, "p.json: sources[1].path: cannot read \"b.ics\": no such file\n")
        XCTAssertEqual(try count("SELECT count(*) FROM events WHERE source = 'a.ics' AND title LIKE 'Changed%'"), 0)
        // A file that fails while it is read (a server's error page saved in its place): its rows are kept, the
        // others are written.
        try write("<html><body>502 Bad Gateway</body></html>\n", "b.ics")
        let result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("; the rows of b.ics are kept\n"), result.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM events WHERE source = 'a.ics' AND title LIKE 'Changed%'"), 3)
        XCTAssertEqual(try count("SELECT count(*) FROM events WHERE source = 'b.ics'"), 3)
    }

    func testOverlappingRunExitsNamingTheOtherOrWaitsForIt() throws {
        try write(Self.calendar(["a"]), "a.ics")
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}]"#)
        // Another run of the same pipeline.
        var lock = try RunLock.acquire(path: RunLock.path(for: dir.appendingPathComponent("p.json").path, environment: ProcessInfo.processInfo.environment), pipeline: "team", wait: 0)
        XCTAssertNotNil(lock)
        var result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.stderr.hasPrefix("calpipe: error: p.json: another run of this pipeline is in progress: pid \(getpid()), started 20"), result.stderr)
        XCTAssertTrue(result.stderr.hasSuffix(" (pipeline team); not started (calpipe run --wait SECONDS waits for it)\n"), result.stderr)
        lock?.release()
        // Another pipeline writing the same database.
        lock = try RunLock.acquire(path: RunLock.path(for: dir.appendingPathComponent("agenda.db").path, environment: ProcessInfo.processInfo.environment), pipeline: "other", wait: 0)
        result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.stderr.hasPrefix("calpipe: error: sqlite agenda.db: another calpipe run is writing this database: pid \(getpid()), started 20"), result.stderr)
        XCTAssertTrue(result.stderr.hasSuffix(" (pipeline other); nothing was written (calpipe run --wait SECONDS waits for it)\n"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("agenda.db").path))
        // --wait: the run waits until the other lets go.
        nonisolated(unsafe) let holder = lock
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { holder?.release() }
        let started = Date()
        result = try calpipe(["run", "--wait", "20", "p.json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.4)
        XCTAssertEqual(try count("SELECT count(*) FROM events"), 1)
    }

    func testStaleTemporaryFilesAreRemovedByTheNextRun() throws {
        try write(Self.calendar(["a"]), "a.ics")
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let stale = out.appendingPathComponent(".agenda.json.calpipe-Ab12Cd").path
        let live = out.appendingPathComponent(".agenda.json.calpipe-Zz99Yy").path
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: live, contents: Data()))
        // A run that is still writing holds its temporary file locked.
        let fd = open(live, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        try pipeline(sources: #"[{"type": "ics", "path": "a.ics"}]"#, sinks: #"[{"type": "json", "path": "out/agenda.json", "shape": "days"}]"#)
        let result = try calpipe(["run", "p.json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "the stale temporary file is still there")
        XCTAssertTrue(FileManager.default.fileExists(atPath: live), "a live temporary file was removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("agenda.json").path))
    }
}
