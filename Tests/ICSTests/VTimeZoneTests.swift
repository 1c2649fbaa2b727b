import XCTest
import Pipeline

/// Zones built from VTIMEZONE blocks agree with the system's IANA database.
final class VTimeZoneTests: XCTestCase {
    private func component(_ tzid: String, _ blocks: [(String, [(String, String)])]) -> RawComponent {
        RawComponent(name: "VTIMEZONE", properties: [RawProperty(name: "TZID", value: tzid)],
                     components: blocks.map { RawComponent(name: $0.0, properties: $0.1.map { RawProperty(name: $0.0, value: $0.1) }) })
    }

    /// New York with the 1987-2006 rules (UNTIL) and the 2007 rules, as tzurl.org writes it: every offset
    /// every six hours from 1990 to 2035 equals the system database's.
    func testNewYorkHistoryMatchesTheSystemDatabase() throws {
        let vtz = component("NY-history", [
            ("DAYLIGHT", [("DTSTART", "19870405T020000"), ("RRULE", "FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=20060402T070000Z"),
                          ("TZOFFSETFROM", "-0500"), ("TZOFFSETTO", "-0400")]),
            ("STANDARD", [("DTSTART", "19671029T020000"), ("RRULE", "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU;UNTIL=20061029T060000Z"),
                          ("TZOFFSETFROM", "-0400"), ("TZOFFSETTO", "-0500")]),
            ("DAYLIGHT", [("DTSTART", "20070311T020000"), ("RRULE", "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU"),
                          ("TZOFFSETFROM", "-0500"), ("TZOFFSETTO", "-0400")]),
            ("STANDARD", [("DTSTART", "20071104T020000"), ("RRULE", "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU"),
                          ("TZOFFSETFROM", "-0400"), ("TZOFFSETTO", "-0500")]),
        ])
        let built = try VTimeZone.zone(from: vtz)
        let system = try XCTUnwrap(Zone.system(identifier: "America/New_York"))
        XCTAssertEqual(built.identifier, "NY-history")
        var t = CivilDateTime(year: 1990, month: 1, day: 1).secondsSinceEpoch
        let end = CivilDateTime(year: 2035, month: 1, day: 1).secondsSinceEpoch
        var checked = 0
        while t < end {
            XCTAssertEqual(built.offset(atUTC: t), system.offset(atUTC: t), "at \(CivilDateTime(secondsSinceEpoch: t).iso8601)Z")
            t += 6 * 3600
            checked += 1
        }
        XCTAssertEqual(checked, 65_744)
        // The exact instant of the 2026 change: 2026-03-08 02:00 EST is 07:00 UTC.
        let change = CivilDateTime(year: 2026, month: 3, day: 8, hour: 7).secondsSinceEpoch
        XCTAssertEqual(built.offset(atUTC: change - 1), -5 * 3600)
        XCTAssertEqual(built.offset(atUTC: change), -4 * 3600)
    }

    func testRDateOnsetsAndSecondsInOffsets() throws {
        let vtz = component("Odd", [
            ("STANDARD", [("DTSTART", "19000101T000000"), ("TZOFFSETFROM", "+001730"), ("TZOFFSETTO", "+001730")]),
            ("DAYLIGHT", [("DTSTART", "20260301T020000"), ("RDATE", "20260301T020000,20270301T020000"),
                          ("TZOFFSETFROM", "+001730"), ("TZOFFSETTO", "+011730")]),
            ("STANDARD", [("DTSTART", "20261001T030000"), ("RDATE", "20271001T030000"), ("TZOFFSETFROM", "+011730"), ("TZOFFSETTO", "+001730")]),
        ])
        let zone = try VTimeZone.zone(from: vtz)
        XCTAssertEqual(zone.offsets, [1050, 4650, 1050, 4650, 1050])
        XCTAssertEqual(zone.transitions.first, CivilDateTime(year: 2026, month: 3, day: 1, hour: 2).secondsSinceEpoch - 1050)
    }

    func testProblemsAreNamed() {
        let daily = component("Bad", [("STANDARD", [("DTSTART", "19700101T000000"), ("RRULE", "FREQ=DAILY"), ("TZOFFSETFROM", "+0100"), ("TZOFFSETTO", "+0100")])])
        XCTAssertThrowsError(try VTimeZone.zone(from: daily)) { XCTAssertEqual("\($0)", "STANDARD RRULE FREQ=DAILY is not a time zone rule (expected FREQ=YEARLY)") }
        let noOffset = component("Bad", [("DAYLIGHT", [("DTSTART", "19700101T000000"), ("TZOFFSETFROM", "+0100")])])
        XCTAssertThrowsError(try VTimeZone.zone(from: noOffset)) { XCTAssertEqual("\($0)", "DAYLIGHT has no TZOFFSETTO") }
        let badOffset = component("Bad", [("DAYLIGHT", [("DTSTART", "19700101T000000"), ("TZOFFSETFROM", "+1"), ("TZOFFSETTO", "+0100")])])
        XCTAssertThrowsError(try VTimeZone.zone(from: badOffset)) { XCTAssertEqual("\($0)", "DAYLIGHT TZOFFSETFROM \"+1\" is not a UTC offset") }
        XCTAssertThrowsError(try VTimeZone.zone(from: component("Empty", []))) { XCTAssertEqual("\($0)", "VTIMEZONE \"Empty\" has no STANDARD or DAYLIGHT block") }
    }

    func testWindowsNamesResolveThroughTheCLDRTable() {
        let zones = ZoneDatabase()
        XCTAssertEqual(zones.zone(named: "W. Europe Standard Time")?.identifier, "Europe/Berlin")
        XCTAssertEqual(zones.zone(named: "Pacific Standard Time")?.identifier, "America/Los_Angeles")
        XCTAssertEqual(zones.zone(named: "Tokyo Standard Time")?.identifier, "Asia/Tokyo")
        XCTAssertEqual(WindowsZones.ianaByWindowsName.count, 142)
    }
}
