import CalSQLite
import Exporters
import Foundation
import XCTest
@testable import Pipeline

/// The runner's commit phase (`Runner.commitAll`, `Cancellation`): file sinks write their last bytes into
/// temporary files first, then databases commit, then every file is renamed at once. A signal (simulated
/// here by cancelling from inside a sink, at an exact point) before the first irreversible step rolls every
/// output back; a signal after it lets the run finish.
final class CommitPhaseTests: XCTestCase {
    typealias T = TestSupport

    /// Writes its file through `AtomicFile` like the json and ics sinks; the "signal" arrives while it writes
    /// the last bytes of its commit.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class SignalledFileSink: Sink, @unchecked Sendable {
        let path: String
        private var file: AtomicFile?
        init(path: String) { self.path = path }
        var needs: BatchContent { .events }
        var label: String { "signalled \(path)" }
        var commitKind: SinkCommit { .file }
        func open(context: RunContext) throws { file = try AtomicFile(path: path, cancellation: context.cancellation) }
        func write(_ batch: Batch, context: RunContext) throws { try file?.write("\(batch.events.count) events\n") }
        func commit(context: RunContext) throws -> Int {
            guard let file else { return 0 }
            context.cancellation.cancel(reason: "SIGTERM")
            try file.write(bytes: [UInt8](repeating: 0x41, count: 1 << 17))
            try file.commit()
            return 1
        }
        func abort(context: RunContext) { file?.abort() }
    }

    /// Wraps a sink that commits in place; the "signal" arrives just before or just after its commit.
    final class SignalAround: Sink {
        let inner: any Sink
        let before: Bool
        init(_ inner: any Sink, before: Bool) {
            self.inner = inner
            self.before = before
        }
        var needs: BatchContent { inner.needs }
        var label: String { inner.label }
        var commitKind: SinkCommit { inner.commitKind }
        func open(context: RunContext) throws { try inner.open(context: context) }
        func write(_ batch: Batch, context: RunContext) throws { try inner.write(batch, context: context) }
        func commit(context: RunContext) throws -> Int {
            if before { context.cancellation.cancel(reason: "SIGTERM") }
            let rows = try inner.commit(context: context)
            if !before { context.cancellation.cancel(reason: "SIGTERM") }
            return rows
        }
        func abort(context: RunContext) { inner.abort(context: context) }
    }

    private var dir: URL!

    override func setUpWithError() throws {
        dir = try T.temporaryDirectory()
    }

    private func events(_ prefix: String, count: Int = 30) -> [Event] {
        (0..<count).map { Event(uid: "\(prefix)\($0)", start: .floating(T.local(2026, 11, 2 + $0 % 20, 9)), title: "\(prefix) \($0)") }
    }

    private var jsonPath: String { dir.appendingPathComponent("events.json").path }
    private var databasePath: String { dir.appendingPathComponent("agenda.sqlite").path }

    private func run(_ events: [Event], sinks: [any Sink]) throws -> RunContext { try T.runExpandedAndSplit(events, sinks: sinks) }

    private func databaseUIDs() throws -> [String] { try T.eventUIDs(inDatabase: databasePath) }

    /// A first, complete run: the "old" outputs the interrupted runs must leave as they are.
    private func writeOldOutputs() throws -> (json: String, uids: [String]) {
        _ = try run(events("old"), sinks: [JSONExporter(path: jsonPath, shape: .events), SQLiteSink(path: databasePath)])
        return (try String(contentsOfFile: jsonPath, encoding: .utf8), try databaseUIDs())
    }

    private func assertNoTemporaryFiles(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [], file: file, line: line)
    }

    func testASignalWhileTheLastFileSinkCommitsRollsBackTheFilesAlreadyComplete() throws {
        let old = try writeOldOutputs()
        let signalled = dir.appendingPathComponent("signalled.txt").path
        XCTAssertThrowsError(try run(events("new"), sinks: [JSONExporter(path: jsonPath, shape: .events), SQLiteSink(path: databasePath),
                                                            SignalledFileSink(path: signalled)])) { error in
            XCTAssertEqual("\(error)", "interrupted by SIGTERM: nothing was written")
        }
        // The json sink had committed (its file complete and synced) before the signal: it was not renamed.
        XCTAssertEqual(try String(contentsOfFile: jsonPath, encoding: .utf8), old.json)
        XCTAssertEqual(try databaseUIDs(), old.uids)
        XCTAssertFalse(FileManager.default.fileExists(atPath: signalled))
        assertNoTemporaryFiles()
    }

    func testASignalJustBeforeTheDatabaseCommitsRollsBackTheDatabaseAndTheFiles() throws {
        let old = try writeOldOutputs()
        // The database sink comes first in the pipeline, but it commits after the json sink prepared its file.
        XCTAssertThrowsError(try run(events("new"), sinks: [SignalAround(SQLiteSink(path: databasePath), before: true),
                                                            JSONExporter(path: jsonPath, shape: .events)])) { error in
            XCTAssertEqual("\(error)", "interrupted by SIGTERM: nothing was written")
        }
        XCTAssertEqual(try String(contentsOfFile: jsonPath, encoding: .utf8), old.json)
        XCTAssertEqual(try databaseUIDs(), old.uids)
        XCTAssertEqual(try Database(path: databasePath).integrityCheck(), ["ok"])
        assertNoTemporaryFiles()
    }

    func testASignalAfterTheDatabaseCommittedLetsTheRunFinishEveryOutput() throws {
        _ = try writeOldOutputs()
        let context = try run(events("new"), sinks: [SignalAround(SQLiteSink(path: databasePath), before: false),
                                                     JSONExporter(path: jsonPath, shape: .events)])
        XCTAssertTrue(context.cancellation.cancelledAfterCommit)
        XCTAssertEqual(try databaseUIDs(), events("new").map(\.uid).sorted())
        XCTAssertTrue(try String(contentsOfFile: jsonPath, encoding: .utf8).contains("\"uid\": \"new29\""))
        assertNoTemporaryFiles()
    }

    func testAFailedCommitRemovesTheFilesThatWaitedForTheirRename() throws {
        let old = try writeOldOutputs()
        // A folder stands where the second output should go: its rename fails after the first file is complete.
        let blocked = dir.appendingPathComponent("blocked.json")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
        XCTAssertThrowsError(try run(events("new"), sinks: [JSONExporter(path: jsonPath, shape: .events),
                                                            JSONExporter(path: blocked.path, shape: .events, label: "blocked.json")])) { error in
            XCTAssertEqual("\(error)", "blocked.json: cannot write: it is a folder, not a file")
        }
        // The renames run in sink order: the first file was renamed before the second failed.
        XCTAssertTrue(try String(contentsOfFile: jsonPath, encoding: .utf8) != old.json)
        assertNoTemporaryFiles()
    }

    func testWithoutASignalFilesAreRenamedOnlyAfterEverySinkCommitted() throws {
        _ = try writeOldOutputs()
        /// Looks at the json output while it commits in place (after the file sinks).
        // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
        final class Observer: Sink, @unchecked Sendable {
            let path: String
            var seenWhileCommitting: String?
            var temporaryFilesWhileCommitting: [String] = []
            let folder: URL
            init(path: String, folder: URL) {
                self.path = path
                self.folder = folder
            }
            var needs: BatchContent { .events }
            var label: String { "observer" }
            func open(context: RunContext) throws {}
            func write(_ batch: Batch, context: RunContext) throws {}
            func commit(context: RunContext) throws -> Int {
                seenWhileCommitting = try String(contentsOfFile: path, encoding: .utf8)
                temporaryFilesWhileCommitting = CalpipeProcess.temporaryFiles(under: folder)
                return 0
            }
            func abort(context: RunContext) {}
        }
        let old = try String(contentsOfFile: jsonPath, encoding: .utf8)
        let observer = Observer(path: jsonPath, folder: dir)
        _ = try run(events("new"), sinks: [observer, JSONExporter(path: jsonPath, shape: .events)])
        XCTAssertEqual(observer.seenWhileCommitting, old)
        XCTAssertEqual(observer.temporaryFilesWhileCommitting.count, 1)
        XCTAssertTrue(observer.temporaryFilesWhileCommitting.first?.hasPrefix(".events.json.calpipe-") == true)
        XCTAssertNotEqual(try String(contentsOfFile: jsonPath, encoding: .utf8), old)
        assertNoTemporaryFiles()
    }
}
