import CalSQLite
import CalXML
import Exporters
import Foundation
@testable import Pipeline
import XCTest

/// The one error type users see: its one-line text, its exit code, and other errors (Foundation's, the C
/// library's, SQLite's, the wrappers') said in our words by `CalpipeError(_:)` and `CalpipeError.report`.
final class CalpipeErrorTests: XCTestCase {
    func testTheLineNamesFileLineColumnAndPath() {
        XCTAssertEqual("\(CalpipeError("malformed line", file: "feed.ics", line: 12))", "feed.ics:12: malformed line")
        XCTAssertEqual("\(CalpipeError("expected \",\"", file: "cal.json", line: 3, column: 7))", "cal.json:3:7: expected \",\"")
        XCTAssertEqual("\(CalpipeError("expected a value", line: 3, column: 7))", "line 3, column 7: expected a value")
        XCTAssertEqual("\(CalpipeError.rejected("expected a date", path: "when.begin"))", "when.begin: expected a date")
        XCTAssertEqual("\(CalpipeError("cannot read: no such file", file: "feeds/a.ics"))", "feeds/a.ics: cannot read: no such file")
        XCTAssertEqual("\(CalpipeError("it broke"))", "it broke")
        XCTAssertEqual("\(CalpipeError.config(file: "p.json", path: "sinks[0].shape", "unknown shape \"day\""))", "p.json: sinks[0].shape: unknown shape \"day\"")
        XCTAssertEqual("\(CalpipeError.config(file: "p.json", path: "", "expected a JSON object at the top level, got an array"))",
                       "p.json: expected a JSON object at the top level, got an array")
        XCTAssertEqual("\(CalpipeError("expected a value", line: 3).inFile("in.json"))", "in.json:3: expected a value")
    }

    func testEachKindHasTheREADMEsExitCode() {
        XCTAssertEqual(CalpipeError.config(file: "p.json", path: "", "x").exitCode, 2)
        XCTAssertEqual(CalpipeError("x").exitCode, 1)
        XCTAssertEqual(CalpipeError.rejected("x").exitCode, 1, "a record problem no source caught fails the run")
        XCTAssertEqual(CalpipeError.interrupted("SIGINT").exitCode, 130)
        XCTAssertEqual(CalpipeError.interrupted("SIGTERM").exitCode, 143)
        XCTAssertEqual("\(CalpipeError.interrupted("SIGTERM"))", "interrupted by SIGTERM: nothing was written")
        XCTAssertTrue(CalpipeError.interrupted("SIGINT").isInterruption)
        XCTAssertFalse(CalpipeError("x").isInterruption)
    }

    func testReportGivesThePrintedLinesAndTheExitCode() {
        let config = ConfigErrors([.config(file: "p.json", path: "sources[0].type", "unknown source type \"icss\""),
                                   .config(file: "p.json", path: "sinks", "expected an array")])
        XCTAssertEqual(CalpipeError.report(config).lines, ["p.json: sources[0].type: unknown source type \"icss\"", "p.json: sinks: expected an array"])
        XCTAssertEqual(CalpipeError.report(config).exitCode, 2)
        XCTAssertEqual(CalpipeError(config).exitCode, 2)
        let failure = CalpipeError.report(CalpipeError("cannot read: no such file", file: "a.ics"))
        XCTAssertEqual(failure.lines, ["calpipe: error: a.ics: cannot read: no such file"])
        XCTAssertEqual(failure.exitCode, 1)
        let usage = CalpipeError.report(CalpipeError.config(file: "--set x", path: "", "expected KEY=VALUE"))
        XCTAssertEqual(usage.lines, ["--set x: expected KEY=VALUE"])
        XCTAssertEqual(usage.exitCode, 2)
        XCTAssertEqual(CalpipeError.report(CalpipeError.interrupted("SIGINT")).exitCode, 130)
    }

    /// Foundation's errors are said in our words (with the file when Foundation gave it); the original is kept.
    func testFoundationErrorsAreWrapped() throws {
        let missing = NSTemporaryDirectory() + "calpipe-no-such-\(UUID().uuidString).json"
        XCTAssertThrowsError(try Data(contentsOf: URL(fileURLWithPath: missing))) { error in
            let wrapped = CalpipeError(error)
            XCTAssertEqual(wrapped.message, "no such file")
            XCTAssertEqual("\(wrapped)", missing + ": no such file")
            XCTAssertNotNil(wrapped.cause)
        }
        XCTAssertEqual("\(CalpipeError(POSIXError(.ENOSPC)))", "the disk is full")
        XCTAssertEqual("\(CalpipeError(CocoaError(.fileReadNoPermission)))", "permission denied")
        XCTAssertEqual("\(CalpipeError(NSError(domain: "SomeDomain", code: 7, userInfo: [NSLocalizedDescriptionKey: "The operation couldn't be completed."])))",
                       "unexpected system error (SomeDomain 7)")
        XCTAssertEqual(CalpipeError.report(POSIXError(.EACCES)).lines, ["calpipe: error: permission denied"])
        // Not C library text either.
        XCTAssertEqual(FileProblem.reason(errorNumber: EPROTO), "unexpected system error (errno \(EPROTO))")
    }

    /// Errors of the wrapper targets and the JSON parser become CalpipeErrors with their place.
    func testWrapperErrorsConvert() {
        XCTAssertEqual("\(CalpipeError(JSONSyntaxError(message: "expected a value", line: 2, column: 5)))", "line 2, column 5: expected a value")
        XCTAssertEqual("\(CalpipeError(XMLError(message: "unclosed tag", line: 4, column: 2, file: "feed.xml")))", "feed.xml:4:2: unclosed tag")
        let sqlite = CalpipeError(SQLiteError(code: 13, message: "database or disk is full", sql: "INSERT INTO events ..."))
        XCTAssertEqual("\(sqlite)", "the disk is full; nothing was written")
        XCTAssertEqual(SQLiteError(code: 5, message: "database is locked").reason, "the database is locked by another program")
    }

    func testAScratchFileInAFolderThatIsAFileSaysSoInOurWords() throws {
        let file = NSTemporaryDirectory() + "calpipe-scratch-blocker-\(UUID().uuidString)"
        try Data().write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        XCTAssertThrowsError(try ScratchFile(directory: file + "/spill")) { error in
            XCTAssertEqual("\(error)", "cannot create a temporary file in \(file)/spill (a part of the path is a file, not a folder)")
        }
    }

    func testAHeldLockSaysWhoHoldsItAndWhatToDo() throws {
        let path = NSTemporaryDirectory() + "calpipe-lock-\(UUID().uuidString)"
        defer { unlink(path) }
        let first = try XCTUnwrap(RunLock.acquire(path: path, pipeline: "team", wait: 0))
        defer { first.release() }
        XCTAssertThrowsError(try RunLock.acquire(path: path, pipeline: "other", wait: 0.1, label: "p.json", held: "another run of this pipeline is in progress")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("p.json: another run of this pipeline is in progress: pid \(getpid()), started 20"), text)
            XCTAssertTrue(text.hasSuffix("Z (pipeline team); gave up after waiting 100 ms; not started (calpipe run --wait SECONDS waits for it)"), text)
            XCTAssertEqual((error as? CalpipeError)?.exitCode, 1)
        }
    }

    /// The exit code of a run that did not throw: 1 when sources failed, 3 for rejections or empty inputs, else 0.
    func testARunsExitStatusFollowsItsReport() {
        let report = RunReport()
        XCTAssertEqual(ExitStatus.of(report).code, 0)
        XCTAssertEqual(ExitStatus.of(report).reason, "done")
        report.reject(SourceLocation(file: "a.ics", line: 3), "no DTSTART")
        XCTAssertEqual(ExitStatus.of(report).code, 3)
        XCTAssertEqual(ExitStatus.of(report).reason, "rejected records")
        report.keepSource("b.ics: cannot read: no such file; the rows of b.ics are kept")
        XCTAssertEqual(ExitStatus.of(report).code, 1)
    }
}
