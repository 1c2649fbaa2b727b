import CalpipeKit
import Foundation
import XCTest
@testable import Pipeline

/// Many runs in one process (issue 24 item 7): two different pipelines run at once through the async API
/// (`Runner.run(_:context:) async`), each with its own cancellation and report. One is cancelled mid-run through its
/// task: its outputs stay as they were. The other completes with the output it gives when it runs alone.
final class ConcurrentRunsTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        let data = TestSupport.repositoryRoot.appendingPathComponent("data")
        for name in ["agenda.json", "forecast-sample.json"] {
            try FileManager.default.copyItem(at: data.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        // A: the demo's shape (expand, split, a saved forecast) into a days document, a calendar and a database.
        try """
        {"name": "team", "timezone": "Europe/Berlin", "window": {"from": "2026-10-12", "to": "2026-11-23"},
         "location": {"latitude": 52.52, "longitude": 13.41},
         "sources": [{"type": "json", "name": "sample", "path": "agenda.json"}],
         "stages": [{"type": "expand"}, {"type": "split"}, {"type": "forecast", "provider": "file", "path": "forecast-sample.json"}],
         "sinks": [{"type": "json", "path": "a/days.json", "shape": "days"}, {"type": "ics", "path": "a/agenda.ics"},
                   {"type": "sqlite", "path": "a/agenda.db"}]}
        """.write(to: dir.appendingPathComponent("a.json"), atomically: true, encoding: .utf8)
        // B: another pipeline over another input, into occurrences, a calendar and a database of its own.
        try """
        {"name": "rooms", "timezone": "UTC", "window": {"from": "2026-10-01", "to": "2027-01-01"},
         "sources": [{"type": "json", "name": "rooms", "path": "rooms.json"}],
         "stages": [{"type": "expand"}, {"type": "split"}],
         "sinks": [{"type": "json", "path": "b/occurrences.json", "shape": "occurrences"}, {"type": "ics", "path": "b/rooms.ics"},
                   {"type": "sqlite", "path": "b/rooms.db"}]}
        """.write(to: dir.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Hands a source's batches on, and after the first one says so (`started`) and waits for `proceed` to allow the
    /// rest: so the test knows both runs are under way at once.
    final class GatedSource: EventSource {
        let inner: any EventSource
        let started = Locked(false)
        let proceed: @Sendable (RunContext) -> Void
        init(_ inner: any EventSource, proceed: @escaping @Sendable (RunContext) -> Void) {
            self.inner = inner
            self.proceed = proceed
        }

        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            var first = true
            try inner.read(context: context) { batch in
                try emit(batch)
                if first {
                    first = false
                    started.withLock { $0 = true }
                    proceed(context)
                }
            }
        }
    }

    private func load(_ file: String, events: ArraySlice<String>? = nil) throws -> PipelineDefinition {
        let loader = PipelineLoader.standard(environment: ["TZ": "UTC", "CALPIPE_CACHE": dir.appendingPathComponent("cache.sqlite").path],
                                             now: Date(timeIntervalSince1970: 1_792_000_000))
        return try loader.load(file: dir.appendingPathComponent(file).path)
    }

    /// B's input: the sample agenda's events (or the first `count`) with their titles changed, so its output is its own.
    private func writeRooms(count: Int? = nil) throws {
        let events = try JSONParser.parse(bytes: Array(Data(contentsOf: dir.appendingPathComponent("agenda.json"))))
        guard case .array(var items) = events else { return XCTFail("agenda.json is not an array") }
        if let count { items = Array(items.prefix(count)) }
        for i in items.indices {
            guard case .object(var o) = items[i] else { continue }
            o["title"] = .string("Room booking \(i)")
            items[i] = .object(o)
        }
        try JSONWriter(pretty: true).string(.array(items)).write(to: dir.appendingPathComponent("rooms.json"), atomically: true, encoding: .utf8)
    }

    private func contents(_ paths: [String]) throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try paths.map { ($0, try Data(contentsOf: dir.appendingPathComponent($0))) })
    }

    /// Waits without blocking the test's task until `gate` has handed on its first batch, at most 60 s.
    private func arrive(_ gate: GatedSource) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !gate.started.withLock({ $0 }) {
            guard Date() < deadline else { throw CalpipeError("a run never got under way") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    func testTwoPipelinesAtOnceOneCancelledMidRun() async throws {
        let aOutputs = ["a/days.json", "a/agenda.ics"]
        let bOutputs = ["b/occurrences.json", "b/rooms.ics"]
        // What A writes when it runs alone; then its outputs go.
        let alone = RunContext(environment: try load("a.json").environment, quiet: true)
        try await Runner().run(try load("a.json"), context: alone)
        let expected = try contents(aOutputs)
        let expectedUIDs = try TestSupport.eventUIDs(inDatabase: dir.appendingPathComponent("a/agenda.db").path)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("a"))
        // B's outputs of an earlier run, over 10 events: the cancelled run must leave them as they are.
        try writeRooms(count: 10)
        try await Runner().run(try load("b.json"), context: RunContext(environment: try load("b.json").environment, quiet: true))
        let bBefore = try contents(bOutputs)
        let bUIDs = try TestSupport.eventUIDs(inDatabase: dir.appendingPathComponent("b/rooms.db").path)
        XCTAssertEqual(bUIDs.count, 10)
        try writeRooms()

        // B, once its first batch went through, waits until it is cancelled; A, once its own did, waits until B's
        // did too: both runs are in the middle of their work at once.
        let bGate = GatedSource(try load("b.json").sources[0]) { context in
            _ = CalpipeProcess.wait(seconds: 60) { context.cancellation.cancelledReason != nil }
        }
        let aGate = GatedSource(try load("a.json").sources[0]) { _ in
            _ = CalpipeProcess.wait(seconds: 60) { bGate.started.withLock { $0 } }
        }
        var a = try load("a.json")
        a.sources = [aGate]
        var b = try load("b.json")
        b.sources = [bGate]
        let aContext = RunContext(environment: a.environment, quiet: true)
        let bContext = RunContext(environment: b.environment, quiet: true)
        let aRun = Task { [a] in try await Runner().run(a, context: aContext) }
        let bRun = Task { [b] in try await Runner().run(b, context: bContext) }
        try await arrive(aGate)
        try await arrive(bGate)
        bRun.cancel()

        let aReport = try await aRun.value
        do {
            _ = try await bRun.value
            XCTFail("the cancelled run finished")
        } catch let error as CalpipeError {
            XCTAssertEqual(error.kind, .interrupted(signal: Runner.taskCancellation))
            XCTAssertEqual("\(error)", "interrupted by task cancellation: nothing was written")
        }

        // A: the output it gives alone, and a report of its own.
        XCTAssertEqual(try contents(aOutputs), expected)
        XCTAssertEqual(try TestSupport.eventUIDs(inDatabase: dir.appendingPathComponent("a/agenda.db").path), expectedUIDs)
        XCTAssertEqual(aReport.eventsRead, 50)
        XCTAssertEqual(aReport.rowsWritten.map { $0.sink.prefix { $0 != " " } }, ["json", "ics", "sqlite"])
        XCTAssertEqual(aReport.rowsWritten.map(\.rows), alone.report.rowsWritten.map(\.rows))
        XCTAssertNil(aContext.cancellation.cancelledReason)
        // B: cancelled, its outputs as the earlier run left them, no temporary file, nothing written in its report.
        XCTAssertEqual(bContext.cancellation.cancelledReason, Runner.taskCancellation)
        XCTAssertEqual(try contents(bOutputs), bBefore)
        XCTAssertEqual(try TestSupport.eventUIDs(inDatabase: dir.appendingPathComponent("b/rooms.db").path), bUIDs)
        XCTAssertEqual(bContext.report.rowsWritten.count, 0)
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    /// A task cancelled before its run starts writes nothing and says so.
    func testARunWhoseTaskIsCancelledAtOnceWritesNothing() async throws {
        try writeRooms()
        let b = try load("b.json")
        let context = RunContext(environment: b.environment, quiet: true)
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Runner().run(b, context: context)
        }
        do {
            _ = try await run.value
            XCTFail("the cancelled run finished")
        } catch let error as CalpipeError {
            XCTAssertEqual(error.kind, .interrupted(signal: Runner.taskCancellation))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("b/rooms.ics").path))
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }
}
