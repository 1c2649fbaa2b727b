import Foundation
@testable import Pipeline
import XCTest

/// RFC 7529 RSCALE against libical's own test vectors (Tests/Fixtures/recurrence/libical-rscale.txt: every
/// case's RRULE, DTSTART and expected INSTANCES, copied from libical's test data; see the file's header).
final class RScaleTests: XCTestCase {
    struct Case {
        var rule: String
        var start: String
        var instances: [String]
        var line: Int
    }

    static func cases() throws -> [Case] {
        let text = try String(contentsOf: RecurrenceTestSupport.tests.appendingPathComponent("Fixtures/recurrence/libical-rscale.txt"), encoding: .utf8)
        var out: [Case] = []
        var current = Case(rule: "", start: "", instances: [], line: 0)
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("RRULE:") { current = Case(rule: String(line.dropFirst(6)), start: "", instances: [], line: i + 1) }
            if line.hasPrefix("DTSTART:") { current.start = String(line.dropFirst(8)) }
            if line.hasPrefix("INSTANCES:") {
                current.instances = line.dropFirst(10).split(separator: ",").map(String.init)
                out.append(current)
            }
        }
        return out
    }

    func testLibicalVectors() throws {
        let cases = try Self.cases()
        XCTAssertEqual(cases.count, 34)
        for c in cases {
            guard let start = BasicDateText.parse(c.start) else { XCTFail("line \(c.line): DTSTART \(c.start)"); continue }
            let parsed: RecurrenceRule
            do {
                parsed = try RecurrenceRule(parsing: c.rule)
            } catch {
                // libical: "*** UNIMPLEMENTED" for a calendar it does not know; calpipe refuses the rule.
                XCTAssertTrue(c.instances.first?.contains("UNIMPLEMENTED") == true, "line \(c.line): \(c.rule): \(error)")
                continue
            }
            let got = parsed.expand(start: start.localTime, from: start.localTime, to: CivilDateTime(year: 2200, month: 1, day: 1),
                                    includeStart: false)
            let text = got.starts.map { start.isDate ? $0.date.basicFormat : $0.basicFormat + (c.start.hasSuffix("Z") ? "Z" : "") }
            XCTAssertEqual(text, c.instances, "line \(c.line): \(c.rule) from \(c.start)")
        }
    }

    func testUnavailableCalendarsAndWhatIsRefused() {
        for rule in ["RSCALE=RUSSIAN;FREQ=YEARLY", "RSCALE=ETHIOAA;FREQ=YEARLY"] {
            XCTAssertThrowsError(try RecurrenceRule.parse(rule), rule)
        }
        XCTAssertThrowsError(try RecurrenceRule.parse("RSCALE=HEBREW;FREQ=HOURLY"))
        XCTAssertEqual(try RecurrenceRule.parse("FREQ=YEARLY;BYMONTH=5L,6").repairs,
                       ["RRULE BYMONTH value \"5L\" is a leap month but the rule has no RSCALE; the value is dropped"])
        // Written back as read, RSCALE first (as libical writes it).
        XCTAssertEqual(try RecurrenceRule(parsing: "FREQ=YEARLY;BYMONTH=5L;SKIP=FORWARD;RSCALE=hebrew").text,
                       "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;SKIP=FORWARD")
    }

    /// Through the series expander with its DTSTART rule (the RFC's: DTSTART is always the first instance).
    func testHebrewYearlySeriesInAZone() throws {
        let berlin = Zone.system(identifier: "Europe/Berlin")!
        var e = Event(uid: "purim", start: .zoned(CivilDateTime(year: 2024, month: 3, day: 24, hour: 18), berlin),
                      endSpec: .duration(CalDuration(seconds: 3600)))  // 14 Adar II 5784
        e.recurrence.rules = [try RecurrenceRule(parsing: "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=6;BYMONTHDAY=14")]
        let span = SeriesExpander.Span(from: CivilDateTime(year: 2024, month: 1, day: 1).secondsSinceEpoch,
                                       to: CivilDateTime(year: 2028, month: 1, day: 1).secondsSinceEpoch)
        let got = SeriesExpander(zone: berlin, span: span).expand(e).occurrences.map { $0.start.iso8601 }
        XCTAssertEqual(got, ["2024-03-24T18:00:00+01:00", "2025-03-14T18:00:00+01:00", "2026-03-03T18:00:00+01:00", "2027-03-23T18:00:00+01:00"])
    }
}
