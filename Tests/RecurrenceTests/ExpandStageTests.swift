import Foundation
import Pipeline
import XCTest

final class ExpandStageTests: XCTestCase {
    static let berlin = Zone.system(identifier: "Europe/Berlin")!
    static let today = CivilDate(year: 2026, month: 6, day: 10)

    final class Log: @unchecked Sendable { var lines: [String] = [] }

    func context(window: Window?, log: Log = Log()) -> RunContext {
        let environment = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test",
                                              zone: Self.berlin, window: window, environment: [:], zones: ZoneDatabase(), today: Self.today)
        return RunContext(environment: environment, log: { log.lines.append($0) })
    }

    func at(_ m: Int, _ d: Int, _ h: Int, _ mi: Int = 0) -> EventTime {
        .zoned(CivilDateTime(year: 2026, month: m, day: d, hour: h, minute: mi), Self.berlin)
    }

    func event(_ uid: String, _ start: EventTime, rule: String? = nil, source: String = "team", file: String = "a.ics", line: Int = 1) throws -> Event {
        var e = Event(uid: uid, start: start, endSpec: .duration(CalDuration(seconds: 3600)), title: uid)
        if let rule { e.recurrence.rules = [try RecurrenceRule(parsing: rule)] }
        e.metadata["source"] = source
        e.origin = SourceLocation(file: file, line: line)
        return e
    }

    func overrideOf(_ uid: String, instance: EventTime, start: EventTime, source: String = "team", cancelled: Bool = false) -> Event {
        var o = Event(uid: uid, start: start, endSpec: .duration(CalDuration(seconds: 600)), title: "moved")
        o.recurrenceID = RecurrenceID(time: instance)
        o.metadata["source"] = source
        if cancelled { o.status = "CANCELLED" }
        return o
    }

    func line(_ o: Occurrence) -> String { o.event.uid + " " + o.start.iso8601 + " " + (o.event.title ?? "") }

    func testOverridesBeforeTheirMasterInAnotherFileOfTheSameSource() throws {
        let stage = ExpandStage()
        let ctx = context(window: Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 6, day: 5)))
        // File b.ics comes first with the overrides, then a.ics with the series and a one-off meeting.
        let first = try stage.process(Batch(events: [
            overrideOf("weekly", instance: at(6, 2, 9), start: at(6, 2, 15)),
            overrideOf("weekly", instance: at(6, 3, 9), start: at(6, 3, 9), cancelled: true),
            overrideOf("weekly", instance: at(6, 4, 9), start: at(6, 4, 16), source: "other"),
        ]), context: ctx)
        XCTAssertEqual(first.occurrences.count, 0)
        XCTAssertTrue(first.content.contains(.occurrences))
        let second = try stage.process(Batch(events: [
            try event("weekly", at(6, 1, 9), rule: "FREQ=DAILY"),
            try event("lunch", at(6, 2, 12)),
        ]), context: ctx)
        XCTAssertEqual(second.events.count, 2, "events pass on unchanged")
        XCTAssertEqual(second.occurrences.map(line), ["lunch 2026-06-02T12:00:00+02:00 lunch"])
        let tail = try stage.finish(context: ctx)
        XCTAssertEqual(tail.occurrences.map(line), [
            "weekly 2026-06-01T09:00:00+02:00 weekly",
            "weekly 2026-06-02T15:00:00+02:00 moved",
            "weekly 2026-06-04T09:00:00+02:00 weekly",
            // An override from another source does not touch this series; alone, it shows at its own time.
            "weekly 2026-06-04T16:00:00+02:00 moved",
        ])
        XCTAssertEqual(tail.occurrences[1].recurrenceID?.iso8601, "2026-06-02T09:00:00+02:00")
        XCTAssertTrue(ctx.report.warnings.isEmpty)
    }

    func testNonRecurringEventsOutsideTheWindowOrCancelledAreDropped() throws {
        let ctx = context(window: Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 6, day: 2)))
        var cancelled = try event("c", at(6, 1, 10))
        cancelled.status = "CANCELLED"
        var zeroAtStart = try event("z", at(6, 1, 0))
        zeroAtStart.endSpec = nil
        var zeroAtEnd = try event("e", at(6, 2, 0))
        zeroAtEnd.endSpec = nil
        let batch = Batch(events: [try event("late", at(6, 2, 0)), try event("b", at(6, 1, 10)), try event("a", at(6, 1, 10)),
                                   try event("early", at(5, 31, 23)), cancelled, zeroAtStart, zeroAtEnd])
        let out = try ExpandStage().process(batch, context: ctx)
        XCTAssertEqual(out.occurrences.map(\.event.uid), ["z", "a", "b"])
        let kept = try ExpandStage(includeCancelled: true).process(batch, context: ctx)
        XCTAssertEqual(kept.occurrences.map(\.event.uid), ["z", "a", "b", "c"])
    }

    func testCapWarnsNamingTheEvent() throws {
        let log = Log()
        let ctx = context(window: Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 6, day: 2)), log: log)
        let stage = ExpandStage(maxOccurrences: 500)
        _ = try stage.process(Batch(events: [try event("runaway", at(6, 1, 9), rule: "FREQ=SECONDLY", file: "feeds/team.ics", line: 42)]), context: ctx)
        let tail = try stage.finish(context: ctx)
        XCTAssertEqual(tail.occurrences.count, 500)
        XCTAssertEqual(ctx.report.warnings, ["event \"runaway\" (feeds/team.ics:42) has more than 500 occurrences; kept the first 500 (option max_occurrences)"])
        XCTAssertEqual(log.lines, ["calpipe: warning: event \"runaway\" (feeds/team.ics:42) has more than 500 occurrences; kept the first 500 (option max_occurrences)"])
    }

    func testWithoutAWindowExpandsFromDtstartToTodayPlus365Days() throws {
        let ctx = context(window: nil)
        let stage = ExpandStage()
        _ = try stage.process(Batch(events: [try event("daily", at(6, 8, 9), rule: "FREQ=DAILY")]), context: ctx)
        let tail = try stage.finish(context: ctx)
        // 2026-06-08 up to and including 2027-06-09 (today + 365 days is 2027-06-10, exclusive).
        XCTAssertEqual(tail.occurrences.count, 367)
        XCTAssertEqual(tail.occurrences.first?.start.iso8601, "2026-06-08T09:00:00+02:00")
        XCTAssertEqual(tail.occurrences.last?.start.iso8601, "2027-06-09T09:00:00+02:00")
    }

    func testCancelledSeriesAndRepeatedMaster() throws {
        let window = Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 6, day: 4))
        var cancelled = try event("gone", at(6, 1, 9), rule: "FREQ=DAILY")
        cancelled.status = "CANCELLED"
        let first = try event("twice", at(6, 1, 8), rule: "FREQ=DAILY;COUNT=2", file: "a.ics", line: 3)
        let again = try event("twice", at(6, 1, 18), rule: "FREQ=DAILY", file: "b.ics", line: 7)
        for include in [false, true] {
            let ctx = context(window: window)
            let stage = ExpandStage(includeCancelled: include)
            _ = try stage.process(Batch(events: [cancelled, first, again]), context: ctx)
            let tail = try stage.finish(context: ctx)
            // Nothing tells the two copies' revisions apart (no SEQUENCE, no DTSTAMP): the one read last.
            XCTAssertEqual(tail.occurrences.map { $0.event.uid + " " + $0.start.iso8601 },
                           include ? ["gone 2026-06-01T09:00:00+02:00", "twice 2026-06-01T18:00:00+02:00", "gone 2026-06-02T09:00:00+02:00",
                                      "twice 2026-06-02T18:00:00+02:00", "gone 2026-06-03T09:00:00+02:00", "twice 2026-06-03T18:00:00+02:00"]
                                   : ["twice 2026-06-01T18:00:00+02:00", "twice 2026-06-02T18:00:00+02:00", "twice 2026-06-03T18:00:00+02:00"])
            XCTAssertEqual(ctx.report.warnings, ["event \"twice\" (b.ics:7) repeats the series (a.ics:3) with the same SEQUENCE and DTSTAMP; using the one read last"])
        }
    }

    func testARepeatedSeriesKeepsItsLaterRevisionAndAnExactCopyOnce() throws {
        let window = Window(from: CivilDate(year: 2026, month: 6, day: 1), to: CivilDate(year: 2026, month: 6, day: 3))
        func copy(_ at: EventTime, sequence: String?, stamp: String?, line: Int) throws -> Event {
            var e = try event("weekly", at, rule: "FREQ=DAILY", line: line)
            if let sequence { e.otherProperties.append(RawProperty(name: "SEQUENCE", value: sequence)) }
            if let stamp { e.otherProperties.append(RawProperty(name: "DTSTAMP", value: stamp)) }
            return e
        }
        // Higher SEQUENCE wins over a later DTSTAMP; with one SEQUENCE the later DTSTAMP wins; in any order.
        let cases: [([Event], String, [String])] = [
            ([try copy(at(6, 1, 8), sequence: "2", stamp: "20260101T000000Z", line: 1), try copy(at(6, 1, 10), sequence: "1", stamp: "20260301T000000Z", line: 9)],
             "08:00", ["event \"weekly\" (a.ics:9) is an earlier revision of the series (a.ics:1) (SEQUENCE, DTSTAMP); using the later one"]),
            ([try copy(at(6, 1, 8), sequence: nil, stamp: "20260101T000000Z", line: 1), try copy(at(6, 1, 10), sequence: "0", stamp: "20260301T000000Z", line: 9)],
             "10:00", ["event \"weekly\" (a.ics:9) is a later revision of the series (a.ics:1) (SEQUENCE, DTSTAMP); using it"]),
            ([try copy(at(6, 1, 10), sequence: nil, stamp: "20260301T000000Z", line: 1), try copy(at(6, 1, 8), sequence: nil, stamp: "20260101T000000Z", line: 9)],
             "10:00", ["event \"weekly\" (a.ics:9) is an earlier revision of the series (a.ics:1) (SEQUENCE, DTSTAMP); using the later one"]),
            ([try copy(at(6, 1, 10), sequence: "1", stamp: nil, line: 1), try copy(at(6, 1, 10), sequence: "1", stamp: nil, line: 9)],
             "10:00", ["event \"weekly\" (a.ics:9) repeats the series (a.ics:1) exactly; kept once"]),
        ]
        for (events, time, warnings) in cases {
            let ctx = context(window: window)
            let stage = ExpandStage()
            _ = try stage.process(Batch(events: events), context: ctx)
            let tail = try stage.finish(context: ctx)
            XCTAssertEqual(tail.occurrences.map(\.start.iso8601), ["2026-06-01T\(time):00+02:00", "2026-06-02T\(time):00+02:00"], "\(warnings)")
            XCTAssertEqual(ctx.report.warnings, warnings)
        }
    }

    func testRegisteredAsExpand() {
        XCTAssertEqual(CoreStages.all.filter { $0.type == "expand" }.count, 1)
        XCTAssertEqual(ExpandStage.descriptor.options.map(\.name), ["max_occurrences", "include_cancelled"])
    }
}
