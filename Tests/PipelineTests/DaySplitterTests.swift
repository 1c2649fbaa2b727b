import XCTest
@testable import Pipeline

final class DaySplitterTests: XCTestCase {
    typealias T = TestSupport

    private func split(_ start: EventTime, _ end: EventTime, zone: String = "Europe/Berlin", window: Window? = nil) -> [DayEntry] {
        var event = Event(uid: "e1", start: start, endSpec: .end(end), title: "E")
        event.title = "E"
        var out: [DayEntry] = []
        DaySplitter(zone: T.zone(zone), window: window).split(Occurrence(single: event), into: &out)
        return out
    }

    /// (day, part, parts, allDay, local start "HH:MM", local end "HH:MM" (24:00 for the next midnight), minutes)
    private func summary(_ entries: [DayEntry]) -> [String] {
        entries.map { e in
            let end = e.end.date > e.day ? "24:00" : e.end.shortTimeText
            return "\(e.day.iso8601) \(e.part)/\(e.parts) \(e.allDay ? "all-day" : "timed") \(e.start.shortTimeText)-\(end) \(e.durationSeconds / 60)m"
        }
    }

    func testMeetingAcrossMidnightGivesTwoEntries() {
        let berlin = T.zone("Europe/Berlin")
        let entries = split(.zoned(T.local(2026, 11, 12, 22), berlin), .zoned(T.local(2026, 11, 13, 2), berlin))
        XCTAssertEqual(summary(entries), [
            "2026-11-12 1/2 timed 22:00-24:00 120m",
            "2026-11-13 2/2 timed 00:00-02:00 120m",
        ])
    }

    func testAllDayEndIsExclusive() {
        let entries = split(.date(T.date(2026, 11, 3)), .date(T.date(2026, 11, 6)))
        XCTAssertEqual(summary(entries), [
            "2026-11-03 1/3 all-day 00:00-24:00 1440m",
            "2026-11-04 2/3 all-day 00:00-24:00 1440m",
            "2026-11-05 3/3 all-day 00:00-24:00 1440m",
        ])
    }

    func testEndingExactlyAtMidnightDoesNotTouchTheNextDay() {
        let berlin = T.zone("Europe/Berlin")
        let entries = split(.zoned(T.local(2026, 11, 12, 20), berlin), .zoned(T.local(2026, 11, 13, 0), berlin))
        XCTAssertEqual(summary(entries), ["2026-11-12 1/1 timed 20:00-24:00 240m"])
    }

    func testZeroLengthEventGivesOneEntry() {
        let berlin = T.zone("Europe/Berlin")
        let entries = split(.zoned(T.local(2026, 11, 13, 0), berlin), .zoned(T.local(2026, 11, 13, 0), berlin))
        XCTAssertEqual(summary(entries), ["2026-11-13 1/1 timed 00:00-00:00 0m"])
    }

    func testBerlinSpringForwardDayIs23Hours() {
        let berlin = T.zone("Europe/Berlin")
        let entries = split(.zoned(T.local(2026, 3, 28, 12), berlin), .zoned(T.local(2026, 3, 30, 12), berlin))
        XCTAssertEqual(summary(entries), [
            "2026-03-28 1/3 timed 12:00-24:00 720m",
            "2026-03-29 2/3 all-day 00:00-24:00 1380m",
            "2026-03-30 3/3 timed 00:00-12:00 720m",
        ])
    }

    func testBerlinFallBackDayIs25Hours() {
        let berlin = T.zone("Europe/Berlin")
        let entries = split(.zoned(T.local(2026, 10, 23, 9), berlin), .zoned(T.local(2026, 10, 26, 17), berlin))
        XCTAssertEqual(summary(entries), [
            "2026-10-23 1/4 timed 09:00-24:00 900m",
            "2026-10-24 2/4 all-day 00:00-24:00 1440m",
            "2026-10-25 3/4 all-day 00:00-24:00 1500m",
            "2026-10-26 4/4 timed 00:00-17:00 1020m",
        ])
    }

    func testNewYorkChangesSplitInNewYorkTime() {
        let ny = T.zone("America/New_York")
        // Spring forward 2026-03-08, fall back 2026-11-01.
        let spring = split(.zoned(T.local(2026, 3, 7, 22), ny), .zoned(T.local(2026, 3, 9, 1), ny), zone: "America/New_York")
        XCTAssertEqual(summary(spring), [
            "2026-03-07 1/3 timed 22:00-24:00 120m",
            "2026-03-08 2/3 all-day 00:00-24:00 1380m",
            "2026-03-09 3/3 timed 00:00-01:00 60m",
        ])
        let fall = split(.zoned(T.local(2026, 11, 1, 0, 30), ny), .zoned(T.local(2026, 11, 1, 3), ny), zone: "America/New_York")
        XCTAssertEqual(summary(fall), ["2026-11-01 1/1 timed 00:30-03:00 210m"])
    }

    func testUTCEventLandsOnTheLocalDay() {
        // 23:30 UTC on the 12th is 00:30 on the 13th in Berlin.
        let entries = split(.utc(T.local(2026, 11, 12, 23, 30).secondsSinceEpoch), .utc(T.local(2026, 11, 13, 0, 30).secondsSinceEpoch))
        XCTAssertEqual(summary(entries), ["2026-11-13 1/1 timed 00:30-01:30 60m"])
    }

    func testEventLongerThanTheWindowIsClippedButKeepsItsParts() {
        let window = Window(from: T.date(2026, 11, 10), to: T.date(2026, 11, 12))
        let entries = split(.date(T.date(2026, 11, 1)), .date(T.date(2026, 12, 1)), window: window)
        XCTAssertEqual(summary(entries), [
            "2026-11-10 10/30 all-day 00:00-24:00 1440m",
            "2026-11-11 11/30 all-day 00:00-24:00 1440m",
        ])
        let berlin = T.zone("Europe/Berlin")
        let timed = split(.zoned(T.local(2026, 11, 9, 18), berlin), .zoned(T.local(2026, 11, 14, 8), berlin), window: window)
        XCTAssertEqual(summary(timed), [
            "2026-11-10 2/6 all-day 00:00-24:00 1440m",
            "2026-11-11 3/6 all-day 00:00-24:00 1440m",
        ])
    }

    func testOutsideTheWindowGivesNothing() {
        let window = Window(from: T.date(2026, 11, 10), to: T.date(2026, 11, 12))
        XCTAssertTrue(split(.date(T.date(2026, 11, 12)), .date(T.date(2026, 11, 13)), window: window).isEmpty)
        XCTAssertTrue(split(.date(T.date(2026, 11, 9)), .date(T.date(2026, 11, 10)), window: window).isEmpty)
    }

    func testAllDayWithoutEndLastsOneDayAndFloatingUsesThePipelineZone() {
        var out: [DayEntry] = []
        let splitter = DaySplitter(zone: T.zone("America/New_York"), window: nil)
        splitter.split(Occurrence(single: Event(uid: "a", start: .date(T.date(2026, 11, 8)))), into: &out)
        splitter.split(Occurrence(single: Event(uid: "f", start: .floating(T.local(2026, 11, 8, 19)), endSpec: .duration(CalDuration(seconds: 900)))), into: &out)
        XCTAssertEqual(summary(out), ["2026-11-08 1/1 all-day 00:00-24:00 1440m", "2026-11-08 1/1 timed 19:00-19:15 15m"])
    }

    func testAgendaOrderPutsAllDayFirstThenStartThenTitle() {
        let berlin = T.zone("Europe/Berlin")
        var out: [DayEntry] = []
        let splitter = DaySplitter(zone: berlin, window: nil)
        for (uid, title, start) in [("1", "Zeta", EventTime.zoned(T.local(2026, 11, 8, 9), berlin)),
                                    ("2", "Alpha", EventTime.zoned(T.local(2026, 11, 8, 9), berlin)),
                                    ("3", "Early", EventTime.zoned(T.local(2026, 11, 8, 7), berlin)),
                                    ("4", "Holiday", EventTime.date(T.date(2026, 11, 8)))] {
            splitter.split(Occurrence(single: Event(uid: uid, start: start, title: title)), into: &out)
        }
        XCTAssertEqual(out.sorted(by: DayEntry.agendaOrder).map { $0.event.title! }, ["Holiday", "Early", "Alpha", "Zeta"])
    }
}
