import XCTest
@testable import Pipeline

final class ZoneTests: XCTestCase {
    func testCivilDateRoundTripsAcrossCenturies() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let d = CivilDate(daysSinceEpoch: days)
            let (y, m, dd) = d.components
            XCTAssertEqual(CivilDate(year: y, month: m, day: dd).daysSinceEpoch, days)
        }
        XCTAssertEqual(CivilDate(year: 1970, month: 1, day: 1).daysSinceEpoch, 0)
        XCTAssertEqual(CivilDate(year: 2000, month: 3, day: 1).daysSinceEpoch, 11_017)
        XCTAssertEqual(CivilDate(year: 2026, month: 11, day: 22).isoWeekday, 7)  // a Sunday
        XCTAssertNil(CivilDate.validated(year: 2026, month: 2, day: 29))
        XCTAssertNotNil(CivilDate.validated(year: 2028, month: 2, day: 29))
    }

    func testBerlinOffsetsAroundBothChanges() {
        let berlin = TestSupport.zone("Europe/Berlin")
        // 2026-03-29 01:00 UTC: clocks jump from 02:00 CET to 03:00 CEST.
        let spring = TestSupport.local(2026, 3, 29, 1).secondsSinceEpoch
        XCTAssertEqual(berlin.offset(atUTC: spring - 1), 3600)
        XCTAssertEqual(berlin.offset(atUTC: spring), 7200)
        // 2026-10-25 01:00 UTC: back from 03:00 CEST to 02:00 CET.
        let autumn = TestSupport.local(2026, 10, 25, 1).secondsSinceEpoch
        XCTAssertEqual(berlin.offset(atUTC: autumn - 1), 7200)
        XCTAssertEqual(berlin.offset(atUTC: autumn), 3600)
    }

    func testLocalTimeInSpringGapMovesForwardByTheGap() {
        let berlin = TestSupport.zone("Europe/Berlin")
        // 02:30 does not exist on 2026-03-29: RFC 5545 3.3.5 reads it as 03:30 CEST = 01:30 UTC.
        let utc = berlin.utc(fromLocal: TestSupport.local(2026, 3, 29, 2, 30))
        XCTAssertEqual(utc, TestSupport.local(2026, 3, 29, 1, 30).secondsSinceEpoch)
        XCTAssertEqual(berlin.local(fromUTC: utc), TestSupport.local(2026, 3, 29, 3, 30))
        let newYork = TestSupport.zone("America/New_York")
        // 2026-03-08 02:30 EST does not exist: 03:30 EDT = 07:30 UTC.
        XCTAssertEqual(newYork.utc(fromLocal: TestSupport.local(2026, 3, 8, 2, 30)), TestSupport.local(2026, 3, 8, 7, 30).secondsSinceEpoch)
    }

    func testISOTextOfAZonedTimeNamesTheInstant() {
        let berlin = TestSupport.zone("Europe/Berlin")
        XCTAssertEqual(EventTime.zoned(TestSupport.local(2026, 3, 29, 2, 30), berlin).iso8601, "2026-03-29T03:30:00+02:00")
        XCTAssertEqual(EventTime.zoned(TestSupport.local(2026, 10, 25, 2, 30), berlin).iso8601, "2026-10-25T02:30:00+02:00")
        XCTAssertEqual(EventTime.zoned(TestSupport.local(2026, 11, 23, 9), berlin).iso8601, "2026-11-23T09:00:00+01:00")
    }

    func testAmbiguousLocalTimeTakesTheFirst() {
        let berlin = TestSupport.zone("Europe/Berlin")
        // 02:30 happens twice on 2026-10-25; the first is CEST (00:30 UTC).
        XCTAssertEqual(berlin.utc(fromLocal: TestSupport.local(2026, 10, 25, 2, 30)), TestSupport.local(2026, 10, 25, 0, 30).secondsSinceEpoch)
        let newYork = TestSupport.zone("America/New_York")
        // 01:30 happens twice on 2026-11-01; the first is EDT (05:30 UTC).
        XCTAssertEqual(newYork.utc(fromLocal: TestSupport.local(2026, 11, 1, 1, 30)), TestSupport.local(2026, 11, 1, 5, 30).secondsSinceEpoch)
    }

    func testZoneNamesWithPrefixesAndUnknownNames() {
        let zones = ZoneDatabase()
        XCTAssertEqual(zones.zone(named: "/mozilla.org/20050126_1/Europe/Berlin")?.identifier, "Europe/Berlin")
        XCTAssertEqual(zones.zone(named: "/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires")?.identifier, "America/Argentina/Buenos_Aires")
        XCTAssertNil(zones.zone(named: "Mars/Olympus_Mons"))
        XCTAssertNil(zones.zone(named: "W. Europe Standard Time").flatMap { $0.identifier == "W. Europe Standard Time" ? $0 : nil })
    }

    func testOffsetText() {
        XCTAssertEqual(Zone.offsetText(3600), "+01:00")
        XCTAssertEqual(Zone.offsetText(-12600), "-03:30")
        XCTAssertEqual(Zone.offsetText(20700), "+05:45")
        XCTAssertEqual(Zone.offsetText(0), "+00:00")
    }

    func testISODateForms() {
        XCTAssertEqual(ISODate.parse("2026-11-23"), .date(TestSupport.date(2026, 11, 23)))
        XCTAssertEqual(ISODate.parse("2026-11-23T09:00"), .local(TestSupport.local(2026, 11, 23, 9)))
        XCTAssertEqual(ISODate.parse("2026-11-23T09:00:00+01:00"), .instant(TestSupport.local(2026, 11, 23, 8).secondsSinceEpoch, offsetSeconds: 3600))
        XCTAssertEqual(ISODate.parse("2026-11-23T08:00:00.250Z"), .instant(TestSupport.local(2026, 11, 23, 8).secondsSinceEpoch, offsetSeconds: 0))
        XCTAssertEqual(ISODate.parse("20261123T080000Z"), .instant(TestSupport.local(2026, 11, 23, 8).secondsSinceEpoch, offsetSeconds: 0))
        XCTAssertNil(ISODate.parse("2026-02-30"))
        XCTAssertNil(ISODate.parse("2026-11-23T25:00"))
        XCTAssertNil(ISODate.parse("tomorrow"))
    }

    func testDurations() {
        XCTAssertEqual(CalDuration(iCalendar: "P1W"), CalDuration(days: 7))
        XCTAssertEqual(CalDuration(iCalendar: "P15DT5H0M20S"), CalDuration(days: 15, seconds: 5 * 3600 + 20))
        XCTAssertEqual(CalDuration(iCalendar: "-PT15M"), CalDuration(seconds: -900))
        XCTAssertEqual(CalDuration(iCalendar: "PT0S"), CalDuration.zero)
        XCTAssertNil(CalDuration(iCalendar: "P"))
        XCTAssertNil(CalDuration(iCalendar: "PT1D"))
        XCTAssertEqual(CalDuration(days: 14).iCalendarText, "P2W")
        XCTAssertEqual(CalDuration(days: 1, seconds: 5400).iCalendarText, "P1DT1H30M")
    }

    func testExactHoursIntoTheRepeatedHourStayExact() {
        let newYork = TestSupport.zone("America/New_York")
        // 01:30 EDT + 1 h = 01:30 EST, the second 01:30 of 2026-11-01: kept as the instant 06:30 UTC.
        let start = EventTime.zoned(TestSupport.local(2026, 11, 1, 1, 30), newYork)
        let end = start.adding(CalDuration(seconds: 3600))
        XCTAssertEqual(end, .utc(TestSupport.local(2026, 11, 1, 6, 30).secondsSinceEpoch))
        XCTAssertEqual(end.utcSeconds(in: newYork) - start.utcSeconds(in: newYork), 3600)
        XCTAssertEqual(start.adding(CalDuration(seconds: 7200)), .zoned(TestSupport.local(2026, 11, 1, 2, 30), newYork))
    }

    func testNominalDayAcrossDSTKeepsWallClock() {
        let berlin = TestSupport.zone("Europe/Berlin")
        let start = EventTime.zoned(TestSupport.local(2026, 10, 24, 9), berlin)
        XCTAssertEqual(start.adding(CalDuration(days: 1)), .zoned(TestSupport.local(2026, 10, 25, 9), berlin))
        // 24 exact hours across the change land at 08:00 local.
        XCTAssertEqual(start.adding(CalDuration(seconds: 86_400)), .zoned(TestSupport.local(2026, 10, 25, 8), berlin))
    }
}
