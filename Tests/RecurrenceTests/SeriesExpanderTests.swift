import Pipeline
import XCTest

/// Series expansion: time zones and DST, RDATE/EXDATE/EXRULE, overrides. Expected instants were checked
/// against python's zoneinfo (fold=0 is RFC 5545's rule: a gap time moves forward, an ambiguous one is first).
final class SeriesExpanderTests: XCTestCase {
    static let berlin = Zone.system(identifier: "Europe/Berlin")!
    static let newYork = Zone.system(identifier: "America/New_York")!

    func at(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ zone: Zone = berlin) -> EventTime {
        .zoned(CivilDateTime(year: y, month: m, day: d, hour: h, minute: mi), zone)
    }

    func utc(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0) -> Int64 {
        CivilDateTime(year: y, month: m, day: d, hour: h, minute: mi).secondsSinceEpoch
    }

    func series(_ uid: String = "s1", start: EventTime, duration: CalDuration = CalDuration(seconds: 3600), rule: String?,
                title: String = "Stand-up") throws -> Event {
        var e = Event(uid: uid, start: start, endSpec: .duration(duration), title: title)
        if let rule { e.recurrence.rules = [try RecurrenceRule(parsing: rule)] }
        return e
    }

    func expander(from: Int64?, to: Int64, zone: Zone = berlin, max: Int = 100_000, includeCancelled: Bool = false) -> SeriesExpander {
        SeriesExpander(zone: zone, span: .init(from: from, to: to), maxOccurrences: max, includeCancelled: includeCancelled)
    }

    func starts(_ r: SeriesExpander.Result) -> [String] { r.occurrences.map(\.start.iso8601) }

    // MARK: DST

    func testWeeklyMeetingStaysAtNineAcrossBothBerlinChanges() throws {
        let e = try series(start: at(2026, 3, 23, 9), rule: "FREQ=WEEKLY")
        let spring = expander(from: utc(2026, 3, 20), to: utc(2026, 4, 2)).expand(e)
        XCTAssertEqual(starts(spring), ["2026-03-23T09:00:00+01:00", "2026-03-30T09:00:00+02:00"])
        XCTAssertEqual(spring.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 3, 23, 8), utc(2026, 3, 30, 7)])
        let autumn = expander(from: utc(2026, 10, 18), to: utc(2026, 10, 27)).expand(e)
        XCTAssertEqual(starts(autumn), ["2026-10-19T09:00:00+02:00", "2026-10-26T09:00:00+01:00"])
        XCTAssertEqual(autumn.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 10, 19, 7), utc(2026, 10, 26, 8)])
        XCTAssertEqual(autumn.occurrences.map(\.end.iso8601), ["2026-10-19T10:00:00+02:00", "2026-10-26T10:00:00+01:00"])
    }

    func testBerlinGapMovesForwardAndOverlapTakesTheFirst() throws {
        let e = try series(start: at(2026, 3, 1, 2, 30), rule: "FREQ=DAILY")
        let gap = expander(from: utc(2026, 3, 28), to: utc(2026, 3, 30, 12)).expand(e)
        XCTAssertEqual(starts(gap), ["2026-03-28T02:30:00+01:00", "2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00"])
        XCTAssertEqual(gap.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30)])
        // The instance keeps its identity: the 02:30 the rule produced.
        XCTAssertEqual(gap.occurrences[1].recurrenceID, at(2026, 3, 29, 2, 30))
        let overlap = expander(from: utc(2026, 10, 24, 12), to: utc(2026, 10, 26, 12)).expand(e)
        XCTAssertEqual(overlap.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)])
        XCTAssertEqual(starts(overlap), ["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"])
    }

    func testNewYorkGapAndOverlap() throws {
        let ny = Self.newYork
        let gapSeries = try series(start: at(2026, 3, 1, 2, 30, ny), rule: "FREQ=DAILY")
        let gap = expander(from: utc(2026, 3, 7, 12), to: utc(2026, 3, 9, 12), zone: ny).expand(gapSeries)
        XCTAssertEqual(starts(gap), ["2026-03-08T03:30:00-04:00", "2026-03-09T02:30:00-04:00"])
        XCTAssertEqual(gap.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 3, 8, 7, 30), utc(2026, 3, 9, 6, 30)])
        let overlapSeries = try series(start: at(2026, 10, 1, 1, 30, ny), rule: "FREQ=DAILY")
        let overlap = expander(from: utc(2026, 11, 1), to: utc(2026, 11, 2, 12), zone: ny).expand(overlapSeries)
        XCTAssertEqual(overlap.occurrences.map { $0.interval(in: .utc).start }, [utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)])
        XCTAssertEqual(starts(overlap), ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"])
    }

    func testUTCUntilEndsTheSeriesAtTheRightInstant() throws {
        // 09:00 Berlin daily; UNTIL 2026-03-30T07:00:00Z is exactly the 09:00 CEST instance, which is included.
        let e = try series(start: at(2026, 3, 27, 9), rule: "FREQ=DAILY;UNTIL=20260330T070000Z")
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e)
        XCTAssertEqual(starts(r), ["2026-03-27T09:00:00+01:00", "2026-03-28T09:00:00+01:00", "2026-03-29T09:00:00+02:00", "2026-03-30T09:00:00+02:00"])
    }

    func testAllDayAndFloatingSeriesStayDatesAndFloating() throws {
        var birthday = Event(uid: "b", start: .date(CivilDate(year: 2000, month: 2, day: 29)), title: "Birthday")
        birthday.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=YEARLY")]
        let r = expander(from: utc(2020, 1, 1), to: utc(2029, 1, 1)).expand(birthday)
        XCTAssertEqual(starts(r), ["2020-02-29", "2024-02-29", "2028-02-29"])
        XCTAssertEqual(r.occurrences.map(\.end.iso8601), ["2020-03-01", "2024-03-01", "2028-03-01"])
        let floating = try series(start: .floating(CivilDateTime(year: 2026, month: 3, day: 28, hour: 2, minute: 30)), rule: "FREQ=DAILY;COUNT=2")
        XCTAssertEqual(starts(expander(from: nil, to: utc(2027, 1, 1)).expand(floating)), ["2026-03-28T02:30:00", "2026-03-29T02:30:00"])
    }

    // MARK: RDATE, EXDATE, EXRULE, DTSTART

    func testExdateInAnotherZoneRemovesTheMatchingInstance() throws {
        var e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=DAILY;COUNT=6")
        e.recurrence.exceptionDates = [
            .utc(utc(2026, 6, 3, 7)),                                             // 09:00 CEST
            .zoned(CivilDateTime(year: 2026, month: 6, day: 5, hour: 3), Self.newYork),  // 03:00 EDT = 09:00 CEST
            .zoned(CivilDateTime(year: 2026, month: 6, day: 6, hour: 10), Self.berlin),   // no such instance
        ]
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e)
        XCTAssertEqual(starts(r), ["2026-06-01T09:00:00+02:00", "2026-06-02T09:00:00+02:00", "2026-06-04T09:00:00+02:00", "2026-06-06T09:00:00+02:00"])
    }

    func testRdatesInAllFormsAndDuplicatesCollapse() throws {
        var e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=WEEKLY;COUNT=2")
        e.recurrence.dates = [
            .time(at(2026, 6, 8, 9)),  // duplicate of the rule's second instance
            .time(.utc(utc(2026, 6, 10, 16))),  // 18:00 CEST
            .period(start: at(2026, 6, 12, 14), end: at(2026, 6, 12, 17)),
            .periodWithDuration(start: .zoned(CivilDateTime(year: 2026, month: 6, day: 13, hour: 8), Self.newYork), duration: CalDuration(seconds: 1800)),
        ]
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e)
        XCTAssertEqual(starts(r), ["2026-06-01T09:00:00+02:00", "2026-06-08T09:00:00+02:00", "2026-06-10T18:00:00+02:00",
                                   "2026-06-12T14:00:00+02:00", "2026-06-13T14:00:00+02:00"])
        XCTAssertEqual(r.occurrences.map { $0.interval(in: .utc).end - $0.interval(in: .utc).start }, [3600, 3600, 3600, 10800, 1800])
    }

    func testExruleAndSeveralRrulesUnion() throws {
        var e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=WEEKLY;BYDAY=MO;COUNT=4")
        e.recurrence.rules.append(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4"))
        e.recurrence.exceptionRules = [try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=3MO")]
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e)
        // MO: 1, 8, 15, 22; MO,WE: 1, 3, 8, 10; the third Monday (15th) is excluded.
        XCTAssertEqual(r.occurrences.map { $0.start.localTime.date.day }, [1, 3, 8, 10, 22])
    }

    func testDtstartNotMatchingTheRuleIsTheFirstInstanceAndCounts() throws {
        // DTSTART is a Wednesday; the rule wants Mondays: Wed 3, then two Mondays (COUNT=3 includes DTSTART).
        let e = try series(start: at(2026, 6, 3, 9), rule: "FREQ=WEEKLY;BYDAY=MO;COUNT=3")
        XCTAssertEqual(expander(from: nil, to: utc(2027, 1, 1)).expand(e).occurrences.map { $0.start.localTime.date.day }, [3, 8, 15])
    }

    // MARK: Overrides

    func override(_ master: Event, instance: EventTime, start: EventTime, title: String? = nil, cancelled: Bool = false,
                  thisAndFuture: Bool = false) -> Event {
        var o = Event(uid: master.uid, start: start, endSpec: .duration(CalDuration(seconds: 1800)), title: title ?? master.title)
        o.recurrenceID = RecurrenceID(time: instance, thisAndFuture: thisAndFuture)
        if cancelled { o.status = "CANCELLED" }
        return o
    }

    func testMovedAndCancelledInstances() throws {
        let e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=DAILY;COUNT=4")
        let moved = override(e, instance: at(2026, 6, 2, 9), start: at(2026, 6, 2, 14), title: "Moved")
        let cancelled = override(e, instance: .utc(utc(2026, 6, 3, 7)), start: at(2026, 6, 3, 9), cancelled: true)
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e, overrides: [moved, cancelled])
        XCTAssertEqual(starts(r), ["2026-06-01T09:00:00+02:00", "2026-06-02T14:00:00+02:00", "2026-06-04T09:00:00+02:00"])
        XCTAssertEqual(r.occurrences.map { $0.event.title ?? "" }, ["Stand-up", "Moved", "Stand-up"])
        XCTAssertEqual(r.occurrences.map { $0.recurrenceID?.iso8601 ?? "" },
                       ["2026-06-01T09:00:00+02:00", "2026-06-02T09:00:00+02:00", "2026-06-04T09:00:00+02:00"])
        XCTAssertEqual(r.occurrences[1].end.iso8601, "2026-06-02T14:30:00+02:00")
        let withCancelled = expander(from: nil, to: utc(2027, 1, 1), includeCancelled: true).expand(e, overrides: [moved, cancelled])
        XCTAssertEqual(withCancelled.occurrences.count, 4)
        XCTAssertEqual(withCancelled.occurrences[2].event.status, "CANCELLED")
    }

    func testOverrideMovedIntoTheWindowFromOutsideAndOutOfIt() throws {
        let e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=WEEKLY")
        let intoWindow = override(e, instance: at(2026, 6, 1, 9), start: at(2026, 6, 10, 12), title: "Pulled in")
        let outOfWindow = override(e, instance: at(2026, 6, 15, 9), start: at(2026, 6, 30, 9), title: "Pushed out")
        let r = expander(from: utc(2026, 6, 8), to: utc(2026, 6, 22)).expand(e, overrides: [intoWindow, outOfWindow])
        XCTAssertEqual(starts(r), ["2026-06-08T09:00:00+02:00", "2026-06-10T12:00:00+02:00"])
    }

    func testOverrideOfAnInstanceTheRuleNeverMakesStillShows() throws {
        let e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=WEEKLY;COUNT=2")
        let extra = override(e, instance: at(2026, 6, 4, 9), start: at(2026, 6, 4, 11), title: "Extra")
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e, overrides: [extra])
        XCTAssertEqual(starts(r), ["2026-06-01T09:00:00+02:00", "2026-06-04T11:00:00+02:00", "2026-06-08T09:00:00+02:00"])
    }

    func testThisAndFutureShiftsAndRenamesLaterInstances() throws {
        let e = try series(start: at(2026, 6, 1, 9), rule: "FREQ=DAILY;COUNT=5")
        let future = override(e, instance: at(2026, 6, 3, 9), start: at(2026, 6, 3, 10, 30), title: "Later stand-up", thisAndFuture: true)
        let r = expander(from: nil, to: utc(2027, 1, 1)).expand(e, overrides: [future])
        XCTAssertEqual(starts(r), ["2026-06-01T09:00:00+02:00", "2026-06-02T09:00:00+02:00", "2026-06-03T10:30:00+02:00",
                                   "2026-06-04T10:30:00+02:00", "2026-06-05T10:30:00+02:00"])
        XCTAssertEqual(r.occurrences.map { $0.event.title ?? "" }, ["Stand-up", "Stand-up", "Later stand-up", "Later stand-up", "Later stand-up"])
        XCTAssertEqual(r.occurrences.map(\.end.iso8601).last, "2026-06-05T11:00:00+02:00")
        XCTAssertEqual(r.occurrences.last?.recurrenceID?.iso8601, "2026-06-05T09:00:00+02:00")
    }

    // MARK: Bounds and caps

    func testPerEventCapTruncates() throws {
        let e = try series(start: at(2026, 6, 1, 9), duration: .zero, rule: "FREQ=SECONDLY")
        let r = expander(from: utc(2026, 6, 1), to: utc(2026, 6, 2), max: 1000).expand(e)
        XCTAssertTrue(r.truncated)
        XCTAssertEqual(r.occurrences.count, 1000)
        XCTAssertEqual(r.occurrences.last?.start.iso8601, "2026-06-01T09:16:39+02:00")
    }

    func testImpossibleRuleEndsWithNothing() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31")
        let start = CivilDateTime(year: 2000, month: 1, day: 31, hour: 9)
        let r = rule.expand(start: start, from: start, to: CivilDateTime(year: 9999, month: 1, day: 1))
        XCTAssertEqual(r.starts, [])
        XCTAssertFalse(r.truncated)
        let secondly = try RecurrenceRule(parsing: "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30")
        XCTAssertEqual(secondly.expand(start: start, from: start, to: CivilDateTime(year: 2400, month: 1, day: 1)).starts, [])
        // With DTSTART the set is just DTSTART.
        XCTAssertEqual(rule.expand(start: start, from: start, to: CivilDateTime(year: 9999, month: 1, day: 1), includeStart: true).starts, [start])
    }

    func testSubDailyIntervalThatNeverMeetsItsTimesEndsAtOnce() throws {
        // dateutil refuses this rule ("byxxx generates an empty set"); the engine yields nothing, at once.
        let never = try RecurrenceRule(parsing: "FREQ=HOURLY;INTERVAL=2;BYHOUR=9")
        let start = CivilDateTime(year: 2026, month: 1, day: 1, hour: 8)
        XCTAssertEqual(never.expand(start: start, from: start, to: CivilDateTime(year: 9000, month: 1, day: 1)), RuleExpansion(starts: [], truncated: false))
        // Every 7 minutes meets minute 0 every 7 hours (python-dateutil: 00:00, 07:00, 14:00, 21:00).
        let sometimes = try RecurrenceRule(parsing: "FREQ=MINUTELY;INTERVAL=7;BYMINUTE=0;COUNT=4")
        let midnight = CivilDateTime(year: 2026, month: 1, day: 1)
        XCTAssertEqual(sometimes.expand(start: midnight, from: midnight, to: CivilDateTime(year: 2027, month: 1, day: 1)).starts.map(\.basicFormat),
                       ["20260101T000000", "20260101T070000", "20260101T140000", "20260101T210000"])
    }

    func testFarPastStartJumpsAheadAndCountStillCountsFromDtstart() throws {
        let start = CivilDateTime(year: 1900, month: 1, day: 1, hour: 9)
        let daily = try RecurrenceRule(parsing: "FREQ=DAILY")
        let r = daily.expand(start: start, from: CivilDateTime(year: 2026, month: 6, day: 1), to: CivilDateTime(year: 2026, month: 6, day: 3))
        XCTAssertEqual(r.starts.map(\.basicFormat), ["20260601T090000", "20260602T090000"])
        // COUNT=50000 from 1900-01-01: the last instance is day 49,999 after DTSTART, 2036-11-22.
        let counted = try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=50000")
        let tail = counted.expand(start: start, from: CivilDateTime(year: 2036, month: 11, day: 20), to: CivilDateTime(year: 2037, month: 1, day: 1))
        XCTAssertEqual(tail.starts.map(\.basicFormat), ["20361120T090000", "20361121T090000", "20361122T090000"])
        // The same through the general path (a filter that keeps every day forbids the arithmetic skip).
        let filtered = try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=50000;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12")
        XCTAssertEqual(filtered.expand(start: start, from: CivilDateTime(year: 2036, month: 11, day: 20), to: CivilDateTime(year: 2037, month: 1, day: 1)).starts,
                       tail.starts)
    }

    func testWeekNumbersAreISOWeeks() throws {
        // Weekend days of January in week 52: those before week 1 that belong to a 52-week previous year.
        // Expected from python's date.isocalendar(); python-dateutil misses 2022-01-01/02 (it calls them week 53).
        let rule = try RecurrenceRule(parsing: "FREQ=YEARLY;BYWEEKNO=52;BYMONTH=1;BYDAY=SA,SU")
        let start = CivilDateTime(year: 2016, month: 1, day: 1, hour: 12)
        XCTAssertEqual(rule.expand(start: start, from: start, to: CivilDateTime(year: 2031, month: 1, day: 1)).starts.map { $0.date.basicFormat },
                       ["20170101", "20220101", "20220102", "20230101", "20280101", "20280102"])
        // December days in week 1 of a 52-week year are its week -52 (python isocalendar; dateutil never matches
        // negative week numbers in the next year).
        let negative = try RecurrenceRule(parsing: "FREQ=YEARLY;BYWEEKNO=-52;BYMONTH=12")
        XCTAssertEqual(negative.expand(start: start, from: start, to: CivilDateTime(year: 2031, month: 1, day: 1)).starts.map { $0.date.basicFormat },
                       ["20181231", "20241230", "20241231", "20291231", "20301230", "20301231"])
    }

    func testWeeklyBysetposUsesTheWholeWeek() throws {
        // DTSTART Friday 1998-09-04; the week Mon 31 Aug - Sun 6 Sep holds Tue 1, Fri 4, Sun 6: position 2 is
        // Fri 4 and -1 is Sun 6. (python-dateutil starts that first week at DTSTART and gives only Sun 6.)
        let rule = try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=TU,FR,SU;BYSETPOS=2,-1;COUNT=4")
        let start = CivilDateTime(year: 1998, month: 9, day: 4)
        XCTAssertEqual(rule.expand(start: start, from: start, to: CivilDateTime(year: 1999, month: 1, day: 1)).starts.map(\.basicFormat),
                       ["19980904T000000", "19980906T000000", "19980911T000000", "19980913T000000"])
    }

    // MARK: Issue 15: what readers disagree on

    /// BYHOUR/BYMINUTE/BYSECOND on an all-day series are ignored (libical, ical.js): one instance a day, not
    /// one per hour collapsing onto the same date.
    func testTimeOfDayPartsOnAnAllDaySeriesAreIgnored() throws {
        let e = try series(start: .date(CivilDate(year: 2026, month: 5, day: 4)), duration: CalDuration(days: 1),
                           rule: "FREQ=DAILY;COUNT=3;BYHOUR=9,17;BYMINUTE=30")
        let r = expander(from: utc(2026, 5, 1), to: utc(2026, 6, 1)).expand(e)
        XCTAssertEqual(starts(r), ["2026-05-04", "2026-05-05", "2026-05-06"])
    }

    /// FREQ=YEARLY;BYWEEKNO=20 without BYDAY: DTSTART's weekday of week 20 (libical, ical.js; python-dateutil
    /// gives the whole week).
    func testYearlyWeekNumberWithoutWeekdayTakesDTSTARTsWeekday() throws {
        let e = try series(start: at(2026, 5, 13, 10), rule: "FREQ=YEARLY;BYWEEKNO=20;COUNT=3")  // a Wednesday, ISO week 20
        let r = expander(from: utc(2026, 1, 1), to: utc(2030, 1, 1)).expand(e)
        XCTAssertEqual(starts(r), ["2026-05-13T10:00:00+02:00", "2027-05-19T10:00:00+02:00", "2028-05-17T10:00:00+02:00"])
    }

    /// COUNT and UNTIL together: the series ends at whichever comes first.
    func testCountWithUntilEndsAtWhicheverComesFirst() throws {
        var e = try series(start: at(2026, 5, 4, 9), rule: nil)
        e.recurrence.rules = [try RecurrenceRule.parse("FREQ=DAILY;COUNT=3;UNTIL=20260510T000000Z").rule]
        XCTAssertEqual(expander(from: utc(2026, 5, 1), to: utc(2026, 6, 1)).expand(e).occurrences.count, 3)
        e.recurrence.rules = [try RecurrenceRule.parse("FREQ=DAILY;COUNT=30;UNTIL=20260506T070000Z").rule]
        XCTAssertEqual(starts(expander(from: utc(2026, 5, 1), to: utc(2026, 6, 1)).expand(e)),
                       ["2026-05-04T09:00:00+02:00", "2026-05-05T09:00:00+02:00", "2026-05-06T09:00:00+02:00"])
    }
}
