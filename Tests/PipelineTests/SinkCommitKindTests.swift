import CalSQLite
import CalpipeKit
import Exporters
import Foundation
import XCTest
@testable import Pipeline

/// Sinks declare how they commit (`Sink.commitKind`, `SinkCommit`), the runner commits in that order (files
/// prepared, transactions, renames, remote sinks), and sinks report what became of each record
/// (`RunReport.record`, `RecordOutcomes`); a remote record that failed fails the run after every output committed.
final class SinkCommitKindTests: XCTestCase {
    typealias T = TestSupport

    /// What the test sinks did, in order, across sinks.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    /// A sink that writes nothing and says how it commits; at its commit it looks at `watched` (a file another sink
    /// writes), to tell whether that file was renamed yet.
    final class Declared: Sink {
        let name: String
        let kind: SinkCommit
        let log: Log
        let watched: String?
        init(_ name: String, _ kind: SinkCommit, log: Log, watched: String? = nil) {
            (self.name, self.kind, self.log, self.watched) = (name, kind, log, watched)
        }
        var needs: BatchContent { .events }
        var label: String { name }
        var commitKind: SinkCommit { kind }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {}
        func commit(context: RunContext) throws -> Int {
            var line = "commit \(name)"
            if let watched { line += " (watched file: " + ((try? String(contentsOfFile: watched, encoding: .utf8))?.contains("new0") == true ? "new)" : "old)") }
            log.add(line)
            return 0
        }
        func abort(context: RunContext) { log.add("abort \(name)") }
    }

    /// Wraps a standard sink, logging its commit and abort.
    final class Logged: Sink {
        let inner: any Sink
        let log: Log
        init(_ inner: any Sink, log: Log) { (self.inner, self.log) = (inner, log) }
        var needs: BatchContent { inner.needs }
        var label: String { inner.label }
        var commitKind: SinkCommit { inner.commitKind }
        func open(context: RunContext) throws { try inner.open(context: context) }
        func write(_ batch: Batch, context: RunContext) throws { try inner.write(batch, context: context) }
        func commit(context: RunContext) throws -> Int {
            log.add("commit \(label)")
            return try inner.commit(context: context)
        }
        func abort(context: RunContext) {
            log.add("abort \(label)")
            inner.abort(context: context)
        }
    }

    /// A test-only remote sink: "sends" each event as it writes (to `sent`, which nothing takes back), reports each
    /// one's outcome, and refuses the UIDs in `refused` (outcome `.failed`).
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class RemoteRecorder: Sink, @unchecked Sendable {
        let log: Log
        let refused: Set<String>
        let failCommit: Bool
        let cancelWhileWriting: Bool
        private(set) var sent: [String] = []
        init(log: Log, refused: Set<String> = [], failCommit: Bool = false, cancelWhileWriting: Bool = false) {
            (self.log, self.refused, self.failCommit, self.cancelWhileWriting) = (log, refused, failCommit, cancelWhileWriting)
        }
        var needs: BatchContent { .events }
        var label: String { "remote test" }
        var commitKind: SinkCommit { .remote }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {
            for event in batch.events {
                if refused.contains(event.uid) {
                    context.report.recordFailure(sink: label, record: "UID \"\(event.uid)\"", reason: "the server answered 409 Conflict")
                } else {
                    sent.append(event.uid)
                    context.report.record(.created, sink: label)
                }
            }
            if cancelWhileWriting { context.cancellation.cancel(reason: "SIGINT") }
        }
        func commit(context: RunContext) throws -> Int {
            log.add("commit \(label)")
            if failCommit { throw CalpipeError("remote test: the server went away") }
            return sent.count
        }
        func abort(context: RunContext) { log.add("abort \(label)") }
    }

    private var dir: URL!

    override func setUpWithError() throws {
        dir = try T.temporaryDirectory()
    }

    private var jsonPath: String { dir.appendingPathComponent("events.json").path }
    private var databasePath: String { dir.appendingPathComponent("agenda.sqlite").path }

    private func events(_ prefix: String, count: Int = 30) -> [Event] {
        (0..<count).map { Event(uid: "\(prefix)\($0)", start: .floating(T.local(2026, 11, 2 + $0 % 20, 9)), title: "\(prefix) \($0)") }
    }

    @discardableResult
    private func run(_ events: [Event], sinks: [any Sink]) throws -> RunContext { try T.runExpandedAndSplit(events, sinks: sinks) }

    private func databaseUIDs() throws -> [String] { try T.eventUIDs(inDatabase: databasePath) }

    private func json() throws -> String { try String(contentsOfFile: jsonPath, encoding: .utf8) }

    func testStandardSinksDeclareHowTheyCommit() throws {
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "UTC"])
        let text = #"""
            {"sources": [{"type": "json", "path": "a.json"}], "stages": [{"type": "expand"}, {"type": "split"}],
             "sinks": [{"type": "json", "path": "out.json"}, {"type": "ics", "path": "out.ics"}, {"type": "xcal", "path": "out.xml"},
                       {"type": "jcal", "path": "out.jcs"}, {"type": "html", "path": "out.html"}, {"type": "sqlite", "path": "out.db"},
                       {"type": "json", "path": "-"}, {"type": "ics", "path": "-"}]}
            """#
        let pipeline = try loader.load(json: try JSONParser.parse(text), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
        XCTAssertEqual(pipeline.sinks.map(\.commitKind), [.file, .file, .file, .file, .file, .transaction, .transaction, .transaction])
    }

    func testASinkThatDoesNotSayCommitsAsATransaction() {
        final class Unsaid: Sink {
            var needs: BatchContent { .events }
            var label: String { "unsaid" }
            func open(context: RunContext) throws {}
            func write(_ batch: Batch, context: RunContext) throws {}
            func commit(context: RunContext) throws -> Int { 0 }
            func abort(context: RunContext) {}
        }
        XCTAssertEqual(Unsaid().commitKind, .transaction)
    }

    func testTheRunnerCommitsInTheDeclaredOrderNotByTemporaryFiles() throws {
        try run(events("old"), sinks: [JSONExporter(path: jsonPath, shape: .events)])
        let log = Log()
        // "declared file" registers no temporary file: it still commits with the files, before the transaction.
        try run(events("new"), sinks: [RemoteRecorder(log: log), Declared("transaction", .transaction, log: log, watched: jsonPath),
                                       Logged(JSONExporter(path: jsonPath, shape: .events), log: log), Declared("declared file", .file, log: log)])
        XCTAssertEqual(log.all, ["commit json \(jsonPath)", "commit declared file", "commit transaction (watched file: old)", "commit remote test"])
        XCTAssertTrue(try json().contains("new0"))
    }

    func testARemoteSinkCommitsAfterTheFilesAreRenamed() throws {
        try run(events("old"), sinks: [JSONExporter(path: jsonPath, shape: .events)])
        let log = Log()
        try run(events("new"), sinks: [Declared("remote", .remote, log: log, watched: jsonPath), JSONExporter(path: jsonPath, shape: .events)])
        XCTAssertEqual(log.all, ["commit remote (watched file: new)"])
    }

    func testAFailedRemoteRecordFailsTheRunAfterEveryOtherSinkCommitted() throws {
        let log = Log()
        let remote = RemoteRecorder(log: log, refused: ["new7"])
        let context = try run(events("new"), sinks: [remote, JSONExporter(path: jsonPath, shape: .events), SQLiteSink(path: databasePath)])
        let report = context.report
        // Every local output is written, and the remote sink committed what it sent.
        XCTAssertTrue(try json().contains("\"uid\": \"new29\""))
        XCTAssertEqual(try databaseUIDs(), events("new").map(\.uid).sorted())
        XCTAssertEqual(remote.sent.count, 29)
        XCTAssertEqual(log.all, ["commit remote test"])
        XCTAssertEqual(report.recordsFailed, 1)
        XCTAssertEqual(report.failedRecords, [#"remote test: UID "new7": the server answered 409 Conflict"#])
        XCTAssertEqual("\(report.outcomes(of: "remote test"))", "29 created, 1 failed")
        XCTAssertEqual("\(report.outcomes(of: "sqlite \(databasePath)"))", "30 created")
        XCTAssertEqual(report.rowsWritten.map(\.sink), ["json \(jsonPath)", "sqlite \(databasePath)", "remote test"])
        let status = ExitStatus.of(report)
        XCTAssertEqual(status.code, 1)
        XCTAssertEqual(status.reason, "records failed to write; the other records and outputs were committed")
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    func testARemoteCommitThatThrowsLeavesTheLocalOutputsWritten() throws {
        try run(events("old"), sinks: [JSONExporter(path: jsonPath, shape: .events)])
        let log = Log()
        XCTAssertThrowsError(try run(events("new"), sinks: [RemoteRecorder(log: log, failCommit: true),
                                                            Logged(JSONExporter(path: jsonPath, shape: .events), log: log)])) { error in
            XCTAssertEqual("\(error)", "remote test: the server went away")
            XCTAssertEqual(CalpipeError(error).exitCode, 1)
        }
        // The json file was renamed before the remote sink committed, and is not aborted afterwards.
        XCTAssertEqual(log.all, ["commit json \(jsonPath)", "commit remote test", "abort remote test"])
        XCTAssertTrue(try json().contains("new0"))
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    func testASignalRollsBackTheLocalOutputsButNotWhatARemoteSinkSent() throws {
        try run(events("old"), sinks: [JSONExporter(path: jsonPath, shape: .events)])
        let old = try json()
        let log = Log()
        let remote = RemoteRecorder(log: log, cancelWhileWriting: true)
        let context = T.context()
        XCTAssertThrowsError(try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events("new"))],
                                                                 sourceLabels: ["feed"], stages: [ExpandStage(), SplitStage()],
                                                                 sinks: [remote, JSONExporter(path: jsonPath, shape: .events)]), context: context)) { error in
            XCTAssertEqual(CalpipeError(error).exitCode, 130)
        }
        XCTAssertEqual(try json(), old)
        XCTAssertEqual(log.all, ["abort remote test"])
        XCTAssertEqual(remote.sent.count, 30)
        XCTAssertEqual("\(context.report.outcomes(of: "remote test"))", "30 created")
        XCTAssertEqual(ExitStatus.interruptedText(by: "SIGINT", report: context.report, remoteSinks: ["remote test"]),
                       "interrupted by SIGINT: rolled back, nothing was written but the 30 records remote test had sent")
        XCTAssertEqual(ExitStatus.interruptedText(by: "SIGINT", report: RunReport(), remoteSinks: ["remote test"]),
                       "interrupted by SIGINT: rolled back, nothing was written")
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    func testOutcomesReadAsOneLineOfTheCountsThatAreNotZero() {
        let report = RunReport()
        report.expectSinks(["a", "b"])
        report.record(.unchanged, sink: "b", count: 40)
        report.record(.failed, sink: "a")
        report.record(.created, sink: "b", count: 3)
        report.record(.deleted, sink: "b", count: 2)
        report.record(.updated, sink: "b")
        report.record(.conflict, sink: "b")
        report.record(.failed, sink: "b")
        report.record(.created, sink: "b", count: 0)
        report.recordFailure(sink: "a", record: #"UID "x""#, reason: "refused")
        report.recordFailure(sink: "a", record: #"UID "y""#, reason: "changed on the server", outcome: .conflict)
        report.record(.created, sink: "not a sink of the run")
        // In pipeline order (b reported first), zeros left out, in the order of `RecordOutcome`.
        XCTAssertEqual(report.outcomes.map { "\($0.sink): \($0.outcomes)" },
                       ["a: 1 conflict, 2 failed", "b: 3 created, 1 updated, 2 deleted, 40 unchanged, 1 conflict, 1 failed", "not a sink of the run: 1 created"])
        // A conflict is a record not written, as a failure is: both fail the run.
        XCTAssertEqual(report.recordsFailed, 5)
        XCTAssertEqual(report.failedRecords, [#"a: UID "x": refused"#, #"a: UID "y": changed on the server"#])
        XCTAssertTrue(report.outcomes(of: "c").isEmpty)
        XCTAssertEqual("\(report.outcomes(of: "c"))", "")
    }
}
