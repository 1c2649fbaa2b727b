import XCTest
import Importers
import Pipeline

/// The one "not valid UTF-8" repair per input names the first line with such text, also when that line is in
/// an event that is rejected, never closed, or has a nested component with such text after it; on one thread
/// and on two. (Expected lines: the output of calpipe before the reader was split in scanner and builder,
/// `calpipe run` on the same bytes at commit 35937ad, where this was a warning.) Under strict the text is
/// rejected instead: the event it is in, else its line (issue 30, item 2).
final class ICSLatin1WarningTests: XCTestCase {
    private func check(_ lines: [[UInt8]], repair: String, rejections: [String], events: Int,
                       strictRejections: [String], strictEvents: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        var bytes: [UInt8] = []
        for l in lines { bytes += l + [0x0D, 0x0A] }
        for workers in [0, 2] {
            for result in [try readICS(bytes, label: "x.ics", workers: workers), try readICS(bytes, label: "x.ics", chunk: 7, workers: workers)] {
                XCTAssertEqual(result.repairs.filter { $0.contains("UTF-8") }, [repair], file: file, line: line)
                XCTAssertEqual(result.warnings, [], file: file, line: line)
                XCTAssertEqual(result.rejections, rejections, file: file, line: line)
                XCTAssertEqual(result.events.count, events, file: file, line: line)
            }
            for result in [try readICS(bytes, label: "x.ics", workers: workers, strict: true),
                           try readICS(bytes, label: "x.ics", chunk: 7, workers: workers, strict: true)] {
                XCTAssertEqual(result.repairs, [], file: file, line: line)
                XCTAssertEqual(result.rejections, strictRejections, file: file, line: line)
                XCTAssertEqual(result.events.count, strictEvents, file: file, line: line)
            }
        }
    }

    static let repaired = ": text is not valid UTF-8: read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)"

    private func l(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testInARejectedEvent() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:a"), l("DTSTART:20260231T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" one"), l("END:VEVENT"), l("END:VCALENDAR")],
                  repair: "x.ics:6" + Self.repaired,
                  rejections: ["x.ics:5: DTSTART: \"20260231T100000Z\" is not a valid date or date-time"], events: 0,
                  strictRejections: ["x.ics:6: text is not valid UTF-8"], strictEvents: 0)
    }

    func testEventLineBeforeANestedLine() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:b"), l("DTSTART:20260301T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" two"), l("BEGIN:VALARM"), l("ACTION:DISPLAY"), l("DESCRIPTION:Al") + [0xE9] + l("rte"),
                   l("TRIGGER:-PT5M"), l("END:VALARM"), l("END:VEVENT"), l("END:VCALENDAR")],
                  repair: "x.ics:6" + Self.repaired, rejections: [], events: 1,
                  strictRejections: ["x.ics:6: text is not valid UTF-8"], strictEvents: 0)
    }

    func testNestedLineBeforeAnEventLine() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:c"), l("DTSTART:20260301T100000Z"),
                   l("BEGIN:VALARM"), l("DESCRIPTION:Al") + [0xE9] + l("rte"), l("END:VALARM"), l("SUMMARY:Caf") + [0xE9] + l(" three"),
                   l("END:VEVENT"), l("BEGIN:VEVENT"), l("UID:d"), l("LOCATION:Z") + [0xFC] + l("rich"), l("BEGIN:VEVENT"), l("UID:e"),
                   l("DTSTART:20260301T100000Z"), l("END:VEVENT"), l("END:VCALENDAR")],
                  repair: "x.ics:7" + Self.repaired, rejections: ["x.ics:11: VEVENT has no DTSTART"], events: 2,
                  strictRejections: ["x.ics:7: text is not valid UTF-8", "x.ics:13: text is not valid UTF-8"], strictEvents: 1)
    }

    func testInAnEventThatIsNeverClosed() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:d"), l("LOCATION:Z") + [0xFC] + l("rich"),
                   l("BEGIN:VEVENT"), l("UID:e"), l("DTSTART:20260301T100000Z"), l("SUMMARY:Caf") + [0xE9], l("END:VEVENT"), l("END:VCALENDAR")],
                  repair: "x.ics:5" + Self.repaired, rejections: ["x.ics:3: VEVENT has no DTSTART"], events: 1,
                  strictRejections: ["x.ics:5: text is not valid UTF-8", "x.ics:9: text is not valid UTF-8"], strictEvents: 0)
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:f"), l("DTSTART:20260301T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" four")],
                  repair: "x.ics:6" + Self.repaired, rejections: [], events: 1,
                  strictRejections: ["x.ics:6: text is not valid UTF-8", "x.ics:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR"], strictEvents: 0)
    }
}
