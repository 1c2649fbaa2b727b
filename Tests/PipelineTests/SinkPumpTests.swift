import Exporters
import Foundation
import XCTest
@testable import Pipeline

/// The runner hands batches to the sinks on a thread of their own (`HandoffThread.sinkPump`): same batches, same order,
/// errors and aborts as when they are written on the caller's thread.
final class SinkPumpTests: XCTestCase {
    /// Emits `count` batches of one event each (UIDs "e0000", "e0001", ...).
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class ManyBatchSource: EventSource, @unchecked Sendable {
        let count: Int
        var failAt: Int?
        init(count: Int, failAt: Int? = nil) {
            self.count = count
            self.failAt = failAt
        }
        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            for i in 0..<count {
                if i == failAt { throw CalpipeError("failed on purpose at \(i)", file: "many") }
                let uid = "e" + String(repeating: "0", count: 4 - String(i).count) + String(i)
                let start = EventTime.floating(TestSupport.local(2026, 11, 1 + i % 20, 9))
                try emit(Batch(events: [Event(uid: uid, start: start, title: "event \(i)")]))
            }
        }
    }

    /// Records the UIDs it was given, the thread they came on, and what was called; can fail on a batch.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class RecordingSink: Sink, @unchecked Sendable {
        var needs: BatchContent { [.events] }
        var label: String { "recording" }
        var uids: [String] = []
        var calls: [String] = []
        var writeThreads = Set<String>()
        var failOnWrite: Int?
        var slow = false

        func open(context: RunContext) throws { calls.append("open") }
        func write(_ batch: Batch, context: RunContext) throws {
            if calls.last != "write" { calls.append("write") }
            writeThreads.insert(Thread.isMainThread ? "main" : "other")
            if let failOnWrite, uids.count >= failOnWrite { throw CalpipeError("disk full on purpose", file: "recording") }
            if slow { Thread.sleep(forTimeInterval: 0.001) }
            uids.append(contentsOf: batch.events.map(\.uid))
        }
        func commit(context: RunContext) throws -> Int { calls.append("commit"); return uids.count }
        func abort(context: RunContext) { calls.append("abort") }
    }

    private func run(_ source: ManyBatchSource, sinks: [RecordingSink], concurrent: Bool) throws {
        let context = TestSupport.context()
        let pipeline = PipelineDefinition(environment: context.environment, sources: [source], stages: [], sinks: sinks)
        try Runner(concurrentSinks: concurrent).run(pipeline, context: context)
    }

    func testConcurrentSinksGetEveryBatchInOrderOffTheCallersThread() throws {
        let expected = (0..<500).map { "e" + String(repeating: "0", count: 4 - String($0).count) + String($0) }
        let a = RecordingSink(), b = RecordingSink()
        b.slow = true  // the producer must wait for a full queue, not drop or reorder
        try run(ManyBatchSource(count: 500), sinks: [a, b], concurrent: true)
        XCTAssertEqual(a.uids, expected)
        XCTAssertEqual(b.uids, expected)
        XCTAssertEqual(a.calls, ["open", "write", "commit"])
        XCTAssertEqual(b.writeThreads, ["other"])

        let c = RecordingSink()
        try run(ManyBatchSource(count: 500), sinks: [c], concurrent: false)
        XCTAssertEqual(c.uids, expected)
        XCTAssertEqual(c.writeThreads, [Thread.isMainThread ? "main" : "other"])
    }

    func testASinkErrorStopsTheRunAndAbortsEverySink() throws {
        let a = RecordingSink(), b = RecordingSink()
        b.failOnWrite = 100
        XCTAssertThrowsError(try run(ManyBatchSource(count: 10_000), sinks: [a, b], concurrent: true)) { error in
            XCTAssertEqual("\(error)", "recording: disk full on purpose")
        }
        XCTAssertEqual(a.calls, ["open", "write", "abort"])
        XCTAssertEqual(b.calls, ["open", "write", "abort"])
        XCTAssertEqual(b.uids.count, 100)
        // The producer stops within a few batches of the failure (queue capacity), not at the end of the input.
        XCTAssertLessThan(a.uids.count, 10_000)
    }

    func testASourceErrorWaitsForTheSinkThreadThenAborts() throws {
        let a = RecordingSink()
        a.slow = true
        XCTAssertThrowsError(try run(ManyBatchSource(count: 1_000, failAt: 50), sinks: [a], concurrent: true)) { error in
            XCTAssertEqual("\(error)", "many: failed on purpose at 50")
        }
        // abort came after the last write: the sink was never used by two threads at once.
        XCTAssertEqual(a.calls, ["open", "write", "abort"])
        XCTAssertLessThanOrEqual(a.uids.count, 50)
    }

    /// A batch the sinks have written is released at once, not kept until the end of the run: each batch's
    /// event here holds its own Zone object, and by the time batch i is written, batch i - 6 (more than the
    /// queue's capacity ago) must be gone.
    /// Each batch goes to the last sink that gets it to keep (`Sink.write(owned:)`), to the others shared; on the sinks'
    /// thread and on the caller's, in order.
    func testTheLastSinkGetsEachBatchToKeep() throws {
        // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
        final class OwningSink: Sink, @unchecked Sendable {
            var needs: BatchContent { [.events] }
            var label: String { "owning" }
            var shared: [String] = []
            var owned: [String] = []
            func open(context: RunContext) throws {}
            func write(_ batch: Batch, context: RunContext) throws { shared += batch.events.map(\.uid) }
            func write(owned batch: consuming Batch, context: RunContext) throws { owned += batch.events.map(\.uid) }
            func commit(context: RunContext) throws -> Int { shared.count + owned.count }
            func abort(context: RunContext) {}
        }
        let expected = (0..<50).map { "e" + String(repeating: "0", count: 4 - String($0).count) + String($0) }
        for concurrent in [true, false] {
            let sinks = [OwningSink(), OwningSink(), OwningSink()]
            let context = TestSupport.context()
            try Runner(concurrentSinks: concurrent).run(PipelineDefinition(environment: context.environment, sources: [ManyBatchSource(count: 50)],
                                                                           stages: [], sinks: sinks), context: context)
            XCTAssertEqual(sinks.map(\.shared), [expected, expected, []], "concurrent: \(concurrent)")
            XCTAssertEqual(sinks.map(\.owned), [[], [], expected], "concurrent: \(concurrent)")
        }
    }

    func testWrittenBatchesAreReleased() throws {
        final class WeakZone: @unchecked Sendable { weak var zone: Zone? }
        final class ZoneSource: EventSource {
            // Made up front: the producer sets box i before sending batch i, the sink reads boxes of batches
            // it was sent (ordered by the queue's lock); the array itself never changes.
            let made = (0..<200).map { _ in WeakZone() }
            func read(context: RunContext, emit: (Batch) throws -> Void) throws {
                for i in 0..<200 {
                    let zone = Zone(identifier: "Test/Zone\(i)", transitions: [], offsets: [3600])
                    made[i].zone = zone
                    try emit(Batch(events: [Event(uid: "z\(i)", start: .zoned(TestSupport.local(2026, 11, 2, 9), zone))]))
                }
            }
        }
        // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
        final class CheckingSink: Sink, @unchecked Sendable {
            let source: ZoneSource
            var written = 0
            var alive: [Int] = []
            init(_ source: ZoneSource) { self.source = source }
            var needs: BatchContent { [.events] }
            var label: String { "checking" }
            func open(context: RunContext) throws {}
            func write(_ batch: Batch, context: RunContext) throws {
                if written >= 6 && source.made[written - 6].zone != nil { alive.append(written - 6) }
                written += 1
                // Slower than the producer, so the queue stays full.
                Thread.sleep(forTimeInterval: 0.0005)
            }
            func commit(context: RunContext) throws -> Int { written }
            func abort(context: RunContext) {}
        }
        let source = ZoneSource()
        let sink = CheckingSink(source)
        let context = TestSupport.context()
        try Runner(concurrentSinks: true).run(PipelineDefinition(environment: context.environment, sources: [source], stages: [], sinks: [sink]), context: context)
        XCTAssertEqual(sink.written, 200)
        XCTAssertEqual(sink.alive, [], "batches still held after they were written")
    }

    /// A sink's warning on the sinks' thread is not labelled with the source being read meanwhile (the runner's
    /// thread writes the label; before, the sinks' thread read it unsynchronised and took whichever source was
    /// current). A source's own warnings keep their label.
    func testASinksWarningsAreNotLabelledWithTheSourceBeingRead() throws {
        final class WarningSource: EventSource {
            func read(context: RunContext, emit: (Batch) throws -> Void) throws {
                for i in 0..<200 {
                    if i % 50 == 0 { context.warn("source warning \(i)") }
                    try emit(Batch(events: [Event(uid: "e\(i)", start: .floating(TestSupport.local(2026, 11, 1, 9)), title: "e")]))
                }
            }
        }
        final class WarningSink: Sink {
            var needs: BatchContent { [.events] }
            var label: String { "warning sink" }
            func open(context: RunContext) throws {}
            func write(_ batch: Batch, context: RunContext) throws { context.warn("sink warning") }
            func commit(context: RunContext) throws -> Int { 0 }
            func abort(context: RunContext) {}
        }
        let records = Locked<[LogRecord]>([])
        let base = TestSupport.context()
        let context = RunContext(environment: base.environment, logger: { record in records.withLock { $0.append(record) } })
        let pipeline = PipelineDefinition(environment: context.environment, sources: [WarningSource(), WarningSource()],
                                          sourceLabels: ["first", "second"], stages: [], sinks: [WarningSink()])
        try Runner(concurrentSinks: true).run(pipeline, context: context)
        let all = records.withLock { $0 }
        let sink = all.filter { $0.message == "sink warning" }
        XCTAssertEqual(sink.count, 400)
        XCTAssertEqual(sink.compactMap(\.source), [], "a sink's warning took a source's label")
        let sources = all.filter { $0.message.hasPrefix("source warning") }.map { $0.source ?? "nil" }
        XCTAssertEqual(sources, Array(repeating: "first", count: 4) + Array(repeating: "second", count: 4))
    }
}

/// The cores a run leaves idle for a source's own threads (`RunState.idleCores`): all of them (at most 4) when
/// no sink writes (a dry run) or every sink writes lightly (`Sink.writesLightly`), all but the reading thread's and
/// the sinks' thread's when a heavy sink writes.
final class IdleCoresTests: XCTestCase {
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class CoreRecordingSource: EventSource, @unchecked Sendable {
        var seen: Int?
        func read(context: RunContext, emit: (Batch) throws -> Void) throws { seen = context.runState.idleCores }
    }

    final class PassStage: Stage {
        func process(_ batch: Batch, context: RunContext) throws -> Batch { batch }
        func finish(context: RunContext, emit: (Batch) throws -> Void) throws {}
        var produces: BatchContent { [.events] }
    }

    private func idleCores(stages: [any Stage], sinks: [any Sink], dryRun: Bool) throws -> Int? {
        let context = TestSupport.context()
        let source = CoreRecordingSource()
        let pipeline = PipelineDefinition(environment: context.environment, sources: [source], stages: stages, sinks: sinks)
        try Runner(dryRun: dryRun).run(pipeline, context: context)
        return source.seen
    }

    func testARunThatWritesLeavesTheSinksCoreBusy() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let all = cores > 1 ? min(cores, 4) : 0
        let writing = cores > 1 ? min(cores - 2, 4) : 0
        let sink = SinkPumpTests.RecordingSink()
        XCTAssertEqual(try idleCores(stages: [], sinks: [sink], dryRun: true), all)
        XCTAssertEqual(try idleCores(stages: [], sinks: [], dryRun: false), all)
        XCTAssertEqual(try idleCores(stages: [], sinks: [sink], dryRun: false), writing)
        XCTAssertEqual(try idleCores(stages: [PassStage()], sinks: [sink], dryRun: true), all)
        XCTAssertEqual(try idleCores(stages: [PassStage()], sinks: [sink], dryRun: false), writing)
    }

    /// The json sink's events and occurrences are light (rendered as they come): the source reads on every core while
    /// they are written. Its days shape (sorted through a spool) and any sink that does not say so are heavy, and one
    /// heavy sink among light ones keeps its core.
    func testLightSinksLeaveEveryCoreToTheSource() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let all = cores > 1 ? min(cores, 4) : 0
        let writing = cores > 1 ? min(cores - 2, 4) : 0
        let folder = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        func json(_ shape: JSONExporter.Shape) -> JSONExporter {
            JSONExporter(path: folder.appendingPathComponent("\(shape.rawValue).json").path, shape: shape)
        }
        XCTAssertEqual(JSONExporter.Shape.allCases.map { json($0).writesLightly }, [false, true, true])
        XCTAssertFalse(SinkPumpTests.RecordingSink().writesLightly)
        XCTAssertEqual(try idleCores(stages: [], sinks: [json(.events)], dryRun: false), all)
        XCTAssertEqual(try idleCores(stages: [], sinks: [json(.events), json(.occurrences)], dryRun: false), all)
        XCTAssertEqual(try idleCores(stages: [], sinks: [json(.days)], dryRun: false), writing)
        XCTAssertEqual(try idleCores(stages: [], sinks: [json(.events), SinkPumpTests.RecordingSink()], dryRun: false), writing)
    }

    /// The rule itself, for machines other than the one the tests run on.
    func testIdleCoresByMachine() {
        XCTAssertEqual([1, 2, 3, 4, 6, 8, 64].map { Runner.idleCores(cores: $0, writes: false) }, [0, 2, 3, 4, 4, 4, 4])
        XCTAssertEqual([1, 2, 3, 4, 6, 8, 64].map { Runner.idleCores(cores: $0, writes: true) }, [0, 0, 1, 2, 4, 4, 4])
        XCTAssertEqual([1, 2, 3, 4, 6, 8, 64].map { Runner.idleCores(cores: $0, writes: true, lightly: true) }, [0, 2, 3, 4, 4, 4, 4])
    }

}
