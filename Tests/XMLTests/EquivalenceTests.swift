import Pipeline
import XCTest
@testable import Importers

/// The same calendar in iCalendar, xCal and jCal gives the same events, compared whole (every field),
/// apart from where each one came from.
final class EquivalenceTests: XCTestCase {
    private func events(_ source: EventSource) throws -> [Event] {
        try TestSupport.read(source).map(\.withoutOrigin)
    }

    private func ics(_ relative: String) -> ICSSource {
        ICSSource(input: InputSpec(location: .path(TestSupport.fixture(relative), written: relative)))
    }

    private func xcal(_ relative: String) -> XCalSource {
        XCalSource(input: InputSpec(location: .path(TestSupport.fixture(relative), written: relative)))
    }

    private func jcal(_ relative: String) -> JCalSource {
        JCalSource(input: InputSpec(location: .path(TestSupport.fixture(relative), written: relative)))
    }

    func testRFC6321ExamplesMatchTheirICalendarForm() throws {
        for n in 1...2 {
            let fromICS = try events(ics("xml/rfc6321-example\(n).ics"))
            let fromXCal = try events(xcal("xml/rfc6321-example\(n).xml"))
            XCTAssertEqual(fromXCal.count, n, "example \(n)")
            XCTAssertEqual(fromXCal, fromICS, "example \(n)")
        }
    }

    func testRFC7265ExamplesMatchTheirICalendarForm() throws {
        for n in 1...2 {
            let fromICS = try events(ics("jcal/rfc7265-example\(n).ics"))
            let fromJCal = try events(jcal("jcal/rfc7265-example\(n).json"))
            XCTAssertEqual(fromJCal.count, n, "example \(n)")
            XCTAssertEqual(fromJCal, fromICS, "example \(n)")
        }
    }

    /// The RFC 6321 example 2 defines US/Eastern in a VTIMEZONE; the events use it like the iCalendar reader does.
    func testZonesFromTheSameData() throws {
        let fromXCal = try events(xcal("xml/rfc6321-example2.xml"))
        XCTAssertEqual(fromXCal[0].start.utcSeconds(in: .utc), CivilDateTime(year: 2006, month: 1, day: 2, hour: 17).secondsSinceEpoch)
    }
}
