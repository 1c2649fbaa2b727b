import Foundation
import XCTest

/// SIGINT and SIGTERM stop a real `calpipe run` at a safe point: every output keeps its old content, no
/// temporary file is left, and the exit code is 130 or 143 with one line saying so. A second signal, or a run
/// that does not stop within 3 s, ends the process at once, still without temporary files.
/// (Signals during the commit phase: CommitPhaseTests; at random moments: FaultInjectionTests.)
final class SignalTests: XCTestCase {
    private var dir: URL!
    private let oldJSON = "[\"the previous run's output\"]\n"
    private let oldICS = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        // Events come from standard input, so the test decides when the run can go on.
        let pipeline = """
            { "name": "signals", "timezone": "UTC",
              "sources": [ { "type": "json", "path": "-" } ],
              "sinks": [ { "type": "json", "path": "out/events.json", "shape": "events" }, { "type": "ics", "path": "out/events.ics" } ] }
            """
        try pipeline.write(to: dir.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
        try oldJSON.write(to: dir.appendingPathComponent("out/events.json"), atomically: true, encoding: .utf8)
        try oldICS.write(to: dir.appendingPathComponent("out/events.ics"), atomically: true, encoding: .utf8)
    }

    private var events: String {
        "[" + (0..<200).map { "{\"uid\": \"e\($0)\", \"title\": \"Event \($0)\", \"start\": \"2026-11-02T10:00:00Z\"}" }.joined(separator: ",") + "]"
    }

    /// Starts the run and waits until both sinks have their temporary files (the run is under way).
    private func startRun() throws -> CalpipeProcess {
        let child = try CalpipeProcess(["run", "p.json"], in: dir)
        let started = CalpipeProcess.wait { CalpipeProcess.temporaryFiles(under: self.dir).count == 2 }
        XCTAssertTrue(started, "the sinks never opened: \(CalpipeProcess.temporaryFiles(under: dir))")
        return child
    }

    private func assertOutputsUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("out/events.json"), encoding: .utf8), oldJSON, file: file, line: line)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("out/events.ics"), encoding: .utf8), oldICS, file: file, line: line)
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [], file: file, line: line)
    }

    func testSIGTERMRollsBackAndExits143() throws {
        let child = try startRun()
        child.signal(SIGTERM)
        child.write(events)
        let result = child.finish()
        XCTAssertEqual(result.code, 143, result.stderr)
        XCTAssertEqual(result.stderr, "calpipe: interrupted by SIGTERM: rolled back, nothing was written\n")
        try assertOutputsUntouched()
    }

    func testCtrlCRollsBackAndExits130() throws {
        let child = try startRun()
        child.signal(SIGINT)
        child.write(events)
        let result = child.finish()
        XCTAssertEqual(result.code, 130, result.stderr)
        XCTAssertEqual(result.stderr, "calpipe: interrupted by SIGINT: rolled back, nothing was written\n")
        try assertOutputsUntouched()
    }

    func testASecondSignalEndsAtOnceWithoutTemporaryFiles() throws {
        let child = try startRun()
        // The run is blocked reading standard input, which stays open: only a second signal can end it soon.
        // Signals sent close together may arrive as one, so send one every 100 ms until the process has ended.
        let started = Date()
        while child.process.isRunning && Date().timeIntervalSince(started) < 2.5 {
            child.signal(SIGINT)
            Thread.sleep(forTimeInterval: 0.1)
        }
        let result = child.finish()
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "a second signal must end the run at once")
        XCTAssertEqual(result.code, 130, result.stderr)
        XCTAssertEqual(result.stderr, "calpipe: interrupted by SIGINT again: stopped at once; nothing was written\n")
        try assertOutputsUntouched()
    }

    func testARunThatDoesNotStopWithin3SecondsIsEndedWithoutTemporaryFiles() throws {
        let child = try startRun()
        child.signal(SIGTERM)
        // Standard input stays open: the run cannot reach a safe point.
        XCTAssertTrue(CalpipeProcess.wait(seconds: 10) { !child.process.isRunning })
        let result = child.finish()
        XCTAssertEqual(result.code, 143, result.stderr)
        XCTAssertEqual(result.stderr, "calpipe: interrupted by SIGTERM and the run did not stop within 3 s: stopped at once; nothing was written\n")
        try assertOutputsUntouched()
    }

    func testWithoutASignalTheSameRunWritesBothOutputs() throws {
        // The control for the tests above: the same run, not interrupted, replaces both files.
        let result = try CalpipeProcess.run(["run", "-q", "p.json"], in: dir, stdin: events)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(try String(contentsOf: dir.appendingPathComponent("out/events.json"), encoding: .utf8).contains("\"uid\": \"e199\""))
        XCTAssertTrue(try String(contentsOf: dir.appendingPathComponent("out/events.ics"), encoding: .utf8).contains("UID:e199"))
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }
}
