import Foundation
import XCTest

/// Issue 30 item 3: a feed of runaway series (every second, each instance nine months long) keeps
/// `calpipe convert --shape days` busy for minutes even with the split stage's cap; SIGTERM must still stop it
/// within a second or so (the expansion and split loops check for it), roll back and exit 143.
final class RunawaySeriesSignalTests: XCTestCase {
    func testSIGTERMStopsAConvertOfRunawaySeriesWithin2Seconds() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe tests//EN\r\n"
        for n in 0..<40 {
            ics += "BEGIN:VEVENT\r\nUID:secondly-\(n)@x\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T0000\(String(format: "%02d", n))Z\r\n"
                + "DURATION:P270D\r\nRRULE:FREQ=SECONDLY\r\nSUMMARY:Every second for nine months\r\nEND:VEVENT\r\n"
        }
        ics += "END:VCALENDAR\r\n"
        try ics.write(to: dir.appendingPathComponent("runaway.ics"), atomically: true, encoding: .utf8)

        let child = try CalpipeProcess(["convert", "runaway.ics", "-o", "out.json", "--shape", "days", "--from", "2026-10-01", "--to", "2026-11-01"], in: dir)
        // Under way: the json sink has its temporary file; then a second into the expansion and split.
        XCTAssertTrue(CalpipeProcess.wait(seconds: 30) { !CalpipeProcess.temporaryFiles(under: dir).isEmpty || !child.process.isRunning })
        Thread.sleep(forTimeInterval: 1)
        XCTAssertTrue(child.process.isRunning, "the run ended before the signal: the feed is too small to test with")
        let sent = Date()
        child.signal(SIGTERM)
        XCTAssertTrue(CalpipeProcess.wait(seconds: 10) { !child.process.isRunning })
        let stopped = Date().timeIntervalSince(sent)
        let result = child.finish()
        XCTAssertLessThan(stopped, 2, "SIGTERM took \(stopped) s to stop the run")
        XCTAssertEqual(result.code, 143, result.stderr)
        XCTAssertTrue(result.stderr.hasSuffix("calpipe: interrupted by SIGTERM: rolled back, nothing was written\n"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }
}
