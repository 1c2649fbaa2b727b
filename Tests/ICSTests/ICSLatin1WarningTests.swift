import XCTest
import Importers
import Pipeline

/// The one "not valid UTF-8" warning per input names the first line with such text, also when that line is in
/// an event that is rejected, never closed, or has a nested component with such text after it; on one thread
/// and on two. (Expected lines: the output of calpipe before the reader was split in scanner and builder,
/// `calpipe run` on the same bytes at commit 35937ad.)
final class ICSLatin1WarningTests: XCTestCase {
    private func check(_ lines: [[UInt8]], warning: String, rejections: [String], events: Int,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        var bytes: [UInt8] = []
        for l in lines { bytes += l + [0x0D, 0x0A] }
        // Strict: the rejections calpipe made before it repaired (the warning's line is what this checks).
        for result in [try readICS(bytes, label: "x.ics", strict: true), try readICS(bytes, label: "x.ics", chunk: 7, strict: true)] {
            XCTAssertEqual(result.warnings, [warning], file: file, line: line)
            XCTAssertEqual(result.rejections, rejections, file: file, line: line)
            XCTAssertEqual(result.events.count, events, file: file, line: line)
        }
    }

    private func l(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testInARejectedEvent() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:a"), l("DTSTART:20260231T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" one"), l("END:VEVENT"), l("END:VCALENDAR")],
                  warning: "x.ics:6: text is not valid UTF-8, read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)",
                  rejections: ["x.ics:5: DTSTART: \"20260231T100000Z\" is not a valid date or date-time"], events: 0)
    }

    func testEventLineBeforeANestedLine() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:b"), l("DTSTART:20260301T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" two"), l("BEGIN:VALARM"), l("ACTION:DISPLAY"), l("DESCRIPTION:Al") + [0xE9] + l("rte"),
                   l("TRIGGER:-PT5M"), l("END:VALARM"), l("END:VEVENT"), l("END:VCALENDAR")],
                  warning: "x.ics:6: text is not valid UTF-8, read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)", rejections: [], events: 1)
    }

    func testNestedLineBeforeAnEventLine() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:c"), l("DTSTART:20260301T100000Z"),
                   l("BEGIN:VALARM"), l("DESCRIPTION:Al") + [0xE9] + l("rte"), l("END:VALARM"), l("SUMMARY:Caf") + [0xE9] + l(" three"),
                   l("END:VEVENT"), l("BEGIN:VEVENT"), l("UID:d"), l("LOCATION:Z") + [0xFC] + l("rich"), l("BEGIN:VEVENT"), l("UID:e"),
                   l("DTSTART:20260301T100000Z"), l("END:VEVENT"), l("END:VCALENDAR")],
                  warning: "x.ics:7: text is not valid UTF-8, read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)",
                  rejections: ["x.ics:11: BEGIN:VEVENT at line 11 has no END:VEVENT"], events: 2)
    }

    func testInAnEventThatIsNeverClosed() throws {
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:d"), l("LOCATION:Z") + [0xFC] + l("rich"),
                   l("BEGIN:VEVENT"), l("UID:e"), l("DTSTART:20260301T100000Z"), l("SUMMARY:Caf") + [0xE9], l("END:VEVENT"), l("END:VCALENDAR")],
                  warning: "x.ics:5: text is not valid UTF-8, read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)",
                  rejections: ["x.ics:3: BEGIN:VEVENT at line 3 has no END:VEVENT"], events: 1)
        try check([l("BEGIN:VCALENDAR"), l("VERSION:2.0"), l("BEGIN:VEVENT"), l("UID:f"), l("DTSTART:20260301T100000Z"),
                   l("SUMMARY:Caf") + [0xE9] + l(" four")],
                  warning: "x.ics:6: text is not valid UTF-8, read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)",
                  rejections: ["x.ics:3: BEGIN:VEVENT at line 3 has no END:VEVENT"], events: 0)
    }
}
