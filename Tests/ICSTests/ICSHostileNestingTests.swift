import Foundation
import XCTest
@testable import Importers
import Pipeline

/// Issue 16, the iCalendar reader's part: the nesting limit counts every component, named or not; names that
/// are not iCalendar names (RFC 5545 3.1: letters, digits, "-") are skipped on input, so no writer ever sees
/// them. The inputs are made here, 100,000 levels deep.
final class ICSHostileNestingTests: XCTestCase {
    private static let depth = 100_000

    /// `BEGIN:<name>` `depth` times, then `END:<name>` as often, inside a VEVENT (or at calendar level), then a
    /// good event.
    private func deep(_ name: String, insideEvent: Bool) -> [UInt8] {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        if insideEvent { text += "BEGIN:VEVENT\r\nUID:deep\r\nDTSTART:20260501T090000Z\r\n" }
        text += String(repeating: "BEGIN:\(name)\r\n", count: Self.depth)
        text += String(repeating: "END:\(name)\r\n", count: Self.depth)
        if insideEvent { text += "SUMMARY:after the nesting\r\nEND:VEVENT\r\n" }
        text += "BEGIN:VEVENT\r\nUID:good\r\nDTSTART:20260502T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        return Array(text.utf8)
    }

    /// Every component name in an event, recursively.
    private func names(_ components: [RawComponent]) -> [String] {
        components.flatMap { [$0.name] + names($0.components) }
    }

    func testEmptyNamesNestedDeepAreSkippedWithTheirContent() throws {
        for insideEvent in [true, false] {
            for name in ["", " ", "V EVENT", "<x>"] {
                let r = try readICS(deep(name, insideEvent: insideEvent), label: "deep.ics", chunk: 1 << 16)
                XCTAssertEqual(r.events.map(\.uid), insideEvent ? ["deep", "good"] : ["good"], "\"\(name)\"")
                XCTAssertEqual(r.rejections, [], "\"\(name)\"")
                if insideEvent {
                    XCTAssertEqual(r.events[0].title, "after the nesting", "the event's lines after the skipped component are kept")
                    XCTAssertEqual(r.events[0].components.count, 0)
                    XCTAssertEqual(r.repairs.count, 1, "one repair for the outermost bad component, not one per level")
                    XCTAssertTrue(r.repairs[0].hasSuffix("is not a valid component name: the component is skipped"), r.repairs[0])
                } else {
                    // Outside an event: a repair without UID.
                    XCTAssertEqual(r.repairs.count, 1)
                    XCTAssertTrue(r.repairs.first?.hasSuffix("is not a valid component name: the component is skipped") == true, "\(r.repairs)")
                    XCTAssertEqual(r.warnings, [])
                }
                // Strict: the event is rejected, the good one kept.
                let strict = try readICS(deep(name, insideEvent: insideEvent), label: "deep.ics", strict: true)
                XCTAssertEqual(strict.events.map(\.uid), ["good"])
            }
        }
    }

    func testValidNamesNestedDeepStopAtTheLimit() throws {
        let r = try readICS(deep("X-LEVEL", insideEvent: true), label: "deep.ics", chunk: 1 << 16)
        XCTAssertEqual(r.events.map(\.uid), ["deep", "good"])
        // Line 20: the 15th BEGIN:X-LEVEL (lines 1-5 are the calendar's and the event's first lines).
        XCTAssertEqual(r.repairs, ["deep.ics:20: UID \"deep\": components nested deeper than 16 levels: the component is skipped"])
        // Kept down to the limit: the calendar and the event count, so 14 levels of X-LEVEL.
        XCTAssertEqual(names(r.events[0].components).count, 14)
        XCTAssertTrue(names(r.events[0].components).allSatisfy { $0 == "X-LEVEL" })
    }

    func testComponentsNeverCarryInvalidNames() throws {
        let text = ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:n", "DTSTART:20260501T090000Z", "BEGIN:VALARM", "BEGIN:", "BEGIN:A_B", "END:A_B",
                        "END:", "ACTION:DISPLAY", "END:VALARM", "BEGIN:X-OK", "END:X-OK", "END:VEVENT", "END:VCALENDAR"])
        let r = try readICS(text)
        XCTAssertEqual(r.events.count, 1)
        XCTAssertEqual(names(r.events[0].components), ["VALARM", "X-OK"])
        XCTAssertTrue(names(r.events[0].components).allSatisfy(ICSScanner.isValidName))
    }

    func testPropertyAndParameterNamesMustBeNames() throws {
        let text = ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:p", "DTSTART:20260501T090000Z", "X FOO:bar", "X-GOOD;A B=1:kept",
                        "X-GOOD-2;X-P=1:kept", "<b>:html", "END:VEVENT", "END:VCALENDAR"])
        let r = try readICS(text)
        XCTAssertEqual(r.events.first?.otherProperties.map(\.name), ["X-GOOD", "X-GOOD-2"])
        XCTAssertEqual(r.events.first?.otherProperties.first?.parameters, [], "the parameter is dropped, the line kept")
        XCTAssertEqual(r.repairs, [
            "test.ics:5: UID \"p\": malformed line (the property name is not letters, digits and \"-\"): the line is dropped",
            "test.ics:6: UID \"p\": malformed parameter \"A B=1\" (the name is not letters, digits and \"-\"): the parameter is dropped",
            "test.ics:8: UID \"p\": malformed line (the property name is not letters, digits and \"-\"): the line is dropped",
        ])
    }
}
