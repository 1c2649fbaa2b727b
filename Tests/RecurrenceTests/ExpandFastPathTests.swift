import Foundation
import Importers
@testable import Pipeline
import XCTest

/// The expand stage's fast paths against the slow ones, on real files: the stage sorts occurrences by
/// integer keys (UIDs replaced by their rank from `HeldSeries`), tests single events against the window with
/// a zone cursor before copying them, and reads held series back and expands them on another thread
/// (`HeldSeries.drainPrepared`). Its output must be, occurrence by occurrence, what the public API gives built the plain way:
/// `Occurrence(single:)`, `SeriesExpander.expand(_:overrides:)` per series and `SeriesExpander.sorted`
/// (which compares the UID strings), batch by batch as the stage hands them on.
final class ExpandFastPathTests: XCTestCase {

    /// Keeps what reaches it: the events as read (for the slow path) or the occurrences.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class Capture: Sink, @unchecked Sendable {
        var batches: [[Event]] = []
        var occurrences: [Occurrence] = []
        var needs: BatchContent { [.events, .occurrences] }
        var label: String { "capture" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {
            if !batch.events.isEmpty { batches.append(batch.events) }
            occurrences.append(contentsOf: batch.occurrences)
        }
        func commit(context: RunContext) throws -> Int { occurrences.count }
        func abort(context: RunContext) {}
    }

    var spillFolder: URL!

    override func setUpWithError() throws {
        spillFolder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-fastpath-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spillFolder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: spillFolder)
    }

    func context(window: Window, zone: Zone) -> RunContext {
        let environment = PipelineEnvironment(pipelineFile: "test.json", baseDirectory: RecurrenceTestSupport.tests, name: "fast", zone: zone,
                                              window: window, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 10, day: 1))
        return RunContext(environment: environment, quiet: true)
    }

    /// Runs the sources through `stages` into a capture sink.
    func run(_ paths: [String], window: Window, zone: Zone, stages: [any Stage]) throws -> Capture {
        let capture = Capture()
        let ctx = context(window: window, zone: zone)
        let sources = paths.map { ICSSource(input: InputSpec(location: .path($0, written: $0))) }
        try Runner().run(PipelineDefinition(environment: ctx.environment, sources: sources, stages: stages, sinks: [capture]), context: ctx)
        XCTAssertEqual(ctx.report.rejections, [])
        return capture
    }

    struct SeriesKey: Hashable {
        var label: String
        var uid: String
    }

    /// What the expand stage hands on, built with the public API only: per source batch its single events'
    /// occurrences sorted; at the end the series in order of source label and UID, sorted in chunks cut
    /// after the series that brings a chunk to `ExpandStage.finishBatchSize`.
    func slowPath(_ batches: [[Event]], zone: Zone, span: SeriesExpander.Span) -> [Occurrence] {
        let expander = SeriesExpander(zone: zone, span: span)
        var out: [Occurrence] = []
        var held: [SeriesKey: (master: Event?, overrides: [Event])] = [:]
        func cancelled(_ e: Event) -> Bool { e.status?.uppercased() == "CANCELLED" }
        func single(_ e: Event) -> Occurrence? {
            let o = Occurrence(single: e)
            let (s, end) = o.interval(in: zone)
            return span.contains(start: s, end: end) ? o : nil
        }
        for batch in batches {
            var singles: [Occurrence] = []
            for e in batch {
                if e.recurrenceID != nil || e.isRecurring {
                    let key = SeriesKey(label: e.metadata["source"] ?? "", uid: e.uid)
                    var entry = held[key] ?? (nil, [])
                    if e.recurrenceID != nil { entry.overrides.append(e) } else if entry.master == nil { entry.master = e }
                    held[key] = entry
                    continue
                }
                if !cancelled(e), let o = single(e) { singles.append(o) }
            }
            out += SeriesExpander.sorted(singles, zone: zone)
        }
        var chunk: [Occurrence] = []
        for key in held.keys.sorted(by: { ($0.label, $0.uid) < ($1.label, $1.uid) }) {
            let entry = held[key]!
            guard let master = entry.master else {
                chunk += entry.overrides.filter { !cancelled($0) }.compactMap(single)
                continue
            }
            chunk += expander.expand(master, overrides: entry.overrides).occurrences
            if chunk.count >= ExpandStage.finishBatchSize {
                out += SeriesExpander.sorted(chunk, zone: zone)
                chunk = []
            }
        }
        out += SeriesExpander.sorted(chunk, zone: zone)
        return out
    }

    func line(_ o: Occurrence) -> String {
        [o.event.uid, o.start.iso8601, o.end.iso8601, o.recurrenceID?.iso8601 ?? "-", o.event.title ?? ""].joined(separator: " | ")
    }

    /// The stage (all in memory, and all spilled) against the slow path on the same files.
    func assertStageMatchesSlowPath(_ paths: [String], window: Window, zone: Zone, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let read = try run(paths, window: window, zone: zone, stages: [])
        let (from, to) = window.utcRange(in: zone)
        let expected = slowPath(read.batches, zone: zone, span: SeriesExpander.Span(from: from, to: to))
        XCTAssertGreaterThan(expected.count, 0, file: file, line: line)
        for budget in [ExpandStage.defaultSpillBudget, 0] {
            let stage = ExpandStage()
            stage.spillBudget = budget
            stage.spillDirectory = spillFolder.path
            let got = try run(paths, window: window, zone: zone, stages: [stage]).occurrences
            XCTAssertEqual(got.count, expected.count, "budget \(budget)", file: file, line: line)
            XCTAssertEqual(got.map(self.line), expected.map(self.line), "budget \(budget)", file: file, line: line)
            XCTAssertTrue(got == expected, "occurrences differ in some field (budget \(budget))", file: file, line: line)
        }
        return expected.count
    }

    func testFixturesInThreeSourcesWithTheSameUIDs() throws {
        // The series fixtures twice (the same UIDs under two source labels) and the corpus.
        let series = RecurrenceTestSupport.tests.appendingPathComponent("Fixtures/recurrence/series").path + "/*.ics"
        let corpus = RecurrenceTestSupport.tests.appendingPathComponent("Fixtures/ics/corpus").path + "/*.ics"
        let window = Window(from: CivilDate(year: 2024, month: 1, day: 1), to: CivilDate(year: 2028, month: 1, day: 1))
        let count = try assertStageMatchesSlowPath([series, corpus, series], window: window, zone: RecurrenceTestSupport.berlin)
        XCTAssertGreaterThan(count, 200)
        // Floating times and dates read in another pipeline zone.
        _ = try assertStageMatchesSlowPath([corpus, series], window: window, zone: Zone.system(identifier: "America/New_York")!)
    }

    func testGeneratedFeedInTwoSourcesChunkByChunk() throws {
        let feed = spillFolder.appendingPathComponent("feed.ics")
        try RecurrenceTestSupport.generateFeed(seed: 8, events: 2000, to: feed.path)
        let window = Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1))
        let count = try assertStageMatchesSlowPath([feed.path, feed.path], window: window, zone: .utc)
        // Several chunks of `finishBatchSize`, with equal start instants across the two sources.
        XCTAssertGreaterThan(count, 3 * ExpandStage.finishBatchSize)
    }

    func testUIDRanksFollowSwiftStringOrderAcrossSources() throws {
        let uids = ["b", "a", "Z", "ä", "a\u{308}x", "é-1", "😀", "z", "", "ab", "Ω", "ﬁ", "e\u{301}-1", "zz", "aa"]
        for budget in [0, 1 << 20] {
            let held = HeldSeries(budget: budget, directory: spillFolder.path)
            for (i, uid) in uids.enumerated() {
                _ = try held.addMaster(Event(uid: uid, start: .utc(Int64(i))), source: i % 2 == 0 ? "one" : "two")
            }
            var seen: [(uid: String, rank: Int32)] = []
            try held.drainRanked { master, _, rank in seen.append((try XCTUnwrap(master).uid, rank)) }
            // "é-1" in its two spellings under two labels: two series with one rank.
            let series = Set(uids.enumerated().map { SeriesKey(label: $0.offset % 2 == 0 ? "one" : "two", uid: $0.element) })
            XCTAssertEqual(seen.count, series.count)
            XCTAssertEqual(seen.count, uids.count)
            for x in seen {
                for y in seen {
                    XCTAssertEqual(x.rank < y.rank, x.uid < y.uid, "\(x.uid) vs \(y.uid)")
                    XCTAssertEqual(x.rank == y.rank, x.uid == y.uid, "\(x.uid) vs \(y.uid)")
                }
            }
        }
    }

    /// Series read back from the file on the worker thread with long stretches of series held in memory
    /// between them (more than its window of series ahead): every event comes back, in order, equal.
    func testSpilledSeriesFarApartComeBackInOrder() throws {
        func event(_ uid: String) -> Event {
            var e = Event(uid: uid, start: .utc(1_780_000_000), title: "series " + uid)
            e.sourceText = "BEGIN:VEVENT\r\nUID:\(uid)\r\nEND:VEVENT\r\n"
            return e
        }
        let inMemory = (0..<100).map { event("m" + String(1000 + $0)) }
        let budget = inMemory.reduce(0) { $0 + HeldSeries.estimatedSize(of: $1) }
        let held = HeldSeries(budget: budget, directory: spillFolder.path)
        var all: [Event] = []
        for e in inMemory {
            guard case .held = try held.addMaster(e, source: "s") else { return XCTFail("\(e.uid) not held") }
            all.append(e)
        }
        for uid in ["a1", "a2", "n1", "z1"] {
            let e = event(uid)
            guard case .held = try held.addMaster(e, source: "s") else { return XCTFail("\(uid) not held") }
            var o = event(uid)
            o.recurrenceID = RecurrenceID(time: .utc(1_780_000_000))
            o.title = "override " + uid
            try held.addOverride(o, source: "s")
            all.append(e)
        }
        XCTAssertEqual(held.spilledEvents, 8)
        var seen: [Event] = []
        var overrides: [String: [Event]] = [:]
        try held.drainRanked { master, list, _ in
            let m = try XCTUnwrap(master)
            seen.append(m)
            overrides[m.uid] = list
        }
        XCTAssertEqual(seen, all.sorted { $0.uid < $1.uid })
        for uid in ["a1", "a2", "n1", "z1"] { XCTAssertEqual(overrides[uid]?.map(\.title), ["override " + uid]) }
        XCTAssertTrue(held.isEmpty)
    }

    func testCancelledStatusInEveryCaseAsUppercasingSaysIt() {
        let statuses = ["CANCELLED", "cancelled", "Cancelled", "cAnCeLlEd", "CANCELED", "CANCELLED ", " CANCELLED", "CANCELLEDX",
                        "CANCELLE", "", "CONFIRMED", "TENTATIVE", "cancel\u{17F}ed", "CANCELLED\u{301}", "ＣANCELLED", "cancelle\u{131}",
                        "ca\u{308}ncelled", "CAN\u{0}CELLED", "çancelled", "cancelled\u{1F600}"]
        for s in statuses {
            XCTAssertEqual(Event.isCancelled(status: s), s.uppercased() == "CANCELLED", s)
            var e = Event(uid: "u", start: .utc(0))
            e.status = s
            XCTAssertEqual(e.isCancelled, s.uppercased() == "CANCELLED", s)
        }
        XCTAssertFalse(Event(uid: "u", start: .utc(0)).isCancelled)
    }
}
