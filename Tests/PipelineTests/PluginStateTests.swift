import CalSQLite
import Exporters
import Foundation
import XCTest
import Pipeline

/// State for plugins (docs/architecture.md, "State for plugins"): a source reads what the last successful run
/// committed and proposes the next value; the runner stores it only once every sink committed and nothing failed,
/// in the sqlite sink's transaction when the pipeline has one, else in the state folder.
final class PluginStateTests: XCTestCase {
    typealias T = TestSupport

    /// A source that keeps a page cursor, through the public API only: it reads the cursor the last run left
    /// (`context.state(for:)`), makes one event for it and proposes the next.
    final class CursorSource: EventSource {
        final class Box: @unchecked Sendable { var seen: [Int?] = [] }
        let name: String
        let box: Box
        let rejects: Bool
        /// Proposes its next cursor, then fails before it sent anything (the sqlite sink then keeps its rows).
        let failsBeforeSending: Bool
        init(name: String, box: Box, rejects: Bool = false, failsBeforeSending: Bool = false) {
            self.name = name
            self.box = box
            self.rejects = rejects
            self.failsBeforeSending = failsBeforeSending
        }

        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            let cursor = context.state(for: name)?["cursor"]?.numberValue.map { Int($0) }
            box.seen.append(cursor)
            let page = cursor ?? 0
            if failsBeforeSending {
                context.setState(PluginState(JSONObject([("cursor", .number(Double(page + 1)))])), for: name)
                throw CalpipeError("the test server is down")
            }
            if rejects { context.report.reject(SourceLocation(file: "cursor", line: page), "a record the test rejects") }
            try emit(Batch(events: [Event(uid: "page-\(page)", start: .floating(T.local(2026, 11, 2 + page, 9)), title: "page \(page)")]))
            var next = PluginState()
            next["cursor"] = .number(Double(page + 1))
            context.setState(next, for: name)
        }
    }

    /// Keeps events in memory; `failCommit` throws at commit, `interrupt` stops the run in `write` (as a signal).
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class MemorySink: Sink, @unchecked Sendable {
        var failCommit = false
        var interrupt = false
        private(set) var committed: [String] = []
        private var pending: [String] = []
        init(failCommit: Bool = false, interrupt: Bool = false) {
            self.failCommit = failCommit
            self.interrupt = interrupt
        }
        var needs: BatchContent { .events }
        var label: String { "memory" }
        var commitKind: SinkCommit { .file }
        func open(context: RunContext) throws { pending = [] }
        func write(_ batch: Batch, context: RunContext) throws {
            if interrupt { context.cancellation.cancel(reason: "SIGINT") }
            pending += batch.events.map(\.uid)
        }
        func commit(context: RunContext) throws -> Int {
            if failCommit { throw CalpipeError("the test sink fails at commit") }
            committed = pending
            return pending.count
        }
        func abort(context: RunContext) { pending = [] }
    }

    /// The sqlite sink, with a "signal" just before it commits its transaction (after the states were written in it).
    final class SignalInsideCommit: PluginStateSink {
        let inner: SQLiteSink
        init(_ inner: SQLiteSink) { self.inner = inner }
        var needs: BatchContent { inner.needs }
        var label: String { inner.label }
        var commitKind: SinkCommit { inner.commitKind }
        func open(context: RunContext) throws { try inner.open(context: context) }
        func write(_ batch: Batch, context: RunContext) throws { try inner.write(batch, context: context) }
        func commit(context: RunContext) throws -> Int {
            context.cancellation.cancel(reason: "SIGTERM")
            return try inner.commit(context: context)
        }
        func abort(context: RunContext) { inner.abort(context: context) }
        func committedPluginStates(pipeline: String) throws -> [String: PluginState] { try inner.committedPluginStates(pipeline: pipeline) }
        func stagePluginStates(_ states: [String: PluginState]?, pipeline: String) { inner.stagePluginStates(states, pipeline: pipeline) }
        func savePluginStates(_ states: [String: PluginState], pipeline: String, context: RunContext) throws {
            try inner.savePluginStates(states, pipeline: pipeline, context: context)
        }
    }

    private var dir: URL!
    private var stateFile: String { dir.appendingPathComponent("state/test.json.state.json").path }
    private var databasePath: String { dir.appendingPathComponent("agenda.sqlite").path }

    override func setUpWithError() throws {
        dir = try T.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    @discardableResult
    private func run(_ source: CursorSource, sinks: [any Sink], full: Bool = false) throws -> RunContext {
        try run([source], sinks: sinks, full: full)
    }

    @discardableResult
    private func run(_ sources: [CursorSource], sinks: [any Sink], full: Bool = false) throws -> RunContext {
        let context = T.context()
        var runner = Runner(incremental: !full)
        runner.stateFile = stateFile
        try runner.run(PipelineDefinition(environment: context.environment, sources: sources, sourceLabels: sources.map(\.name),
                                          stages: [ExpandStage(), SplitStage()], sinks: sinks), context: context)
        return context
    }

    private func storedFileText() -> String? {
        FileManager.default.contents(atPath: stateFile).map { String(decoding: $0, as: UTF8.self) }
    }

    func testTheFirstRunSeesNoStateAndTheNextSeesTheCursorItCommitted() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1])
        XCTAssertEqual(storedFileText(), """
            {
              "version": 1,
              "pipeline": "test",
              "plugins": {
                "feed": {
                  "cursor": 2
                }
              }
            }

            """)
    }

    func testASinkThatFailsAtCommitLeavesTheStateWhereItWas() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        let before = storedFileText()
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [MemorySink(), MemorySink(failCommit: true)])) { error in
            XCTAssertEqual((error as? CalpipeError)?.message, "the test sink fails at commit")
        }
        XCTAssertEqual(storedFileText(), before)
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1, 1])
    }

    func testAnInterruptedRunLeavesTheStateWhereItWas() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [MemorySink(interrupt: true)])) { error in
            XCTAssertEqual((error as? CalpipeError)?.isInterruption, true)
        }
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1, 1])
    }

    func testAFirstRunThatFailsStoresNothing() throws {
        let box = CursorSource.Box()
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [MemorySink(failCommit: true)]))
        XCTAssertNil(storedFileText())
    }

    func testFullShowsNoPriorStateAndStoresWhatItsRunProposed() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()], full: true)
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1, nil, 1])
    }

    func testASourceWithRejectedRecordsDoesNotAdvance() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        let context = try run(CursorSource(name: "feed", box: box, rejects: true), sinks: [MemorySink()])
        XCTAssertEqual(context.report.rejections.count, 1)
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1, 1])
    }

    private func databaseStates() throws -> [[SQLiteValue]] {
        try Database(path: databasePath).rows("SELECT pipeline, plugin, state FROM plugin_state ORDER BY plugin")
    }

    private func runCount() throws -> Int? {
        try Database(path: databasePath).scalarInt("SELECT count(*) FROM runs")
    }

    func testWithASQLiteSinkTheStateIsInTheDatabaseAndRollsBackWithIt() throws {
        let box = CursorSource.Box()
        try run(CursorSource(name: "feed", box: box), sinks: [SQLiteSink(path: databasePath)])
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("feed"), .text(#"{"cursor":1}"#)]])
        // The database wins: nothing in the state folder.
        XCTAssertNil(storedFileText())
        XCTAssertEqual(try runCount(), 1)

        // Interrupted inside the sqlite sink's commit, after the states were written in its transaction.
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [SignalInsideCommit(SQLiteSink(path: databasePath))])) { error in
            XCTAssertEqual((error as? CalpipeError)?.isInterruption, true)
        }
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("feed"), .text(#"{"cursor":1}"#)]])
        XCTAssertEqual(try runCount(), 1)

        // A file sink failing at commit: the database is not committed either.
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [MemorySink(failCommit: true), SQLiteSink(path: databasePath)]))
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("feed"), .text(#"{"cursor":1}"#)]])

        try run(CursorSource(name: "feed", box: box), sinks: [SQLiteSink(path: databasePath)])
        XCTAssertEqual(box.seen, [nil, 1, 1, 1])
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("feed"), .text(#"{"cursor":2}"#)]])
        XCTAssertEqual(try runCount(), 2)
        XCTAssertEqual(try Database(path: databasePath).userVersion, 12)
    }

    func testWithTwoDatabasesTheStateWaitsForTheLastOne() throws {
        let box = CursorSource.Box()
        let second = dir.appendingPathComponent("second.sqlite").path
        try run(CursorSource(name: "feed", box: box), sinks: [SQLiteSink(path: databasePath), SQLiteSink(path: second)])
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("feed"), .text(#"{"cursor":1}"#)]])
        try run(CursorSource(name: "feed", box: box), sinks: [SQLiteSink(path: databasePath), SQLiteSink(path: second)])
        XCTAssertEqual(box.seen, [nil, 1])
    }

    func testASourceWhoseRowsWereKeptDoesNotAdvanceAndTheOthersDo() throws {
        let a = CursorSource.Box(), b = CursorSource.Box()
        try run([CursorSource(name: "a", box: a), CursorSource(name: "b", box: b)], sinks: [SQLiteSink(path: databasePath)])
        let context = try run([CursorSource(name: "a", box: a), CursorSource(name: "b", box: b, failsBeforeSending: true)],
                              sinks: [SQLiteSink(path: databasePath)])
        XCTAssertEqual(context.report.keptSources, ["the test server is down; the rows of b are kept"])
        XCTAssertEqual(try databaseStates(), [[.text("test"), .text("a"), .text(#"{"cursor":2}"#)],
                                              [.text("test"), .text("b"), .text(#"{"cursor":1}"#)]])
        try run([CursorSource(name: "a", box: a), CursorSource(name: "b", box: b)], sinks: [SQLiteSink(path: databasePath)])
        XCTAssertEqual(a.seen, [nil, 1, 2])
        XCTAssertEqual(b.seen, [nil, 1, 1])
    }

    func testAStateFileThatIsNotCalpipesFailsTheRunAndFullStartsItAgain() throws {
        let box = CursorSource.Box()
        try FileManager.default.createDirectory(atPath: (stateFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "not json".write(toFile: stateFile, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])) { error in
            XCTAssertEqual("\(error)", "\(FileProblem.display(self.stateFile)): the plugins' state is not calpipe's state file (calpipe run --full starts it again)")
        }
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()], full: true)
        try run(CursorSource(name: "feed", box: box), sinks: [MemorySink()])
        XCTAssertEqual(box.seen, [nil, 1])
    }

    func testAStateThatCannotBeSavedFailsTheRunAfterTheOutputsWereWritten() throws {
        let box = CursorSource.Box()
        // The state folder is a file.
        try "".write(toFile: (stateFile as NSString).deletingLastPathComponent, atomically: true, encoding: .utf8)
        let sink = MemorySink()
        XCTAssertThrowsError(try run(CursorSource(name: "feed", box: box), sinks: [sink])) { error in
            let folder = (self.stateFile as NSString).deletingLastPathComponent
            XCTAssertEqual("\(error)", "the plugins' state was not saved (\(self.stateFile): cannot write: \"\(folder)\" is a file, not a folder); every output was "
                + "written, and the next run starts from the state saved before")
        }
        XCTAssertEqual(sink.committed, ["page-0"])
    }
}
