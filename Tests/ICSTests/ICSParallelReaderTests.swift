import Foundation
import XCTest
@testable import Importers
import Pipeline

/// The reader with worker threads (`ICSReader(workers:)`, the `ics` source's default on several cores) must make
/// exactly the handler calls the one-thread reader makes: same events, same rejections with the same lines, same
/// warnings and skips, in the same order, and the same error for input that is not iCalendar, whatever the
/// number of workers and wherever the chunks end.
final class ICSParallelReaderTests: XCTestCase {
    private func readParallel(_ bytes: [UInt8], label: String, workers: Int = 2, chunk: Int = 1 << 16,
                              stopAfter: Int? = nil, strict: Bool = false) throws -> ReadResult {
        try readICS(bytes, label: label, chunk: chunk, workers: workers, stopAfter: stopAfter, strict: strict)
    }

    private func assertSame(_ bytes: [UInt8], label: String, workers: Int = 2, chunk: Int = 1 << 16,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        for strict in [false, true] {
            try assertSame(bytes, label: label, workers: workers, chunk: chunk, strict: strict, file: file, line: line)
        }
    }

    private func assertSame(_ bytes: [UInt8], label: String, workers: Int, chunk: Int, strict: Bool,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let sequential = Result { try readICS(bytes, label: label, chunk: 4096, strict: strict) }
        let parallel = Result { try readParallel(bytes, label: label, workers: workers, chunk: chunk, strict: strict) }
        switch (sequential, parallel) {
        case (.success(let s), .success(let p)):
            XCTAssertEqual(p.events, s.events, "\(label): events", file: file, line: line)
            XCTAssertEqual(p.rejections, s.rejections, "\(label): rejections", file: file, line: line)
            XCTAssertEqual(p.warnings, s.warnings, "\(label): warnings", file: file, line: line)
            XCTAssertEqual(p.skipped, s.skipped, "\(label): skipped", file: file, line: line)
            XCTAssertEqual(p.repairs, s.repairs, "\(label): repairs", file: file, line: line)
        case (.failure(let s), .failure(let p)):
            XCTAssertEqual("\(p)", "\(s)", "\(label): error", file: file, line: line)
        default:
            XCTFail("\(label): sequential \(sequential), with workers \(parallel)", file: file, line: line)
        }
    }

    func testEveryFixtureReadsTheSameWithWorkers() throws {
        var count = 0
        for folder in ["corpus", "broken", "realworld"] {
            for name in try Fixtures.files(in: folder) {
                let bytes = try Fixtures.bytes(folder + "/" + name)
                try assertSame(bytes, label: name, workers: 1)
                try assertSame(bytes, label: name, workers: 3, chunk: 7)
                count += 1
            }
        }
        let realWorld = try Fixtures.files(in: "realworld").count
        XCTAssertGreaterThanOrEqual(realWorld, 20)
        XCTAssertEqual(count, 36 + realWorld)
    }

    /// A calendar of 3,000 events (many jobs, more than the workers may hold at once) with
    /// problems spread over it: bad dates, lines without a colon, END mismatches, a zone defined by a VTIMEZONE
    /// after the events that use it, an unknown zone, floating times under X-WR-TIMEZONE, VALARMs, VTODOs,
    /// events without UID, a Latin-1 byte, bare LF lines, folded lines, and an unclosed event at the end.
    static func mixedCalendar(events: Int) -> [UInt8] {
        var out: [UInt8] = []
        func line(_ s: String, lf: Bool = false) { out += Array(s.utf8); out += lf ? [0x0A] : [0x0D, 0x0A] }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//calpipe//pipelined test//EN")
        line("X-WR-TIMEZONE:Europe/Berlin")
        for i in 0..<events {
            if i % 200 == 50 {
                line("BEGIN:VTODO"); line("UID:todo-\(i)"); line("END:VTODO")
            }
            line("BEGIN:VEVENT")
            if i % 173 != 4 { line("UID:event-\(i)@example.com") }
            line("DTSTAMP:20260101T120000Z", lf: i % 7 == 0)
            if i % 101 == 7 {
                line("DTSTART:20260231T100000Z")
            } else if i % 97 == 5 {
                line("DTSTART;TZID=Custom/Zone:20260310T090000")
            } else if i % 157 == 6 {
                line("DTSTART;TZID=Nowhere/Unknown:20260310T090000")
            } else if i % 89 == 0 {
                line("DTSTART:20260310T090000")
            } else {
                line("DTSTART;TZID=America/New_York:202603\(10 + i % 18)T\(10 + i % 12)0000")
            }
            line("DURATION:PT\(1 + i % 5)H")
            if i % 131 == 3 { line("THIS LINE HAS NO COLON") }
            if i % 211 == 0 {
                out += Array("SUMMARY:Caf".utf8) + [0xE9] + [0x0D, 0x0A]  // Latin-1 é
            } else {
                line("SUMMARY:Meeting \(i) Grüße 会議 with a long folded title that goes on and on past seventy-")
                line(" five bytes so that it is folded")
            }
            line("ATTENDEE;CN=\"Doe, Jane\";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:jane\(i)@example.com")
            if i % 113 == 9 {
                line("BEGIN:VALARM"); line("ACTION:DISPLAY"); line("TRIGGER:-PT15M"); line("END:VALARM")
            }
            // A mismatched END rejects the event and still closes it.
            line(i % 149 == 1 ? "END:VTODO" : "END:VEVENT")
        }
        line("BEGIN:VTIMEZONE")
        line("TZID:Custom/Zone")
        line("BEGIN:STANDARD"); line("DTSTART:19700101T000000"); line("TZOFFSETFROM:+0300"); line("TZOFFSETTO:+0300"); line("END:STANDARD")
        line("END:VTIMEZONE")
        line("END:VCALENDAR")
        line("BEGIN:VCALENDAR")
        line("BEGIN:VEVENT")
        line("UID:unclosed@example.com")
        line("DTSTART:20260101T000000Z")
        return out
    }

    func testMixedCalendarWithErrorsReadsTheSameWithWorkers() throws {
        let bytes = Self.mixedCalendar(events: 3000)
        for workers in [1, 2, 4] { try assertSame(bytes, label: "mixed.ics", workers: workers) }
        try assertSame(bytes, label: "mixed.ics", chunk: 1000)
        let result = try readParallel(bytes, label: "mixed.ics")
        let strictResult = try readParallel(bytes, label: "mixed.ics", strict: true)
        // The input really has what it claims (counted from the construction above).
        let badDate = (0..<3000).filter { $0 % 101 == 7 }.count
        let bad = (0..<3000).filter { $0 % 101 == 7 || $0 % 131 == 3 || $0 % 149 == 1 }.count
        let lastLine = bytes.split(separator: 0x0A).count - 2
        // Repaired (the default): a line without a colon is dropped, END:VTODO is ignored and the event closed
        // at the next BEGIN:VEVENT, the unclosed event at the end kept; only impossible dates reject.
        XCTAssertEqual(result.rejections.count, badDate)
        XCTAssertEqual(result.events.count, 3000 - badDate + 1)
        XCTAssertEqual(result.repairs.suffix(2), ["mixed.ics:\(lastLine): UID \"unclosed@example.com\": BEGIN:VEVENT at line \(lastLine) has no END:VEVENT: closed at the end of the input",
                                                  "mixed.ics:\(lastLine - 1): BEGIN:VCALENDAR at line \(lastLine - 1) has no END:VCALENDAR: closed at the end of the input"])
        XCTAssertEqual(result.repairs.filter { $0.contains("the line is dropped") }.count, (0..<3000).filter { $0 % 131 == 3 }.count)
        // Strict: each of those rejects its event, as before repairs, and so do the events without UID or with
        // text that is not UTF-8 (every repair is a rejection under strict), and the calendar never closed.
        let strictBad = (0..<3000).filter { $0 % 101 == 7 || $0 % 131 == 3 || $0 % 149 == 1 || $0 % 173 == 4 || $0 % 211 == 0 }.count
        XCTAssertEqual(strictResult.rejections.count, strictBad + 2, "bad events plus the unclosed event and calendar")
        XCTAssertEqual(strictResult.events.count, 3000 - strictBad)
        XCTAssertEqual(strictResult.rejections.suffix(2), ["mixed.ics:\(lastLine): BEGIN:VEVENT at line \(lastLine) has no END:VEVENT",
                                                          "mixed.ics:\(lastLine - 1): BEGIN:VCALENDAR at line \(lastLine - 1) has no END:VCALENDAR"])
        XCTAssertEqual(bad, 74)
        XCTAssertEqual(result.skipped.count, 15)
        XCTAssertTrue(result.repairs.contains { $0.hasSuffix("text is not valid UTF-8: read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)") })
        XCTAssertTrue(result.warnings.contains { $0.contains("unknown time zone \"Nowhere/Unknown\"") })
        // Events that waited for the VTIMEZONE at the end are read in it (+03:00), after the events around them.
        let custom = result.events.first { $0.uid == "event-5@example.com" }
        XCTAssertEqual(custom?.start.utcSeconds(in: .utc), CivilDateTime(date: CivilDate(year: 2026, month: 3, day: 10), hour: 6, minute: 0, second: 0).secondsSinceEpoch)
    }

    /// The Latin-1 warning names the first such line in the input even when a worker finds it (in an event's
    /// own lines) after this thread found a later one (in a VALARM, which this thread parses itself).
    func testLatin1WarningNamesTheFirstLineWhoeverFindsIt() throws {
        var bytes: [UInt8] = []
        func line(_ s: String) { bytes += Array(s.utf8) + [0x0D, 0x0A] }
        line("BEGIN:VCALENDAR")
        line("BEGIN:VEVENT")
        line("UID:a")
        line("DTSTART:20260101T100000Z")
        bytes += Array("SUMMARY:Caf".utf8) + [0xE9, 0x0D, 0x0A]  // line 5
        line("END:VEVENT")
        line("BEGIN:VEVENT")
        line("UID:b")
        line("DTSTART:20260102T100000Z")
        line("BEGIN:VALARM")
        bytes += Array("DESCRIPTION:R".utf8) + [0xE9, 0x0D, 0x0A]  // line 11
        line("END:VALARM")
        line("END:VEVENT")
        line("END:VCALENDAR")
        try assertSame(bytes, label: "x.ics")
        let result = try readParallel(bytes, label: "x.ics")
        XCTAssertEqual(result.repairs, ["x.ics:5: text is not valid UTF-8: read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)"])
        XCTAssertEqual(result.events.map(\.title), ["Café", nil])
        XCTAssertEqual(result.events.last?.components.first?.properties.first?.value, "Ré")
    }

    /// A worker's events come out in order, moved (the buffer grows past its first capacity), and the ones
    /// never taken are released with the buffer.
    func testMadeEventsComeOutInOrder() {
        let made = ICSMadeEvents(capacity: 2)
        for i in 0..<5 { made.append(Event(uid: "e\(i)", start: .date(CivilDate(year: 2026, month: 1, day: 1 + i)))) }
        XCTAssertEqual(made.count, 5)
        XCTAssertEqual(made.take()?.uid, "e0")
        XCTAssertEqual(made.take()?.uid, "e1")
        XCTAssertEqual(made.take()?.start, .date(CivilDate(year: 2026, month: 1, day: 3)))
        let rest = ICSMadeEvents(capacity: 1)
        rest.append(Event(uid: String(repeating: "x", count: 100), start: .utc(0)))
        XCTAssertEqual(rest.take()?.uid.count, 100)
        XCTAssertNil(rest.take())
    }

    func testHandlerErrorStopsTheWorkers() throws {
        let bytes = Self.mixedCalendar(events: 3000)
        XCTAssertThrowsError(try readParallel(bytes, label: "mixed.ics", stopAfter: 700)) { error in
            XCTAssertTrue(error is StopReading, "\(error)")
        }
    }
}
