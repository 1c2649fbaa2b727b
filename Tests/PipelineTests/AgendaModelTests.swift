import XCTest
@testable import Pipeline

/// The small values of the agenda day model: initials, weekday names, icons, stable ids.
final class AgendaModelTests: XCTestCase {
    typealias T = TestSupport

    func testInitials() {
        XCTAssertEqual(Attendee(name: "Anna Maria Schmidt").initials, "AS")
        XCTAssertEqual(Attendee(name: "ben").initials, "B")
        XCTAssertEqual(Attendee(name: "  Émile   Zola ").initials, "ÉZ")
        XCTAssertEqual(Attendee(name: "\"Dr. Who\"").initials, "DW")
        XCTAssertEqual(Attendee(email: "ben.meyer@example.org").initials, "BM")
        XCTAssertEqual(Attendee(name: "123", email: "x_y@example.org").initials, "XY")
        XCTAssertNil(Attendee().initials)
    }

    func testWeekdayNamesFollowTheLocale() {
        let thursday = T.date(2026, 11, 26)
        XCTAssertEqual(WeekdayNames(locale: "en").name(of: thursday), "Thursday")
        XCTAssertEqual(WeekdayNames(locale: "en").shortName(of: thursday), "Thu")
        XCTAssertEqual(WeekdayNames(locale: "de").name(of: thursday), "Donnerstag")
        XCTAssertEqual(WeekdayNames(locale: "fr").name(of: T.date(2026, 11, 29)), "dimanche")
        XCTAssertTrue(WeekdayNames.isKnown("de"))
        XCTAssertTrue(WeekdayNames.isKnown("pt-BR"))
        XCTAssertFalse(WeekdayNames.isKnown("xx-nonsense"))
    }

    func testIconsAgreeWithTheSummaryText() {
        XCTAssertEqual(WeatherIcon.name(forCode: 71), "snow")
        XCTAssertEqual(WeatherIcon.precipitationKind(forCode: 71), "snow")
        XCTAssertEqual(WeatherIcon.name(forCode: 0), "clear-day")
        XCTAssertEqual(WeatherIcon.name(forCode: 0, daytime: false), "clear-night")
        XCTAssertEqual(WeatherIcon.name(forCode: 66), "sleet")
        XCTAssertEqual(WeatherIcon.name(forCode: 95), "thunderstorm")
        XCTAssertNil(WeatherIcon.name(forCode: 42))
        // Every WMO code Open-Meteo reports (its documentation's table) has an icon from the documented set.
        for code in [0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99] {
            XCTAssertTrue(WeatherIcon.all.contains(WeatherIcon.name(forCode: code) ?? "-"), "code \(code)")
        }
    }

    func testStableIDsDifferBetweenOccurrencesAndDays() {
        let berlin = T.zone("Europe/Berlin")
        var e = Event(uid: "weekly", start: .zoned(T.local(2026, 11, 2, 23), berlin), endSpec: .end(.zoned(T.local(2026, 11, 3, 1), berlin)))
        e.metadata = ["source": "team"]
        let first = Occurrence(single: e)
        let second = Occurrence(sharingEventOf: first, start: .zoned(T.local(2026, 11, 9, 23), berlin), end: .zoned(T.local(2026, 11, 10, 1), berlin),
                                recurrenceID: .zoned(T.local(2026, 11, 9, 23), berlin))
        func entry(_ o: Occurrence, _ day: CivilDate) -> DayEntry {
            DayEntry(occurrence: o, day: day, part: 1, parts: 2, allDay: false, start: T.local(2026, 11, 2, 23), end: T.local(2026, 11, 3, 0), startUTC: 0, endUTC: 3600)
        }
        let ids = [entry(first, T.date(2026, 11, 2)), entry(first, T.date(2026, 11, 3)), entry(second, T.date(2026, 11, 9))].map(\.stableID)
        XCTAssertEqual(Set(ids).count, 3)
        XCTAssertEqual(ids[0], entry(first, T.date(2026, 11, 2)).stableID)
        XCTAssertTrue(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        // The SQLite key columns give the same ids (calpipe query): source, uid, instance text, day.
        let e2 = entry(second, T.date(2026, 11, 9))
        XCTAssertEqual(DayEntry.stableIDValue(source: "team", uid: "weekly", instance: second.recurrenceID!.iso8601, day: T.date(2026, 11, 9)), e2.stableIDValue)
        XCTAssertEqual(DayEntry.stableIDValue(source: "team", uid: "weekly", instance: "", day: T.date(2026, 11, 2)), entry(first, T.date(2026, 11, 2)).stableIDValue)
        for t: EventTime in [.date(T.date(2026, 11, 9)), .utc(1_794_000_000), .floating(T.local(2026, 11, 9, 8, 30)), .zoned(T.local(2026, 3, 29, 2, 30), berlin)] {
            var o = second
            o.recurrenceID = t
            XCTAssertEqual(DayEntry.stableIDValue(source: "team", uid: "weekly", instance: t.iso8601, day: T.date(2026, 11, 9)),
                           entry(o, T.date(2026, 11, 9)).stableIDValue, t.iso8601)
        }
        // Another source, another id.
        var other = e
        other.metadata = ["source": "private"]
        XCTAssertNotEqual(entry(Occurrence(single: other), T.date(2026, 11, 2)).stableID, ids[0])
    }
}
