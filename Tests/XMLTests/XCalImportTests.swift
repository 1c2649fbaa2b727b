import CalXML
import Pipeline
import XCTest
@testable import Importers

final class XCalImportTests: XCTestCase {
    private func xcal(_ name: String) -> XCalSource {
        XCalSource(input: InputSpec(location: .path(TestSupport.fixture("xml/" + name), written: "xml/" + name)))
    }

    func testRFC6321Example1() throws {
        let events = try TestSupport.read(xcal("rfc6321-example1.xml"))
        var expected = Event(uid: "4088E990AD89CB3DBB484909", start: .date(CivilDate(year: 2008, month: 10, day: 6)), title: "Planning meeting")
        expected.otherProperties = [RawProperty(name: "DTSTAMP", value: "20080205T191224Z")]
        expected.origin = SourceLocation(file: "xml/rfc6321-example1.xml", line: 16)
        XCTAssertEqual(events, [expected])
    }

    func testRFC6321Example2() throws {
        let events = try TestSupport.read(xcal("rfc6321-example2.xml"))
        XCTAssertEqual(events.count, 2)
        let eastern = TestSupport.eastern()
        var series = Event(uid: "00959BC664CA650E933C892C@example.com",
                           start: .zoned(CivilDateTime(year: 2006, month: 1, day: 2, hour: 12), eastern),
                           endSpec: .duration(CalDuration(seconds: 3600)), title: "Event #2")
        series.description = "We are having a meeting all this week at 12 pm for one hour, with an additional meeting on the first day 2 hours long.\nPlease bring your own lunch for the 12 pm meetings."
        series.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=5")]
        series.recurrence.dates = [.periodWithDuration(start: .zoned(CivilDateTime(year: 2006, month: 1, day: 2, hour: 15), eastern),
                                                       duration: CalDuration(seconds: 7200))]
        series.otherProperties = [RawProperty(name: "DTSTAMP", value: "20060206T001121Z")]
        series.origin = SourceLocation(file: "xml/rfc6321-example2.xml", line: 69)
        XCTAssertEqual(events[0], series)

        var override = Event(uid: "00959BC664CA650E933C892C@example.com",
                             start: .zoned(CivilDateTime(year: 2006, month: 1, day: 4, hour: 14), eastern),
                             endSpec: .duration(CalDuration(seconds: 3600)), title: "Event #2 bis")
        override.recurrenceID = RecurrenceID(time: .zoned(CivilDateTime(year: 2006, month: 1, day: 4, hour: 12), eastern))
        override.otherProperties = [RawProperty(name: "DTSTAMP", value: "20060206T001121Z")]
        override.origin = SourceLocation(file: "xml/rfc6321-example2.xml", line: 109)
        XCTAssertEqual(events[1], override)
    }

    func testEveryValueTypeAndParameter() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <C:icalendar xmlns:C="urn:ietf:params:xml:ns:icalendar-2.0"><C:vcalendar><C:components>
        <C:vevent><C:properties>
          <C:uid><C:text>all-types</C:text></C:uid>
          <C:dtstart><C:date-time>2026-03-29T01:30:00Z</C:date-time></C:dtstart>
          <C:dtend><C:parameters><C:tzid><C:text>Europe/Berlin</C:text></C:tzid></C:parameters><C:date-time>2026-03-29T04:00:00</C:date-time></C:dtend>
          <C:summary><C:parameters><C:language><C:text>de</C:text></C:language></C:parameters><C:text>Zeit &amp; Raum, &lt;laut&gt;</C:text></C:summary>
          <C:location><C:text>Room 1</C:text></C:location>
          <C:geo><C:latitude>52.52</C:latitude><C:longitude>13.405</C:longitude></C:geo>
          <C:categories><C:text>work</C:text><C:text>a,b</C:text></C:categories>
          <C:color><C:text>turquoise</C:text></C:color>
          <C:url><C:uri>https://example.com/e?a=1&amp;b=2</C:uri></C:url>
          <C:status><C:text>CONFIRMED</C:text></C:status>
          <C:organizer><C:parameters><C:cn><C:text>Boss</C:text></C:cn><C:sent-by><C:cal-address>mailto:pa@example.com</C:cal-address></C:sent-by></C:parameters><C:cal-address>mailto:boss@example.com</C:cal-address></C:organizer>
          <C:attendee><C:parameters><C:cn><C:text>Ann</C:text></C:cn><C:role><C:text>CHAIR</C:text></C:role><C:partstat><C:text>ACCEPTED</C:text></C:partstat><C:rsvp><C:boolean>true</C:boolean></C:rsvp><C:delegated-from><C:cal-address>mailto:x@example.com</C:cal-address><C:cal-address>mailto:y@example.com</C:cal-address></C:delegated-from></C:parameters><C:cal-address>mailto:ann@example.com</C:cal-address></C:attendee>
          <C:rrule><C:recur><C:freq>WEEKLY</C:freq><C:until><C:date-time>2026-06-30T00:00:00Z</C:date-time></C:until><C:interval>2</C:interval><C:byday>MO</C:byday><C:byday>WE</C:byday><C:wkst>SU</C:wkst></C:recur></C:rrule>
          <C:exdate><C:date-time>2026-04-06T01:30:00Z</C:date-time><C:date-time>2026-04-08T01:30:00Z</C:date-time></C:exdate>
          <C:rdate><C:period><C:start>2026-05-01T10:00:00Z</C:start><C:end>2026-05-01T11:00:00Z</C:end></C:period></C:rdate>
          <C:rdate><C:date>2026-05-02</C:date></C:rdate>
          <C:sequence><C:integer>3</C:integer></C:sequence>
          <C:x-custom><C:parameters><C:x-param><C:text>v</C:text></C:x-param></C:parameters><C:unknown>raw;value</C:unknown></C:x-custom>
          <C:x-flag><C:boolean>false</C:boolean></C:x-flag>
          <C:x-offset><C:utc-offset>+05:45</C:utc-offset></C:x-offset>
          <C:x-when><C:time>09:30:00</C:time></C:x-when>
          <C:request-status><C:code>2.0</C:code><C:description>Success</C:description></C:request-status>
        </C:properties><C:components>
          <C:valarm><C:properties>
            <C:action><C:text>DISPLAY</C:text></C:action>
            <C:trigger><C:parameters><C:related><C:text>END</C:text></C:related></C:parameters><C:duration>-PT15M</C:duration></C:trigger>
            <C:trigger><C:date-time>2026-03-28T20:00:00Z</C:date-time></C:trigger>
          </C:properties></C:valarm>
        </C:components></C:vevent>
        </C:components></C:vcalendar></C:icalendar>
        """
        let path = NSTemporaryDirectory() + "calpipe-all-types-\(getpid()).xml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let events = try TestSupport.read(XCalSource(input: InputSpec(location: .path(path, written: "all.xml"))))
        XCTAssertEqual(events.count, 1)
        let e = try XCTUnwrap(events.first)
        let berlin = TestSupport.zones.zone(named: "Europe/Berlin")!
        XCTAssertEqual(e.start, .utc(CivilDateTime(year: 2026, month: 3, day: 29, hour: 1, minute: 30).secondsSinceEpoch))
        XCTAssertEqual(e.endSpec, .end(.zoned(CivilDateTime(year: 2026, month: 3, day: 29, hour: 4), berlin)))
        XCTAssertEqual(e.title, "Zeit & Raum, <laut>")
        XCTAssertEqual(e.fieldParameters["SUMMARY"], [Parameter("LANGUAGE", "de")])
        XCTAssertEqual(e.location, "Room 1")
        XCTAssertEqual(e.coordinate, Coordinate(latitude: 52.52, longitude: 13.405))
        XCTAssertEqual(e.categories, ["work", "a,b"])
        XCTAssertEqual(e.color, "turquoise")
        XCTAssertEqual(e.url, "https://example.com/e?a=1&b=2")
        XCTAssertEqual(e.status, "CONFIRMED")
        XCTAssertEqual(e.organizer, Attendee(name: "Boss", email: "boss@example.com", otherParameters: [Parameter("SENT-BY", "mailto:pa@example.com")]))
        XCTAssertEqual(e.attendees, [Attendee(name: "Ann", email: "ann@example.com", role: "CHAIR", status: "ACCEPTED", otherParameters: [
            Parameter("RSVP", "TRUE"), Parameter(name: "DELEGATED-FROM", values: ["mailto:x@example.com", "mailto:y@example.com"]),
        ])])
        XCTAssertEqual(e.recurrence.rules.map(\.text), ["FREQ=WEEKLY;UNTIL=20260630T000000Z;INTERVAL=2;BYDAY=MO,WE;WKST=SU"])
        XCTAssertEqual(e.recurrence.exceptionDates, [
            .utc(CivilDateTime(year: 2026, month: 4, day: 6, hour: 1, minute: 30).secondsSinceEpoch),
            .utc(CivilDateTime(year: 2026, month: 4, day: 8, hour: 1, minute: 30).secondsSinceEpoch),
        ])
        XCTAssertEqual(e.recurrence.dates, [
            .period(start: .utc(CivilDateTime(year: 2026, month: 5, day: 1, hour: 10).secondsSinceEpoch),
                    end: .utc(CivilDateTime(year: 2026, month: 5, day: 1, hour: 11).secondsSinceEpoch)),
            .time(.date(CivilDate(year: 2026, month: 5, day: 2))),
        ])
        XCTAssertEqual(e.otherProperties, [
            RawProperty(name: "SEQUENCE", value: "3"),
            RawProperty(name: "X-CUSTOM", parameters: [Parameter("X-PARAM", "v")], value: "raw;value"),
            RawProperty(name: "X-FLAG", parameters: [Parameter("VALUE", "BOOLEAN")], value: "FALSE"),
            RawProperty(name: "X-OFFSET", parameters: [Parameter("VALUE", "UTC-OFFSET")], value: "+0545"),
            RawProperty(name: "X-WHEN", parameters: [Parameter("VALUE", "TIME")], value: "093000"),
            RawProperty(name: "REQUEST-STATUS", value: "2.0;Success"),
        ])
        XCTAssertEqual(e.components, [RawComponent(name: "VALARM", properties: [
            RawProperty(name: "ACTION", value: "DISPLAY"),
            RawProperty(name: "TRIGGER", parameters: [Parameter("RELATED", "END")], value: "-PT15M"),
            RawProperty(name: "TRIGGER", parameters: [Parameter("VALUE", "DATE-TIME")], value: "20260328T200000Z"),
        ])])
    }

    func testBadEventsAreRejectedAndReadingGoesOn() throws {
        let text = """
        <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><components>
        <vevent><properties><uid><text>no-start</text></uid></properties></vevent>
        <vevent><properties><uid><text>bad-date</text></uid>
        <dtstart><date>2026-02-30</date></dtstart></properties></vevent>
        <vevent><properties><uid><text>bad-zone</text></uid>
        <dtstart><parameters><tzid><text>Mars/Olympus</text></tzid></parameters><date-time>2026-01-01T10:00:00</date-time></dtstart></properties></vevent>
        <vtodo><properties><uid><text>todo</text></uid></properties></vtodo>
        <vevent><properties><uid><text>good</text></uid><dtstart><date>2026-01-05</date></dtstart></properties></vevent>
        </components></vcalendar></icalendar>
        """
        let path = NSTemporaryDirectory() + "calpipe-bad-\(getpid()).xml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let context = TestSupport.context()
        let events = try TestSupport.read(XCalSource(input: InputSpec(location: .path(path, written: "bad.xml"))), context: context)
        // As in the ics source: an unknown TZID may still be defined by a VTIMEZONE later in the calendar, so that
        // event waits for the calendar's end, then is read in the pipeline's zone with a warning.
        XCTAssertEqual(events.map(\.uid), ["good", "bad-zone"])
        XCTAssertEqual(events[1].start, .zoned(CivilDateTime(year: 2026, month: 1, day: 1, hour: 10), .utc))
        XCTAssertEqual(context.report.warnings, ["bad.xml:5: unknown time zone \"Mars/Olympus\" (no VTIMEZONE defines it), read in UTC"])
        // A value without its form is handed to the iCalendar reader as written, which judges it as in an .ics
        // file (same message; the line is the component's).
        XCTAssertEqual(context.report.rejections.map(\.description), [
            "bad.xml:2: VEVENT has no DTSTART",
            "bad.xml:3: DTSTART: \"2026-02-30\" is not a valid date",
        ])
        XCTAssertEqual(context.report.counter("skipped VTODO"), 1)
    }

    /// A hostile feed fails as a whole, naming the file and line; nothing of /etc/passwd is read.
    func testExternalEntityInAFeed() throws {
        let path = NSTemporaryDirectory() + "calpipe-xxe-\(getpid()).xml"
        try """
        <?xml version="1.0"?>
        <!DOCTYPE icalendar [<!ENTITY x SYSTEM "file:///etc/passwd">]>
        <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><components>
        <vevent><properties><uid><text>a</text></uid><summary><text>&x;</text></summary></properties></vevent>
        </components></vcalendar></icalendar>
        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(XCalSource(input: InputSpec(location: .path(path, written: "feed.xml"))))) { error in
            XCTAssertEqual("\(error)", "feed.xml:4: the entity reference &x; is not allowed: calpipe never expands entities")
        }
    }

    func testNotXCal() throws {
        let path = NSTemporaryDirectory() + "calpipe-notxcal-\(getpid()).xml"
        try "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel/></rss>\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(XCalSource(input: InputSpec(location: .path(path, written: "feed.xml"))))) { error in
            XCTAssertEqual("\(error)", "feed.xml:2: not an xCal document: the root element is <rss> with no namespace (expected <icalendar> in urn:ietf:params:xml:ns:icalendar-2.0); other XML feeds need the \"xml\" source with an item path and fields")
        }
    }
}
