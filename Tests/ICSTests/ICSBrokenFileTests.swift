import XCTest
import Importers
import Pipeline

/// Ten broken files: each broken component is rejected with its exact line and reason, the good event in the
/// same file still imports; input that is not iCalendar at all is one error.
final class ICSBrokenFileTests: XCTestCase {
    private func check(_ name: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try readICS(try Fixtures.bytes("broken/" + name), label: name)
        XCTAssertEqual(result.rejections, expected, file: file, line: line)
        XCTAssertEqual(result.events.map(\.uid), ["good@example.com"], "the rest of the file still imports", file: file, line: line)
    }

    func testLineWithoutColon() throws {
        try check("01-no-colon.ics", ["01-no-colon.ics:7: malformed line (no \":\" after the property name)"])
    }

    func testImpossibleDate() throws {
        try check("02-bad-date.ics", ["02-bad-date.ics:7: DTSTART: \"20260231T100000\" is not a valid date or date-time"])
    }

    func testBeginEndMismatch() throws {
        try check("03-begin-end-mismatch.ics", ["03-begin-end-mismatch.ics:8: END:VTODO does not match BEGIN:VEVENT at line 4"])
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
        try check("07-truncated.ics", ["07-truncated.ics:10: BEGIN:VEVENT at line 10 has no END:VEVENT"])
    }

    func testBadDuration() throws {
        try check("08-bad-duration.ics", ["08-bad-duration.ics:7: DURATION: \"1H\" is not a valid duration"])
    }

    func testBadRecurrenceRule() throws {
        try check("09-bad-rrule.ics", ["09-bad-rrule.ics:7: RRULE FREQ \"FORTNIGHTLY\" is not a frequency"])
    }

    func testUnterminatedQuotedParameter() throws {
        try check("10-unterminated-quote.ics", ["10-unterminated-quote.ics:7: malformed parameter (unterminated quoted value)"])
    }

    func testNestingIsCapped() throws {
        try check("11-nested-too-deep.ics", ["11-nested-too-deep.ics:21: components nested deeper than 16 levels"])
    }

    func testOverlongLineIsCapped() throws {
        let long = String(repeating: "x", count: 5000)
        var result = ReadResult()
        let reader = ICSReader(label: "long.ics", zones: testZones, fallbackZone: .utc, limits: .init(maxLineBytes: 1000), handlers: .init(
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
