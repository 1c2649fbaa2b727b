import XCTest
@testable import Importers
import Pipeline

/// Real-world-shaped fixtures: the fields beyond what the differential test compares.
final class ICSReaderTests: XCTestCase {
    private func events(_ name: String) throws -> ReadResult {
        let result = try readICS(try Fixtures.bytes("corpus/" + name), label: name)
        XCTAssertEqual(result.rejections, [])
        return result
    }

    func testOutlookWindowsZonesAttendeesAlarmAndUnknownProperties() throws {
        let r = try events("01-outlook-windows-zones.ics")
        XCTAssertEqual(r.events.count, 2)
        let standup = r.events[0]
        XCTAssertEqual(standup.uid, "040000008200E00074C5B7101A82E00800000000D0A4E3C1A77BDC010000000000000000100000004B9BDBA6C0F1D54C99F7E7B2F6BD3D0C")
        // "W. Europe Standard Time" resolves through the CLDR table to the IANA zone.
        XCTAssertEqual(standup.start.zone?.identifier, "Europe/Berlin")
        XCTAssertEqual(standup.recurrence.exceptionDates.map(\.iso8601), ["2026-02-02T09:30:00+01:00", "2026-02-09T09:30:00+01:00"])
        XCTAssertEqual(standup.description, "Wöchentliche Abstimmung des Teams.\n\nBitte Agenda vorher lesen.\n")
        XCTAssertEqual(standup.fieldParameters["SUMMARY"], [Parameter("LANGUAGE", "de-de")])
        XCTAssertEqual(standup.otherProperties.map(\.name), ["CLASS", "CREATED", "DTSTAMP", "LAST-MODIFIED", "PRIORITY", "SEQUENCE", "TRANSP",
                                                             "X-MICROSOFT-CDO-BUSYSTATUS", "X-MICROSOFT-CDO-IMPORTANCE", "X-MICROSOFT-DISALLOW-COUNTER",
                                                             "X-MS-OLK-AUTOFILLLOCATION", "X-MS-OLK-CONFTYPE"])
        XCTAssertEqual(standup.components, [RawComponent(name: "VALARM", properties: [
            RawProperty(name: "TRIGGER", value: "-PT15M"), RawProperty(name: "ACTION", value: "DISPLAY"), RawProperty(name: "DESCRIPTION", value: "Reminder"),
        ])])
        XCTAssertEqual(standup.origin, SourceLocation(file: "01-outlook-windows-zones.ics", line: 37))
        XCTAssertTrue(standup.sourceText?.hasPrefix("BEGIN:VEVENT\r\nCLASS:PUBLIC\r\n") == true)
        XCTAssertTrue(standup.sourceText?.hasSuffix("END:VALARM\r\nEND:VEVENT\r\n") == true)

        let planning = r.events[1]
        XCTAssertEqual(planning.start.zone?.identifier, "America/Los_Angeles")
        XCTAssertEqual(planning.organizer, Attendee(name: "Jordan Lee", email: "jordan.lee@example.com"))
        XCTAssertEqual(planning.attendees, [
            Attendee(name: "Anna Schmidt", email: "anna.schmidt@example.de", role: "REQ-PARTICIPANT", status: "ACCEPTED", otherParameters: [Parameter("RSVP", "TRUE")]),
            Attendee(name: "Ben Okafor", email: "ben@example.com", role: "OPT-PARTICIPANT", otherParameters: [Parameter("RSVP", "TRUE")]),
        ])
    }

    func testCustomVTimeZonesNoDatabaseKnows() throws {
        let r = try events("02-outlook-custom-vtimezone.ics")
        let zone = try XCTUnwrap(r.events[0].start.zone)
        XCTAssertEqual(zone.identifier, "Customized Time Zone")
        // First Sunday of April 2026 is April 5th: 03:00 at +09:30 is 17:30 UTC on the 4th.
        let april5 = CivilDateTime(year: 2026, month: 4, day: 4, hour: 17, minute: 30).secondsSinceEpoch
        XCTAssertEqual(zone.offset(atUTC: april5 - 1), 9 * 3600 + 1800)
        XCTAssertEqual(zone.offset(atUTC: april5), 8 * 3600 + 1800)
        XCTAssertEqual(r.events[2].start.iso8601, "2026-07-20T09:00:00+03:45")
    }

    func testGoogleXWRTimeZoneAppliesToFloatingTimesOnly() throws {
        let r = try events("03-google-x-wr-timezone.ics")
        XCTAssertEqual(r.events.map(\.start.iso8601), ["2026-03-07T15:00:00Z", "2026-03-10T18:30:00-04:00", "2026-03-14T09:00:00-04:00", "2026-03-17"])
        XCTAssertEqual(r.events[2].start.zone?.identifier, "America/New_York")
        XCTAssertEqual(r.events[0].location, "Prospect Park, Brooklyn, NY 11215, USA")
        XCTAssertEqual(r.events[0].status, "CONFIRMED")
        XCTAssertEqual(r.events[1].location, "")
    }

    func testAppleStructuredLocationParametersAndAlarm() throws {
        let r = try events("04-apple-icloud.ics")
        let museum = r.events[0]
        XCTAssertEqual(museum.location, "Musée d'Orsay\nEsplanade Valéry Giscard d'Estaing, 75007 Paris, France")
        let structured = try XCTUnwrap(museum.otherProperties.first { $0.name == "X-APPLE-STRUCTURED-LOCATION" })
        XCTAssertEqual(structured.parameters, [Parameter("VALUE", "URI"), Parameter("X-ADDRESS", "Esplanade Valéry Giscard d'Estaing, 75007 Paris, France"),
                                               Parameter("X-APPLE-RADIUS", "141.17"), Parameter("X-TITLE", "Musée d'Orsay")])
        XCTAssertEqual(structured.value, "geo:48.859961,2.326561")
        XCTAssertEqual(museum.otherProperties.first { $0.name == "X-APPLE-TRAVEL-START" }?.value, "")
        XCTAssertEqual(museum.components.first?.properties.map(\.name), ["X-WR-ALARMUID", "UID", "TRIGGER", "ATTACH", "ACTION", "X-APPLE-DEFAULT-ALARM"])
    }

    func testAllDayMultiDay() throws {
        let r = try events("05-allday-multiday.ics")
        XCTAssertEqual(r.events.map(\.isAllDay), [true, true, true, true])
        XCTAssertEqual(r.events[0].endSpec, .end(.date(CivilDate(year: 2026, month: 6, day: 6))))
        XCTAssertNil(r.events[1].endSpec)
        XCTAssertEqual(r.events[1].end, .date(CivilDate(year: 2026, month: 5, day: 26)))
        XCTAssertEqual(r.events[2].endSpec, .duration(CalDuration(days: 14)))
        XCTAssertEqual(r.events[0].location, "Kongresshaus, Zürich")
    }

    func testFoldedUTF8SplitInsideCharacters() throws {
        let r = try events("06-folded-utf8.ics")
        XCTAssertEqual(r.events[0].title, "Kaffee & Kuchen im Café Müller ☕🎂 mit Jürgen, Zoë und Åsa — Grüße!")
        XCTAssertEqual(r.events[0].location, "Café Müller, Königstraße 12, 70173 Stuttgart 🇩🇪")
        XCTAssertEqual(r.events[0].description, String(repeating: "Wir treffen uns im Café Müller. Bitte Bescheid geben, wer Käsekuchen möchte 🧀🍰. ", count: 3))
        XCTAssertEqual(r.warnings, [])
    }

    func testEscapedText() throws {
        let r = try events("07-escaped-text.ics")
        XCTAssertEqual(r.events[0].title, "Review: budget, schedule; staffing")
        XCTAssertEqual(r.events[0].description, "Line one\nLine two\nLine three\nPath: C:\\Users\\shared\\plan.xlsx; size 10,5 MB")
        XCTAssertEqual(r.events[0].location, "Room A, Floor 3; Building \"North\"")
        XCTAssertEqual(r.events[1].title, "Trailing backslash \\")
        XCTAssertEqual(r.events[1].categories, ["Work", "Planning, Budget", "Q2"])
    }

    func testRFC6868ParameterEscapes() throws {
        let r = try events("08-rfc6868-params.ics")
        let e = r.events[0]
        XCTAssertEqual(e.organizer?.name, "George Herman \"Babe\" Ruth")
        XCTAssertEqual(e.attendees[0].name, "Caret ^ Person")
        XCTAssertEqual(e.attendees[1].name, "Smith, Jane; PhD")
        XCTAssertEqual(e.attendees[1].otherParameters, [Parameter(name: "DELEGATED-FROM", values: ["mailto:a@example.com", "mailto:b@example.com"])])
        XCTAssertEqual(e.fieldParameters["LOCATION"], [Parameter("ALTREP", "http://example.com/rooms?id=4;floor=2")])
        XCTAssertEqual(e.otherProperties.first { $0.name == "X-ADDRESS" }?.parameters, [Parameter("X-LABEL", "Line one\nLine two")])
    }

    func testBareLineFeeds() throws {
        let r = try events("09-bare-lf.ics")
        XCTAssertEqual(r.events.map(\.title), ["Lines end in LF only, and this summary is folded with a LF and a space onto the next line", "All day, LF"])
        XCTAssertEqual(r.events[0].start.zone?.identifier, "Europe/Vienna")
    }

    func testMozillaPrefixResolvesToTheIANAZone() throws {
        let r = try events("12-mozilla-prefix.ics")
        XCTAssertEqual(r.events[0].start.zone?.identifier, "Europe/Berlin")
    }

    func testTwoCalendarsAndSkippedComponents() throws {
        XCTAssertEqual(try events("13-two-calendars.ics").events.map(\.uid), ["cal-a-1@example.com", "cal-b-1@example.com"])
        let r = try events("14-todos-journals-freebusy.ics")
        XCTAssertEqual(r.events.map(\.uid), ["mixed-event-1@example.com", "mixed-event-2@example.com"])
        XCTAssertEqual(r.skipped, ["VTODO", "VJOURNAL", "VFREEBUSY"])
    }

    func testRecurrenceDataIsKeptWhole() throws {
        let r = try events("15-recurrence-data.ics")
        let berlin = try XCTUnwrap(testZones.zone(named: "Europe/Berlin"))
        let series = r.events[0]
        XCTAssertEqual(series.recurrence.rules.map(\.text), ["FREQ=WEEKLY;UNTIL=20260731T215959Z;INTERVAL=2;BYDAY=MO,WE"])
        XCTAssertEqual(series.recurrence.dates, [
            .period(start: .utc(CivilDateTime(year: 2026, month: 6, day: 6, hour: 8).secondsSinceEpoch), end: .utc(CivilDateTime(year: 2026, month: 6, day: 6, hour: 9).secondsSinceEpoch)),
            .periodWithDuration(start: .utc(CivilDateTime(year: 2026, month: 6, day: 7, hour: 8).secondsSinceEpoch), duration: CalDuration(seconds: 7200)),
            .time(.zoned(CivilDateTime(year: 2026, month: 6, day: 10, hour: 10), berlin)),
            .time(.date(CivilDate(year: 2026, month: 6, day: 20))),
        ])
        XCTAssertEqual(series.recurrence.exceptionDates, [.zoned(CivilDateTime(year: 2026, month: 5, day: 18, hour: 10), berlin),
                                                          .zoned(CivilDateTime(year: 2026, month: 5, day: 20, hour: 10), berlin)])
        let moved = r.events[1]
        XCTAssertEqual(moved.recurrenceID, RecurrenceID(time: .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 10), berlin), thisAndFuture: true))
        XCTAssertEqual(r.events[2].recurrence.exceptionRules.map(\.text), ["FREQ=MONTHLY;BYDAY=-1FR;BYMONTH=8"])
        XCTAssertEqual(r.events[3].recurrence.rules.map(\.text), ["FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;WKST=SU"])
    }

    func testGeoCategoriesAndTwelveAttendees() throws {
        let e = try events("24-geo-categories-attendees.ics").events[0]
        XCTAssertEqual(e.coordinate, Coordinate(latitude: 52.516275, longitude: 13.377704))
        XCTAssertEqual(e.attendees.count, 12)
        XCTAssertEqual(e.attendees[4], Attendee(name: "P5", email: "room5@example.com", role: "NON-PARTICIPANT", otherParameters: [Parameter("CUTYPE", "ROOM")]))
        XCTAssertEqual(try events("18-nextcloud.ics").events[0].categories, ["Music", "Hobby", "Weekly"])
        XCTAssertEqual(try events("18-nextcloud.ics").events[0].color, "mediumseagreen")
    }

    /// The API other importers use: text embedded in another document, with the line it starts on.
    func testEmbeddedTextReportsLinesOfTheOuterDocument() throws {
        var rejections: [String] = []
        var uids: [String] = []
        let reader = ICSReader(label: "dav.xml", zones: testZones, fallbackZone: .utc, firstLine: 41, handlers: .init(
            event: { uids.append($0.uid) }, reject: { rejections.append("\($0): \($1)") }))
        try reader.parse("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:nope\nEND:VEVENT\nBEGIN:VEVENT\nUID:y\nDTSTART:20260501\nEND:VEVENT\nEND:VCALENDAR\n")
        XCTAssertEqual(rejections, ["dav.xml:44: DTSTART: \"nope\" is not a valid date or date-time"])
        XCTAssertEqual(uids, ["y"])
    }

    func testVTimeZoneDefinedAfterItsEvents() throws {
        let text = ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:late", "DTSTART;TZID=Late Zone:20260115T120000", "END:VEVENT",
                        "BEGIN:VTIMEZONE", "TZID:Late Zone", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:-0330",
                        "TZOFFSETTO:-0330", "END:STANDARD", "END:VTIMEZONE", "END:VCALENDAR"])
        let r = try readICS(text)
        XCTAssertEqual(r.warnings, [])
        XCTAssertEqual(r.events.first?.start.iso8601, "2026-01-15T12:00:00-03:30")
    }

    /// Events wait for a VTIMEZONE defined later, but not without bound: after 1,000 the rest fall back at once.
    func testWaitingForAVTimeZoneIsBounded() throws {
        var lines = ["BEGIN:VCALENDAR"]
        for i in 0..<1500 { lines += ["BEGIN:VEVENT", "UID:u\(i)", "DTSTART;TZID=Nowhere/Zone:20260115T120000", "END:VEVENT"] }
        lines += ["END:VCALENDAR"]
        var order: [String] = []
        var warnings = 0
        let reader = ICSReader(label: "many.ics", zones: testZones, fallbackZone: .utc, handlers: .init(
            event: { order.append($0.uid) }, reject: { _, _ in }, warn: { _ in warnings += 1 }))
        try reader.feed(Array(ics(lines).utf8))
        XCTAssertEqual(order.count, 1500, "all events out before the end of the input")
        try reader.finish()
        XCTAssertEqual(order, (0..<1500).map { "u\($0)" })
        XCTAssertEqual(warnings, 1500)
    }

    func testEventWithoutUIDGetsAStableOne() throws {
        let text = ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "DTSTART:20260501T090000Z", "SUMMARY:No UID", "END:VEVENT", "END:VCALENDAR"])
        let a = try readICS(text), b = try readICS(text)
        XCTAssertEqual(a.events.first?.uid, b.events.first?.uid)
        XCTAssertEqual(a.events.first?.uid.hasPrefix("calpipe-"), true)
        let uid = try XCTUnwrap(a.events.first?.uid)
        XCTAssertEqual(a.repairs, ["test.ics:2: UID \"\(uid)\": VEVENT has no UID: using the derived UID \(uid)"])
        // Strict rejects it like every repair (issue 30; calpipe derived the UID before it had strict).
        let strict = try readICS(text, strict: true)
        XCTAssertEqual(strict.events.map(\.uid), [])
        XCTAssertEqual(strict.rejections, ["test.ics:2: VEVENT has no UID"])
    }

    /// The reader's allocation-free date parser agrees with the core's `BasicDateText` on good and bad values.
    func testDateValuesParseLikeTheCore() {
        let values = ["20260329", "20260329T020000", "20260329T010000Z", "20260329t010000z", "20241231T235960Z", "20240229",
                      "20230229", "20261301", "20260100", "2026032", "202603291", "20260329T240000", "20260329T016000",
                      "20260329X010000", "20260329T010000ZZ", "2026-03-29", "", "abcdefgh", "20260329T01000Z"]
        for v in values {
            XCTAssertEqual(ICSDateText.parse(v), BasicDateText.parse(v), v)
        }
        XCTAssertEqual(ICSDateText.parse("20241231T235960Z"), .utc(CivilDateTime(year: 2024, month: 12, day: 31, hour: 23, minute: 59, second: 59).secondsSinceEpoch))
        XCTAssertNil(ICSDateText.parse("20230229"))
    }

    func testLatin1TextIsReadWithARepair() throws {
        var bytes = Array(ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:l1", "DTSTART:20260501T090000Z"]).utf8)
        bytes += Array("SUMMARY:Caf".utf8) + [0xE9] + Array(" M".utf8) + [0xFC] + Array("ller\r\n".utf8)
        bytes += Array(ics(["END:VEVENT", "END:VCALENDAR"]).utf8)
        let r = try readICS(bytes)
        XCTAssertEqual(r.events.first?.title, "Café Müller")
        XCTAssertEqual(r.repairs, ["test.ics:5: text is not valid UTF-8: read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)"])
        XCTAssertEqual(r.warnings, [])
        let strict = try readICS(bytes, strict: true)
        XCTAssertEqual(strict.events.count, 0)
        XCTAssertEqual(strict.rejections, ["test.ics:5: text is not valid UTF-8"])
    }
}
