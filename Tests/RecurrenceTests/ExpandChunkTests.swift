import Foundation
@testable import Pipeline
import XCTest

/// Issue 16: memory must not grow with the occurrences of one series. The expand stage hands a series on in
/// bounded batches (`ExpandStage.finishBatchSize` occurrences, fewer when each occurrence spans many days), so
/// the split stage and the sinks behind it hold one batch at a time. Checked on the batch sizes, not on RSS.
final class ExpandChunkTests: XCTestCase {
    static let berlin = Zone.system(identifier: "Europe/Berlin")!

    func context(from: CivilDate, to: CivilDate, log: ExpandStageTests.Log) -> RunContext {
        let environment = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test",
                                              zone: Self.berlin, window: Window(from: from, to: to), environment: [:],
                                              zones: ZoneDatabase(), today: from)
        return RunContext(environment: environment, log: { log.lines.append($0) })
    }

    func series(_ uid: String, rule: String, length: CalDuration, minute: Int = 0) throws -> Event {
        var e = Event(uid: uid, start: .zoned(CivilDateTime(year: 2026, month: 1, day: 1, minute: minute), Self.berlin),
                      endSpec: .duration(length), title: uid)
        e.recurrence.rules = [try RecurrenceRule(parsing: rule)]
        e.metadata["source"] = "feed"
        return e
    }

    /// Runs `events` through a stage and returns the batches its `finish` emits.
    func batches(_ events: [Event], stage: ExpandStage, context: RunContext) throws -> [Batch] {
        _ = try stage.process(Batch(events: events), context: context)
        var out: [Batch] = []
        try stage.finish(context: context) { out.append($0) }
        return out
    }

    func testAMinutelySeriesOver90DaysComesInBoundedBatches() throws {
        let log = ExpandStageTests.Log()
        let ctx = context(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 4, day: 1), log: log)
        let stage = ExpandStage(maxOccurrences: 10_000_000)
        let out = try batches([try series("minutely", rule: "FREQ=MINUTELY", length: CalDuration(seconds: 30))], stage: stage, context: ctx)
        let sizes = out.map(\.occurrences.count)
        // 90 days of minutes (the hour Berlin skips on 29 March moves forward by the gap, RFC 5545 3.3.5).
        XCTAssertEqual(sizes.reduce(0, +), 90 * 1440)
        XCTAssertLessThanOrEqual(sizes.max() ?? 0, 2 * ExpandStage.finishBatchSize, "\(sizes.max() ?? 0)")
        XCTAssertGreaterThan(out.count, 15)
        // In order across batches.
        let starts = out.flatMap { $0.occurrences.map { $0.start.utcSeconds(in: Self.berlin) } }
        XCTAssertEqual(zip(starts, starts.dropFirst()).filter { $0.0 > $0.1 }.count, 0)
        XCTAssertEqual(log.lines, [])
    }

    /// Occurrences that each span days count as that many day entries: fewer of them per batch.
    func testLongOccurrencesComeInSmallerBatchesAndManySeriesStayBounded() throws {
        let log = ExpandStageTests.Log()
        let ctx = context(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 2, day: 1), log: log)
        let stage = ExpandStage(maxOccurrences: 10_000_000)
        let long = try series("long", rule: "FREQ=MINUTELY;INTERVAL=5", length: CalDuration(days: 3))
        let many = try (0..<20).map { try series("s\($0)", rule: "FREQ=MINUTELY;INTERVAL=13", length: CalDuration(seconds: 60), minute: $0) }
        let out = try batches([long] + many, stage: stage, context: ctx)
        for batch in out {
            let days = batch.occurrences.reduce(0) { total, o in
                let (s, e) = o.interval(in: Self.berlin)
                return total + Int((e - s) / 86_400) + 2
            }
            XCTAssertLessThanOrEqual(days, 3 * ExpandStage.finishBatchDays, "\(batch.occurrences.count) occurrences")
            XCTAssertLessThanOrEqual(batch.occurrences.count, 2 * ExpandStage.finishBatchSize)
        }
        let uids = Dictionary(grouping: out.flatMap(\.occurrences), by: \.event.uid).mapValues(\.count)
        XCTAssertEqual(uids["long"], 31 * 288)  // every 5 minutes from DTSTART, the window's start
        XCTAssertEqual(uids.count, 21)
    }

    /// Issue 30: a minutely series whose instances last 11 days (1.46 million day entries in 90 days) comes in
    /// batches of at most twice `finishBatchDays` day entries: a step of the series makes no more instances
    /// than a batch may hold (it made 4,096, so a batch held up to 49,000 day entries, and the batches queued
    /// for the sinks took the run to 186 MB).
    func testElevenDayInstancesEveryMinuteComeInBatchesOfBoundedDays() throws {
        let log = ExpandStageTests.Log()
        let ctx = context(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 4, day: 1), log: log)
        let stage = ExpandStage(maxOccurrences: 10_000_000)
        let out = try batches([try series("minutely", rule: "FREQ=MINUTELY;UNTIL=20260401T000000Z", length: CalDuration(days: 11))], stage: stage, context: ctx)
        let splitter = DaySplitter(zone: Self.berlin, window: ctx.window)
        let days = out.map { $0.occurrences.reduce(0) { $0 + splitter.count($1) } }
        XCTAssertEqual(out.map(\.occurrences.count).reduce(0, +), 90 * 1440)
        XCTAssertLessThanOrEqual(days.max() ?? 0, 2 * ExpandStage.finishBatchDays, "\(days.max() ?? 0) day entries in one batch")
        XCTAssertGreaterThan(out.count, 90)
    }

    /// The per-series cap warns and keeps the first ones, without holding them all.
    func testTheCapWarnsAndKeepsTheFirst() throws {
        let log = ExpandStageTests.Log()
        let ctx = context(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 1, day: 3), log: log)
        let stage = ExpandStage(maxOccurrences: 10_000)
        let out = try batches([try series("secondly", rule: "FREQ=SECONDLY", length: CalDuration(seconds: 1))], stage: stage, context: ctx)
        XCTAssertEqual(out.map(\.occurrences.count).reduce(0, +), 10_000)
        XCTAssertLessThanOrEqual(out.map(\.occurrences.count).max() ?? 0, 2 * ExpandStage.finishBatchSize)
        XCTAssertEqual(log.lines, ["calpipe: warning: event \"secondly\" has more than 10000 occurrences; kept the first 10000 (option max_occurrences)"])
        XCTAssertEqual(ExpandStage.defaultMaxOccurrences, 1_000_000)
    }

    /// A COUNT rule expanded in steps (each step resuming the count where the last stopped) gives the same
    /// instances as one run from DTSTART.
    func testCountRulesExpandedInStepsMatchOneRun() throws {
        for text in ["FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=2,-1;COUNT=20000", "FREQ=HOURLY;BYHOUR=9,10,11;BYDAY=MO,FR;COUNT=30000",
                     "FREQ=DAILY;BYMONTH=1,3,5;COUNT=15000", "FREQ=MINUTELY;INTERVAL=7;BYHOUR=8;COUNT=12000"] {
            let rule = try RecurrenceRule(parsing: text)
            let start = CivilDateTime(year: 2000, month: 1, day: 3, hour: 9)
            var e = Event(uid: "c", start: .utc(start.secondsSinceEpoch), endSpec: .duration(CalDuration(seconds: 60)))
            e.recurrence.rules = [rule]
            let expander = SeriesExpander(zone: .utc, span: .init(from: nil, to: CivilDateTime(year: 9000, month: 1, day: 1).secondsSinceEpoch),
                                          maxOccurrences: 10_000_000)
            let stepped = expander.expand(e).occurrences.map { $0.start.utcSeconds(in: .utc) }
            let once = rule.expand(start: start, from: start, to: CivilDateTime(year: 9000, month: 1, day: 1), includeStart: true, limit: 10_000_000)
            XCTAssertGreaterThan(stepped.count, 2 * SeriesExpander.stepInstances, text)
            XCTAssertEqual(stepped, once.starts.map(\.secondsSinceEpoch), text)
        }
    }
}
