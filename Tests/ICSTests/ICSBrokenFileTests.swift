import XCTest
import Importers
import Pipeline

/// Eleven broken files. Under strict each broken component is rejected with its exact line and reason, the good
/// event in the same file still imports. By default (repair) what can be read is kept: `repaired` lists the
/// repairs ("" when the event is still rejected, as with an impossible DTSTART); input that is not iCalendar at
/// all is one error either way.
final class ICSBrokenFileTests: XCTestCase {
    private func check(_ name: String, _ expected: [String], repaired: [String]? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let strict = try readICS(try Fixtures.bytes("broken/" + name), label: name, strict: true)
        XCTAssertEqual(strict.rejections, expected, file: file, line: line)
        XCTAssertEqual(strict.events.map(\.uid), ["good@example.com"], "the rest of the file still imports", file: file, line: line)
        XCTAssertEqual(strict.repairs, [], file: file, line: line)
        let lenient = try readICS(try Fixtures.bytes("broken/" + name), label: name)
        if let repaired {
            XCTAssertEqual(lenient.repairs, repaired, file: file, line: line)
            XCTAssertEqual(lenient.rejections, [], file: file, line: line)
            XCTAssertEqual(lenient.events.count, 2, "the broken event is kept, repaired", file: file, line: line)
        } else {
            XCTAssertEqual(lenient.rejections, expected, "cannot be repaired", file: file, line: line)
            XCTAssertEqual(lenient.repairs, [], file: file, line: line)
        }
    }

    func testLineWithoutColon() throws {
        try check("01-no-colon.ics", ["01-no-colon.ics:7: malformed line (no \":\" after the property name)"],
                  repaired: ["01-no-colon.ics:7: UID \"no-colon@example.com\": malformed line (no \":\" after the property name): the line is dropped"])
    }

    func testImpossibleDate() throws {
        try check("02-bad-date.ics", ["02-bad-date.ics:7: DTSTART: \"20260231T100000\" is not a valid date or date-time"])
    }

    func testBeginEndMismatch() throws {
        try check("03-begin-end-mismatch.ics", ["03-begin-end-mismatch.ics:8: END:VTODO does not match BEGIN:VEVENT at line 4"],
                  repaired: ["03-begin-end-mismatch.ics:8: UID \"mismatch@example.com\": END:VTODO does not match BEGIN:VEVENT at line 4: ignored",
                             "03-begin-end-mismatch.ics:4: UID \"mismatch@example.com\": BEGIN:VEVENT at line 4 has no END:VEVENT: closed at line 9"])
    }

    func testEventWithoutStart() throws {
        try check("04-no-dtstart.ics", ["04-no-dtstart.ics:4: VEVENT has no DTSTART"])
    }

    func testHTMLErrorPageIsOneClearError() throws {
        XCTAssertThrowsError(try readICS(try Fixtures.bytes("broken/05-html-error-page.ics"), label: "05-html-error-page.ics")) { error in
            XCTAssertEqual("\(error)", "05-html-error-page.ics: not an iCalendar file (expected BEGIN:VCALENDAR, found \"<!DOCTYPE html>\")")
        }
    }

    func testBinaryFileIsOneClearError() throws {
        XCTAssertThrowsError(try readICS(try Fixtures.bytes("broken/06-binary.ics"), label: "06-binary.ics")) { error in
            XCTAssertEqual("\(error)", "06-binary.ics: not an iCalendar file (binary data; expected BEGIN:VCALENDAR)")
        }
    }

    func testTruncatedFile() throws {
        try check("07-truncated.ics", ["07-truncated.ics:10: BEGIN:VEVENT at line 10 has no END:VEVENT",
                                       "07-truncated.ics:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR"],
                  repaired: ["07-truncated.ics:10: UID \"truncated@example.com\": BEGIN:VEVENT at line 10 has no END:VEVENT: closed at the end of the input",
                             "07-truncated.ics:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR: closed at the end of the input"])
    }

    func testBadDuration() throws {
        try check("08-bad-duration.ics", ["08-bad-duration.ics:7: DURATION: \"1H\" is not a valid duration"],
                  repaired: ["08-bad-duration.ics:7: UID \"bad-duration@example.com\": DURATION: \"1H\" is not a valid duration: DURATION is ignored"])
    }

    func testBadRecurrenceRule() throws {
        try check("09-bad-rrule.ics", ["09-bad-rrule.ics:7: RRULE FREQ \"FORTNIGHTLY\" is not a frequency"],
                  repaired: ["09-bad-rrule.ics:7: UID \"bad-rrule@example.com\": RRULE FREQ \"FORTNIGHTLY\" is not a frequency: the event is kept without this rule"])
    }

    func testUnterminatedQuotedParameter() throws {
        try check("10-unterminated-quote.ics", ["10-unterminated-quote.ics:7: malformed parameter (unterminated quoted value)"],
                  repaired: ["10-unterminated-quote.ics:7: UID \"quote@example.com\": malformed parameter (unterminated quoted value): the line is dropped"])
    }

    func testNestingIsCapped() throws {
        try check("11-nested-too-deep.ics", ["11-nested-too-deep.ics:21: components nested deeper than 16 levels"],
                  repaired: ["11-nested-too-deep.ics:21: UID \"deep@example.com\": components nested deeper than 16 levels: the component is skipped"])
    }

    func testOverlongLineIsCapped() throws {
        let long = String(repeating: "x", count: 5000)
        var result = ReadResult()
        let reader = ICSReader(label: "long.ics", zones: testZones, fallbackZone: .utc, limits: .init(maxLineBytes: 1000), strict: true, handlers: .init(
            event: { result.events.append($0) }, reject: { result.rejections.append("\($0): \($1)") }))
        try reader.parse(ics(["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:a", "DTSTART:20260501T090000Z", "DESCRIPTION:" + long, "END:VEVENT",
                              "BEGIN:VEVENT", "UID:b", "DTSTART:20260501T090000Z", "END:VEVENT", "END:VCALENDAR"]))
        XCTAssertEqual(result.rejections, ["long.ics:5: line is longer than 1000 bytes"])
        XCTAssertEqual(result.events.map(\.uid), ["b"])
    }

    func testUnknownTZIDWarnsAndFallsBack() throws {
        let berlin = try XCTUnwrap(testZones.zone(named: "Europe/Berlin"))
        let text = ics(["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:mars", "DTSTART;TZID=Mars/Olympus_Mons:20260501T090000",
                        "END:VEVENT", "END:VCALENDAR"])
        let result = try readICS(Array(text.utf8), label: "mars.ics", fallback: berlin)
        XCTAssertEqual(result.rejections, [])
        XCTAssertEqual(result.warnings, ["mars.ics:5: unknown time zone \"Mars/Olympus_Mons\" (no VTIMEZONE defines it), read in Europe/Berlin"])
        XCTAssertEqual(result.events.first?.start.iso8601, "2026-05-01T09:00:00+02:00")
    }

    /// Random garbage and random cuts of real files never crash or hang.
    func testGarbageNeverCrashes() throws {
        var generator = SplitMix(seed: 42)
        let sample = try Fixtures.bytes("corpus/01-outlook-windows-zones.ics")
        for round in 0..<300 {
            var bytes = sample
            for _ in 0..<(1 + round % 20) {
                let i = Int(generator.next() % UInt64(bytes.count))
                bytes[i] = UInt8(truncatingIfNeeded: generator.next())
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
            _ = try? readICS(bytes, label: "fuzz.ics", chunk: 1 + round % 97)
        }
    }
}

/// A small deterministic random generator for the fuzz test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
