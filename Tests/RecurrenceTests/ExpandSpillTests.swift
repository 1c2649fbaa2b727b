import Foundation
import Importers
@testable import Pipeline
import XCTest

/// The expand stage holds series on a temporary file beyond its memory budget (HeldSeries): with a tiny
/// budget it gives exactly the occurrences, in exactly the order, that it gives with everything in memory,
/// and the file is gone after the run, also when the run fails.
final class ExpandSpillTests: XCTestCase {

    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class Capture: Sink, @unchecked Sendable {
        var occurrences: [Occurrence] = []
        /// Called on each write (to look at the spill folder while the run is going on).
        var onWrite: ((Batch) throws -> Void)?
        var needs: BatchContent { .occurrences }
        var label: String { "capture" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {
            try onWrite?(batch)
            occurrences.append(contentsOf: batch.occurrences)
        }
        func commit(context: RunContext) throws -> Int { occurrences.count }
        func abort(context: RunContext) {}
    }

    /// A source that hands on its events, then fails.
    final class FailingSource: EventSource {
        let events: [Event]
        init(events: [Event]) { self.events = events }
        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            try emit(Batch(events: events))
            throw CalpipeError("source broke")
        }
    }

    struct Outcome {
        var occurrences: [Occurrence]
        var warnings: [String]
        var spilled: Int
    }

    var spillFolder: URL!

    override func setUpWithError() throws {
        spillFolder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-spill-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spillFolder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: spillFolder)
    }

    func context(window: Window) -> RunContext {
        let environment = PipelineEnvironment(pipelineFile: "test.json", baseDirectory: RecurrenceTestSupport.tests, name: "spill", zone: RecurrenceTestSupport.berlin,
                                              window: window, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 10, day: 1))
        return RunContext(environment: environment, quiet: true)
    }

    func run(_ paths: [String], window: Window, budget: Int?) throws -> Outcome {
        let stage = ExpandStage()
        if let budget { stage.spillBudget = budget }
        stage.spillDirectory = spillFolder.path
        let capture = Capture()
        let ctx = context(window: window)
        let sources = paths.map { ICSSource(input: InputSpec(location: .path($0, written: $0))) }
        try Runner().run(PipelineDefinition(environment: ctx.environment, sources: sources, stages: [stage], sinks: [capture]), context: ctx)
        XCTAssertEqual(ctx.report.rejections, [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spillFolder.path), [])
        XCTAssertEqual(openSpillFiles(), 0)
        return Outcome(occurrences: capture.occurrences, warnings: ctx.report.warnings, spilled: stage.spilledEvents)
    }

    /// Descriptors of this process open on a file in the spill folder (removed files show as "... (deleted)").
    func openSpillFiles() -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? ""
            return target.hasPrefix(spillFolder.path + "/calpipe-spill-")
        }.count
    }

    func line(_ o: Occurrence) -> String {
        [o.event.uid, o.start.iso8601, o.end.iso8601, o.recurrenceID?.iso8601 ?? "-", o.event.title ?? ""].joined(separator: " | ")
    }

    /// Runs with everything in memory, with everything on file (budget 0) and with a budget that keeps about
    /// a third in memory; all three must agree occurrence by occurrence.
    func assertSameWithTinyBudgets(_ paths: [String], window: Window, held: Int, file: StaticString = #filePath, line: UInt = #line) throws -> [Occurrence] {
        let memory = try run(paths, window: window, budget: nil)
        XCTAssertEqual(memory.spilled, 0, file: file, line: line)
        let disk = try run(paths, window: window, budget: 0)
        XCTAssertEqual(disk.spilled, held, "every held event went to the file", file: file, line: line)
        let third = try run(paths, window: window, budget: 700 * held)
        XCTAssertGreaterThan(third.spilled, 0, file: file, line: line)
        XCTAssertLessThan(third.spilled, held, file: file, line: line)
        for other in [disk, third] {
            XCTAssertEqual(other.occurrences.count, memory.occurrences.count, file: file, line: line)
            XCTAssertEqual(other.occurrences.map(self.line), memory.occurrences.map(self.line), file: file, line: line)
            XCTAssertTrue(other.occurrences == memory.occurrences, "occurrences differ in some field", file: file, line: line)
            XCTAssertEqual(other.warnings, memory.warnings, file: file, line: line)
        }
        return memory.occurrences
    }

    func testRecurrenceFixturesGiveTheSameOccurrencesFromTheFile() throws {
        let series = RecurrenceTestSupport.tests.appendingPathComponent("Fixtures/recurrence/series").path + "/*.ics"
        let occurrences = try assertSameWithTinyBudgets([series], window: Window(from: CivilDate(year: 2026, month: 10, day: 15), to: CivilDate(year: 2026, month: 11, day: 10)), held: 7)
        // The run ExpandPipelineTests compares with recurring-ical-events.
        XCTAssertEqual(occurrences.count, 23)
    }

    func testICSCorpusGivesTheSameOccurrencesFromTheFile() throws {
        let corpus = RecurrenceTestSupport.tests.appendingPathComponent("Fixtures/ics/corpus").path + "/*.ics"
        let occurrences = try assertSameWithTinyBudgets([corpus], window: Window(from: CivilDate(year: 2024, month: 1, day: 1), to: CivilDate(year: 2028, month: 1, day: 1)), held: 8)
        XCTAssertGreaterThan(occurrences.count, 100)
    }

    func testGeneratedFeedGivesTheSameOccurrencesFromTheFile() throws {
        let feed = spillFolder.deletingLastPathComponent().appendingPathComponent("expand-spill-\(UUID().uuidString).ics")
        defer { try? FileManager.default.removeItem(at: feed) }
        try RecurrenceTestSupport.generateFeed(seed: 20261122, events: 5000, to: feed.path)
        // 1,189 of its 5,000 VEVENTs have an RRULE, RDATE or RECURRENCE-ID. Two sources on the same feed: the same UIDs held under two labels.
        let occurrences = try assertSameWithTinyBudgets([feed.path, feed.path], window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1)), held: 2 * 1189)
        XCTAssertEqual(occurrences.count, 2 * 33_651)
    }

    func testTheFileIsRemovedAtOnceAndClosedWhenTheSourceFails() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=3")
        let events = (0..<50).map { i -> Event in
            var e = Event(uid: "s\(i)", start: .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 9), RecurrenceTestSupport.berlin), title: "series \(i)")
            e.recurrence.rules = [rule]
            e.sourceText = String(repeating: "x", count: 1000)
            return e
        }
        var stage: ExpandStage? = ExpandStage()
        stage!.spillBudget = 0
        stage!.spillDirectory = spillFolder.path
        let ctx = context(window: Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 7, day: 1)))
        var pipeline: PipelineDefinition? = PipelineDefinition(environment: ctx.environment, sources: [FailingSource(events: events)], stages: [stage!], sinks: [Capture()])
        // Held on file, but with no name in the folder.
        _ = try stage!.process(Batch(events: [events[0]]), context: ctx)
        XCTAssertEqual(openSpillFiles(), 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spillFolder.path), [])
        XCTAssertThrowsError(try Runner().run(pipeline!, context: ctx)) { error in
            XCTAssertEqual("\(error)", "source broke")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spillFolder.path), [])
        pipeline = nil
        stage = nil
        XCTAssertEqual(openSpillFiles(), 0, "the stage closed its file when it went away")
    }

    /// A source that hands on its events in one batch.
    final class ListSource: EventSource {
        let events: [Event]
        init(events: [Event]) { self.events = events }
        func read(context: RunContext, emit: (Batch) throws -> Void) throws { try emit(Batch(events: events)) }
    }

    func testTheFileIsClosedWhenASinkFailsWhileSeriesAreExpanded() throws {
        // Three series of 5,000 minutes each: `finish` hands the first on before it reads the others.
        let rule = try RecurrenceRule(parsing: "FREQ=MINUTELY;COUNT=5000")
        let events = (0..<3).map { i -> Event in
            var e = Event(uid: "m\(i)", start: .utc(1_780_000_000), endSpec: .duration(CalDuration(seconds: 30)), title: "minute \(i)")
            e.recurrence.rules = [rule]
            return e
        }
        let stage = ExpandStage()
        stage.spillBudget = 0
        stage.spillDirectory = spillFolder.path
        let capture = Capture()
        var sawFile = false
        capture.onWrite = { [unowned self] batch in
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: self.spillFolder.path), [])
            // The events pass on first (as they are read); the occurrences come from `finish`.
            guard !batch.occurrences.isEmpty else { return }
            sawFile = self.openSpillFiles() == 1
            throw CalpipeError("sink broke")
        }
        let window = Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1))
        let ctx = context(window: window)
        let pipeline = PipelineDefinition(environment: ctx.environment, sources: [ListSource(events: events)], stages: [stage], sinks: [capture])
        // Sinks on the calling thread, so the sink fails while `finish` is still reading series back.
        XCTAssertThrowsError(try Runner(concurrentSinks: false).run(pipeline, context: ctx)) { error in
            XCTAssertEqual("\(error)", "sink broke")
        }
        XCTAssertTrue(sawFile, "the spill file was open while the series were expanded")
        XCTAssertEqual(openSpillFiles(), 0, "closed although the stage is still alive")
        // The stage starts afresh: a second run gives every series again.
        capture.onWrite = nil
        try Runner().run(pipeline, context: context(window: window))
        XCTAssertEqual(capture.occurrences.count, 15_000)
        XCTAssertEqual(stage.spilledEvents, 3)
    }

    func testSeriesComeBackInSwiftStringOrderWithCanonicallyEquivalentUIDsTogether() throws {
        let uids = ["b", "a", "Z", "ä", "a\u{308}x", "é-1", "😀", "z", "", "ab", "a", "Ω", "ﬁ", "e\u{301}-2", "zz", "aa"]
        for budget in [0, 1 << 20] {
            let held = HeldSeries(budget: budget, directory: spillFolder.path)
            var added: [(String, String)] = []
            for (i, uid) in uids.enumerated() {
                let source = i % 3 == 0 ? "team" : "Team"
                let e = Event(uid: uid, start: .utc(Int64(i)), title: "master \(i)")
                if case .held = try held.addMaster(e, source: source) { added.append((source, uid)) }
            }
            // "a" twice under "Team": the second replaces the first (nothing tells the revisions apart: the one
            // read last), read back from the spill file when the budget is 0.
            XCTAssertEqual(added.count, uids.count - 1)
            // Overrides by the other spelling of the same UID (decomposed or precomposed) join its series.
            var o = Event(uid: "e\u{301}-1", start: .utc(100), title: "override")
            o.recurrenceID = RecurrenceID(time: .utc(5))
            try held.addOverride(o, source: "Team")
            var seen: [(String, String, Int)] = []
            try held.drain { master, overrides in
                let m = try XCTUnwrap(master)
                seen.append((m.title ?? "", m.uid, overrides.count))
            }
            let expected = added.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.1)
            XCTAssertEqual(seen.map(\.1), expected, "budget \(budget)")
            XCTAssertEqual(seen.filter { $0.1 == "a" }.map(\.0), ["master 10"], "budget \(budget)")
            XCTAssertEqual(seen.filter { $0.2 > 0 }.map(\.1), ["é-1"])
            XCTAssertTrue(held.isEmpty)
        }
    }

    func testAFolderThatCannotHoldTheFileFailsTheRunWithItsName() throws {
        var e = Event(uid: "s", start: .utc(1_780_000_000), title: "series")
        e.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=2")]
        let stage = ExpandStage()
        stage.spillBudget = 0
        stage.spillDirectory = spillFolder.path + "/missing"
        let ctx = context(window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1)))
        XCTAssertThrowsError(try stage.process(Batch(events: [e]), context: ctx)) { error in
            XCTAssertEqual("\(error)", "cannot create a temporary file in \(self.spillFolder.path)/missing (the folder does not exist)")
        }
    }
}
