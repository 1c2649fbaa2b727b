import Pipeline
import XCTest
@testable import Importers

final class CalDAVTests: XCTestCase {
    func testMultistatusReport() throws {
        let context = TestSupport.context()
        let events = try TestSupport.read(CalDAVSource(input: InputSpec(location: .path(TestSupport.fixture("xml/caldav-report.xml"), written: "report.xml"))),
                                          context: context)
        XCTAssertEqual(events.map(\.uid), ["standup-1@example.com", "review-2@example.com"])
        let berlin = TestSupport.zones.zone(named: "Europe/Berlin")!
        let standup = events[0]
        XCTAssertEqual(standup.title, "Standup & coffee")
        XCTAssertEqual(standup.start, .zoned(CivilDateTime(year: 2026, month: 1, day: 5, hour: 9, minute: 30), berlin))
        XCTAssertEqual(standup.recurrence.rules.map(\.text), ["FREQ=WEEKLY;BYDAY=MO,WE,FR"])
        XCTAssertEqual(standup.metadata, ["href": "/dav/calendars/ana/work/standup.ics", "etag": "\"6a1f-5e2b\""])
        // Lines point into the XML document: BEGIN:VEVENT of the first resource is on line 11.
        XCTAssertEqual(standup.origin, SourceLocation(file: "report.xml", line: 11))
        XCTAssertEqual(events[1].title, "Quarterly review <draft>")
        XCTAssertEqual(events[1].start, .date(CivilDate(year: 2026, month: 1, day: 15)))
        XCTAssertEqual(events[1].metadata, ["href": "/dav/calendars/ana/work/review.ics", "etag": "\"77c0\""])
        XCTAssertEqual(context.report.rejections.map(\.description), ["report.xml:43: VEVENT has no DTSTART"])
        XCTAssertEqual(context.report.counter("CalDAV resources not read (status 404)"), 1)
    }

    /// The calendar data is the iCalendar reader's: the same events as the .ics text on its own.
    func testSameEventsAsTheICalendarText() throws {
        let text = try String(contentsOfFile: TestSupport.fixture("xml/caldav-report.xml"), encoding: .utf8)
        let start = text.range(of: "<cal:calendar-data>")!.upperBound
        let end = text.range(of: "</cal:calendar-data>")!.lowerBound
        let ics = String(text[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
        let path = NSTemporaryDirectory() + "calpipe-caldav-\(getpid()).ics"
        try ics.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let fromICS = try TestSupport.read(ICSSource(input: InputSpec(location: .path(path, written: "x")))).map(\.withoutOrigin)
        var fromDAV = try TestSupport.read(CalDAVSource(input: InputSpec(location: .path(TestSupport.fixture("xml/caldav-report.xml"), written: "x"))))
            .map(\.withoutOrigin)
        fromDAV = fromDAV.prefix(1).map { var e = $0; e.metadata = [:]; return e }
        XCTAssertEqual(fromDAV, fromICS)
    }

    /// calendar-data in xCal (application/calendar+xml) gives the event the RFC 6321 example gives.
    func testXCalCalendarData() throws {
        let events = try TestSupport.read(CalDAVSource(input: InputSpec(location: .path(TestSupport.fixture("xml/caldav-xcal-report.xml"), written: "r.xml"))))
        let fromXCal = try TestSupport.read(XCalSource(input: InputSpec(location: .path(TestSupport.fixture("xml/rfc6321-example1.xml"), written: "x"))))
        XCTAssertEqual(events.map(\.origin), [SourceLocation(file: "r.xml", line: 8)])
        XCTAssertEqual(events.map(\.metadata), [["href": "/cal/ana/rfc.xml", "etag": "\"x1\""]])
        XCTAssertEqual(events.map { var e = $0.withoutOrigin; e.metadata = [:]; return e }, fromXCal.map(\.withoutOrigin))
    }

    func testNotAMultistatus() throws {
        let path = NSTemporaryDirectory() + "calpipe-notdav-\(getpid()).xml"
        try "<html><body>Login required</body></html>".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(CalDAVSource(input: InputSpec(location: .path(path, written: "dav.xml"))))) { error in
            XCTAssertEqual("\(error)", "dav.xml:1: not a CalDAV response: the root element is <html> with no namespace (expected <multistatus> in DAV:)")
        }
    }
}
