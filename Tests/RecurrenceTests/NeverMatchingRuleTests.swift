import Foundation
import Importers
import Pipeline
import XCTest

/// Rules that can never match cost nothing and keep their DTSTART; a rule whose UNTIL lies before DTSTART gives
/// no instance (issue 30, item 3). The empty answers were checked with python-dateutil 2.9.0.post0:
///
///     from dateutil.rrule import rrulestr; from datetime import datetime
///     list(rrulestr("FREQ=YEARLY;BYWEEKNO=20;BYMONTH=1", dtstart=datetime(2026,1,1,9)).between(datetime(2026,1,1), datetime(2066,1,1)))
///     # [] for every rule of `neverMatching` below (the sub-daily ones over a shorter window)
///     list(rrulestr("FREQ=WEEKLY;UNTIL=20260309T080000Z", dtstart=datetime(2026,3,10,9,tzinfo=ZoneInfo("Europe/Berlin"))))  # []
///     list(rrulestr("FREQ=DAILY;UNTIL=20260310T080000Z", dtstart=datetime(2026,3,10,9,tzinfo=ZoneInfo("Europe/Berlin"))))   # [DTSTART]
final class NeverMatchingRuleTests: XCTestCase {
    static let berlin = Zone.system(identifier: "Europe/Berlin")!
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/recurrence")

    func series(_ rule: String, start: CivilDateTime = CivilDateTime(year: 2026, month: 1, day: 1, hour: 9, minute: 0, second: 17)) throws -> Event {
        var e = Event(uid: "s", start: .zoned(start, Self.berlin), endSpec: .duration(CalDuration(seconds: 1800)), title: "series")
        e.recurrence.rules = [try RecurrenceRule(parsing: rule)]
        return e
    }

    func utc(_ y: Int, _ m: Int, _ d: Int) -> Int64 { CivilDateTime(year: y, month: m, day: d).secondsSinceEpoch }

    static let neverMatching: [(rule: String, why: String)] = [
        ("FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47", "BYSETPOS=36,47 asks for more than the 1 instance a SECONDLY set of this rule can hold"),
        ("FREQ=MINUTELY;BYSECOND=1,2;BYSETPOS=3", "BYSETPOS=3 asks for more than the 2 instances a MINUTELY set of this rule can hold"),
        ("FREQ=HOURLY;BYMINUTE=0,30;BYSETPOS=5,-7", "BYSETPOS=5,-7 asks for more than the 2 instances a HOURLY set of this rule can hold"),
        ("FREQ=DAILY;BYHOUR=9;BYSETPOS=2", "BYSETPOS=2 asks for more than the 1 instance a DAILY set of this rule can hold"),
        ("FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=3", "BYSETPOS=3 asks for more than the 2 instances a WEEKLY set of this rule can hold"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15;BYSETPOS=-3", "BYSETPOS=-3 asks for more than the 2 instances a MONTHLY set of this rule can hold"),
        ("FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30", "no month of BYMONTH has a day of BYMONTHDAY"),
        ("FREQ=YEARLY;BYMONTH=4,6,9,11;BYMONTHDAY=31", "no month of BYMONTH has a day of BYMONTHDAY"),
        ("FREQ=HOURLY;BYMONTHDAY=-31;BYMONTH=2", "no month of BYMONTH has a day of BYMONTHDAY"),
        ("FREQ=SECONDLY;BYYEARDAY=60;BYMONTH=1", "no day is in BYYEARDAY and the rule's other day parts at once"),
        ("FREQ=YEARLY;BYYEARDAY=-1;BYMONTH=6", "no day is in BYYEARDAY and the rule's other day parts at once"),
        ("FREQ=YEARLY;BYWEEKNO=20;BYMONTH=1", "no day is in BYWEEKNO and the rule's other day parts at once"),
        ("FREQ=DAILY;BYWEEKNO=1;BYMONTH=6,7", "no day is in BYWEEKNO and the rule's other day parts at once"),
    ]

    /// Rules near the edge that can match: the analysis must leave them alone (dateutil gives instances).
    static let canMatch = [
        "FREQ=SECONDLY;BYSETPOS=1", "FREQ=SECONDLY;BYSETPOS=-1", "FREQ=MINUTELY;BYSECOND=1,2;BYSETPOS=2",
        "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5", "FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=29", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-29",
        "FREQ=YEARLY;BYYEARDAY=60;BYMONTH=2,3", "FREQ=YEARLY;BYWEEKNO=1;BYMONTH=12", "FREQ=YEARLY;BYWEEKNO=53;BYMONTH=1",
        "FREQ=YEARLY;BYYEARDAY=366", "FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=YEARLY;BYDAY=20MO;BYSETPOS=1",
    ]

    func testRulesThatCanNeverMatchGiveDTSTARTAloneWithAReason() throws {
        let expander = SeriesExpander(zone: Self.berlin, span: .init(from: utc(2026, 1, 1), to: utc(2030, 1, 1)))
        for (rule, why) in Self.neverMatching {
            let result = expander.expand(try series(rule))
            XCTAssertEqual(result.occurrences.map(\.start.iso8601), ["2026-01-01T09:00:17+01:00"], rule)
            XCTAssertFalse(result.workBudgetExhausted, rule)
            let text = try RecurrenceRule(parsing: rule).text
            XCTAssertEqual(result.notes, ["RRULE \(text) can never match after DTSTART (\(why)): it gives DTSTART alone"], rule)
            // dateutil's reading (no DTSTART unless the rule makes it): nothing at all.
            let alone = try RecurrenceRule(parsing: rule).expand(start: CivilDateTime(year: 2026, month: 1, day: 1, hour: 9),
                                                                from: CivilDateTime(year: 2026, month: 1, day: 1),
                                                                to: CivilDateTime(year: 2030, month: 1, day: 1))
            XCTAssertEqual(alone.starts, [], rule)
        }
        for rule in Self.canMatch {
            let result = SeriesExpander(zone: Self.berlin, span: .init(from: utc(2026, 1, 1), to: utc(2036, 1, 1)), maxOccurrences: 5).expand(try series(rule))
            XCTAssertEqual(result.notes, [], rule)
            XCTAssertGreaterThan(result.occurrences.count, 1, rule)
        }
    }

    func testAnRDATEStillComesWithARuleThatNeverMatches() throws {
        var e = try series("FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47")
        e.recurrence.dates = [.time(.zoned(CivilDateTime(year: 2027, month: 5, day: 3, hour: 10, minute: 0), Self.berlin))]
        let result = SeriesExpander(zone: Self.berlin, span: .init(from: utc(2026, 1, 1), to: utc(2030, 1, 1))).expand(e)
        XCTAssertEqual(result.occurrences.map(\.start.iso8601), ["2026-01-01T09:00:17+01:00", "2027-05-03T10:00:00+02:00"])
    }

    func testUNTILBeforeDTSTARTGivesNoInstanceButRDATEsStay() throws {
        let start = CivilDateTime(year: 2026, month: 3, day: 10, hour: 9, minute: 0)
        let expander = SeriesExpander(zone: Self.berlin, span: .init(from: utc(2026, 1, 1), to: utc(2027, 1, 1)))
        // As Google writes it when a series is split at its first instance: UNTIL the day before.
        let split = expander.expand(try series("FREQ=WEEKLY;UNTIL=20260309T080000Z", start: start))
        XCTAssertEqual(split.occurrences.count, 0)
        let text = try RecurrenceRule(parsing: "FREQ=WEEKLY;UNTIL=20260309T080000Z").text
        XCTAssertEqual(split.notes, ["RRULE \(text): UNTIL is before DTSTART, so the rule gives no instance, not even DTSTART"])
        // One second before DTSTART (08:00 UTC is 09:00 in Berlin): none; at DTSTART itself: DTSTART.
        XCTAssertEqual(expander.expand(try series("FREQ=DAILY;UNTIL=20260310T075959Z", start: start)).occurrences.count, 0)
        let atStart = expander.expand(try series("FREQ=DAILY;UNTIL=20260310T080000Z", start: start))
        XCTAssertEqual(atStart.occurrences.map(\.start.iso8601), ["2026-03-10T09:00:00+01:00"])
        XCTAssertEqual(atStart.notes, [])
        // A date UNTIL on DTSTART's own day still includes it.
        XCTAssertEqual(expander.expand(try series("FREQ=DAILY;UNTIL=20260310", start: start)).occurrences.count, 1)
        var withDate = try series("FREQ=WEEKLY;UNTIL=20260309T080000Z", start: start)
        withDate.recurrence.dates = [.time(.zoned(CivilDateTime(year: 2026, month: 4, day: 1, hour: 9, minute: 0), Self.berlin))]
        XCTAssertEqual(expander.expand(withDate).occurrences.map(\.start.iso8601), ["2026-04-01T09:00:00+02:00"])
    }

    /// The fuzz campaign's feed (scripts/gen-never-matching-feed.py): 50 such series over four years, each its
    /// DTSTART once, every one with its warning, in well under a second even in a debug build (before: 0.27 s
    /// a rule in a release build, and no DTSTART with a window past 18 months).
    func testTheFuzzFeedOfFiftyRulesExpandsAtOnce() throws {
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: Self.fixtures, name: "never", zone: Self.berlin,
            window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2030, month: 1, day: 1)),
            environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let path = Self.fixtures.appendingPathComponent("never-matching-50.ics").path
        let capture = ExpandPipelineTests.Capture()
        let pipeline = PipelineDefinition(environment: environment, sources: [ICSSource(input: InputSpec(location: .path(path, written: path)))],
                                          stages: [ExpandStage()], sinks: [capture])
        let started = Date()
        try Runner().run(pipeline, context: context)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(context.report.eventsRead, 50)
        XCTAssertEqual(capture.occurrences.count, 50)
        XCTAssertEqual(Set(capture.occurrences.map(\.event.uid)).count, 50)
        XCTAssertTrue(capture.occurrences.allSatisfy { $0.start == $0.event.start })
        XCTAssertEqual(context.report.warnings.count, 50)
        XCTAssertTrue(context.report.warnings.allSatisfy { $0.contains("can never match after DTSTART") }, "\(context.report.warnings)")
        XCTAssertLessThan(seconds, 5, "50 rules that never match took \(seconds) s")
    }

    /// What the rule alone cannot tell is bounded per run: once the run's allowance is spent, each further rule
    /// walks at most the floor (and keeps its DTSTART).
    func testTheRunsAllowanceBoundsEveryRuleAfterIt() throws {
        let span = SeriesExpander.Span(from: utc(2026, 1, 1), to: utc(2036, 1, 1))
        let full = SeriesExpander(zone: Self.berlin, span: span).expand(try series("FREQ=DAILY"))
        XCTAssertEqual(full.occurrences.count, 3652)
        XCTAssertFalse(full.workBudgetExhausted)
        var expander = SeriesExpander(zone: Self.berlin, span: span)
        let allowance = RuleWorkAllowance(total: 500, floor: 100)
        expander.allowance = allowance
        let first = expander.expand(try series("FREQ=DAILY"))
        XCTAssertTrue(first.workBudgetExhausted)
        XCTAssertEqual(first.occurrences.count, 501, "the periods up to the budget, DTSTART's first")
        XCTAssertEqual(first.occurrences.first?.start.iso8601, "2026-01-01T09:00:17+01:00")
        XCTAssertTrue(allowance.isSpent)
        let second = expander.expand(try series("FREQ=DAILY"))
        XCTAssertEqual(second.occurrences.count, 101)
        XCTAssertEqual(second.occurrences.first?.start.iso8601, "2026-01-01T09:00:17+01:00")
        // A rule that never matches spends nothing.
        let fresh = RuleWorkAllowance(total: 500, floor: 100)
        expander.allowance = fresh
        _ = expander.expand(try series("FREQ=SECONDLY;BYSECOND=13,55;BYSETPOS=36,47"))
        XCTAssertFalse(fresh.isSpent)

        // The expand stage shares one allowance between its series and says once that it was spent.
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: Self.fixtures, name: "budget", zone: Self.berlin,
            window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2036, month: 1, day: 1)),
            environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let stage = ExpandStage()
        stage.allowanceTotal = 1000
        var a = try series("FREQ=DAILY"), b = try series("FREQ=DAILY")
        a.uid = "a"
        b.uid = "b"
        _ = try stage.process(Batch(events: [a, b]), context: context)
        var count = 0
        try stage.finish(context: context) { count += $0.occurrences.count }
        // Each rule may still walk the floor (200,000 periods), more than the 3,652 days each needs here.
        XCTAssertEqual(count, 2 * 3652)
        XCTAssertEqual(context.report.warnings, [
            "the recurrence rules of this run walked more than 1000 periods in all: each rule after that walked at most 200000",
        ])
    }
}
