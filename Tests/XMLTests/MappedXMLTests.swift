import CalXML
import Pipeline
import XCTest
@testable import Importers

final class MappedXMLTests: XCTestCase {
    private let venue = "http://example.com/venue"

    private func source(_ fields: [String: String], item: String = "//event") throws -> MappedXMLSource {
        try MappedXMLSource(input: InputSpec(location: .path(TestSupport.fixture("xml/venue-feed.xml"), written: "venue-feed.xml")),
                            item: item, namespaces: [("v", venue)], mapping: EventMapping(paths: fields))
    }

    func testVenueFeed() throws {
        let context = TestSupport.context()
        let events = try TestSupport.read(try source([
            "uid": "@id", "title": "name", "start": "@begins", "end": "@ends", "duration": "@duration", "all_day": "@allday",
            "location": "v:venue/v:name", "latitude": "v:venue/v:lat", "longitude": "v:venue/v:lon",
            "categories": "tag", "attendees": "performer",
        ]), context: context)
        XCTAssertEqual(events.map(\.uid), ["ev-101", "ev-102", "ev-104"])

        var jazz = Event(uid: "ev-101", start: .utc(CivilDateTime(year: 2026, month: 12, day: 4, hour: 18, minute: 30).secondsSinceEpoch),
                         endSpec: .end(.utc(CivilDateTime(year: 2026, month: 12, day: 4, hour: 21).secondsSinceEpoch)), title: "Winter Jazz Night")
        jazz.location = "Stadthalle, Großer Saal"
        jazz.coordinate = Coordinate(latitude: 51.0504, longitude: 13.7373)
        jazz.categories = ["music", "jazz"]
        jazz.attendees = [Attendee(name: "Trio Nord", email: "trio@example.com")]
        jazz.origin = SourceLocation(file: "venue-feed.xml", line: 4)
        XCTAssertEqual(events[0], jazz)

        var market = Event(uid: "ev-102", start: .date(CivilDate(year: 2026, month: 12, day: 6)), title: "Christmas market")
        market.location = "Altmarkt"
        market.origin = SourceLocation(file: "venue-feed.xml", line: 11)
        XCTAssertEqual(events[1], market)

        var reading = Event(uid: "ev-104", start: .floating(CivilDateTime(year: 2026, month: 12, day: 10, hour: 18)),
                            endSpec: .duration(CalDuration(seconds: 7200)), title: "Nested reading")
        reading.origin = SourceLocation(file: "venue-feed.xml", line: 19)
        XCTAssertEqual(events[2], reading)

        XCTAssertEqual(context.report.rejections.map(\.description), [
            "venue-feed.xml:15: @begins: invalid date \"next friday\" (expected ISO-8601 such as 2026-11-23, 2026-11-23T09:00 or 2026-11-23T09:00:00+01:00)",
        ])
    }

    /// XPath sees the item only: nothing above it, nothing beside it.
    func testXPathIsBoundedToTheItem() throws {
        let events = try TestSupport.read(try source([
            "uid": "@id", "start": "@begins", "title": "/programme/title", "description": "ancestor::programme/@updated",
            "location": "count(//event)", "url": "name(/*)",
        ], item: "/programme/event"))
        XCTAssertEqual(events.map(\.uid), ["ev-101", "ev-102"])  // ev-103 has a bad date, ev-104 is not a child of <programme>
        for e in events {
            XCTAssertNil(e.title)
            XCTAssertNil(e.description)
            XCTAssertEqual(e.location, "1")
            XCTAssertEqual(e.url, "event")
        }
    }

    func testConfigurationErrors() throws {
        XCTAssertThrowsError(try XMLStreamPattern("count(//event)")) { error in
            XCTAssertEqual((error as? XMLError)?.message,
                           "\"count(//event)\" is not a path calpipe can match while streaming (use forms like \"//event\", \"/feed/event\" or \"events/event\")")
        }
        XCTAssertThrowsError(try XPathExpression("event[")) { error in
            XCTAssertEqual((error as? XMLError)?.message, "XPath \"event[\": invalid expression")
        }
    }

    func testSubtreeEvaluation() throws {
        let subtree = try XMLSubtree.parse("<a x=\"1\"><b>one</b><b>two</b><c/></a>", label: "inline")
        XCTAssertEqual(try subtree.evaluate(XPathExpression("b")), .nodes(["one", "two"]))
        XCTAssertEqual(try subtree.evaluate(XPathExpression("@x")), .nodes(["1"]))
        XCTAssertEqual(try subtree.evaluate(XPathExpression("count(*)")), .number(3))
        XCTAssertEqual(try subtree.evaluate(XPathExpression("boolean(c)")), .boolean(true))
        XCTAssertEqual(try subtree.evaluate(XPathExpression("concat(b[1], '-', b[2])")), .string("one-two"))
        XCTAssertThrowsError(try subtree.evaluate(XPathExpression("p:x"))) { error in
            XCTAssertEqual((error as? XMLError)?.description, "inline:1: XPath \"p:x\": undefined namespace prefix")
        }
    }
}
