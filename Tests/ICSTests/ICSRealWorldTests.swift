import Foundation
import XCTest
@testable import Importers
import Pipeline

/// The builder's rule salvage, seen from the tests.
enum ICSEventBuilderProbe {
    static func salvage(_ rule: String) -> String? { ICSEventBuilder.ruleWithoutOneBadPart(rule)?.1 }
}

/// The real-world corpus (Tests/Fixtures/ics/realworld, issue 15): files as feeds publish them, each with its
/// expected events, repairs, rejections and warnings in `expected/NAME.json` (written by calpipe with
/// `CALPIPE_UPDATE_FIXTURES=1 swift test --filter ICSRealWorldTests`, checked by hand and against python
/// icalendar and recurring-ical-events with `scripts/ics-peers-compare`: see the folder's README.md).
/// Plus assertions on the cases the issue names, so that a wrong expected file cannot hide them.
final class ICSRealWorldTests: XCTestCase {
    private static let folder = "realworld"

    /// What a file reads to, as JSON text (stable: keys sorted).
    private func summary(_ r: ReadResult) throws -> String {
        let events: [[String: Any]] = r.events.map { e in
            var o: [String: Any] = ["uid": e.uid, "start": e.start.iso8601]
            switch e.endSpec {
            case .end(let t): o["end"] = t.iso8601
            case .duration(let d): o["duration"] = d.iCalendarText
            case nil: break
            }
            if let title = e.title { o["title"] = title }
            if let location = e.location { o["location"] = location }
            if let zone = e.start.zone { o["zone"] = zone.identifier }
            if !e.recurrence.rules.isEmpty { o["rrules"] = e.recurrence.rules.count }
            if !e.recurrence.exceptionRules.isEmpty { o["exrules"] = e.recurrence.exceptionRules.count }
            if !e.recurrence.dates.isEmpty { o["rdates"] = e.recurrence.dates.count }
            if !e.recurrence.exceptionDates.isEmpty { o["exdates"] = e.recurrence.exceptionDates.map(\.iso8601) }
            if let rid = e.recurrenceID { o["recurrence_id"] = rid.time.iso8601 }
            if !e.components.isEmpty { o["components"] = e.components.map(\.name) }
            return o
        }
        let object: [String: Any] = ["events": events, "rejections": r.rejections, "repairs": r.repairs, "warnings": r.warnings,
                                     "skipped": r.skipped]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    func testEveryFileReadsAsExpected() throws {
        let files = try Fixtures.files(in: Self.folder)
        XCTAssertGreaterThanOrEqual(files.count, 30)
        let update = ProcessInfo.processInfo.environment["CALPIPE_UPDATE_FIXTURES"] == "1"
        let berlin = try XCTUnwrap(testZones.zone(named: "Europe/Berlin"))
        for name in files {
            let bytes = try Fixtures.bytes(Self.folder + "/" + name)
            let result = try readICS(bytes, label: name, fallback: berlin)
            let text = try summary(result)
            let expectedURL = Fixtures.url(Self.folder + "/expected/" + name.replacingOccurrences(of: ".ics", with: ".json"))
            if update {
                try FileManager.default.createDirectory(at: expectedURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: expectedURL)
            }
            let expected = try String(contentsOf: expectedURL, encoding: .utf8)
            XCTAssertEqual(text, expected, name)
            // Chunks of any size give the same.
            XCTAssertEqual(try summary(try readICS(bytes, label: name, chunk: 5, fallback: berlin)), expected, "\(name) in chunks of 5 bytes")
            // Strict repairs nothing (issue 30: not even a derived UID) and keeps no more than the default.
            let strict = try readICS(bytes, label: name, fallback: berlin, strict: true)
            XCTAssertLessThanOrEqual(strict.events.count, result.events.count, name)
            XCTAssertEqual(strict.repairs, [], name)
        }
    }

    private func read(_ name: String, strict: Bool = false) throws -> ReadResult {
        try readICS(try Fixtures.bytes(Self.folder + "/" + name), label: name, fallback: try XCTUnwrap(testZones.zone(named: "Europe/Berlin")),
                    strict: strict)
    }

    func testEmptyRecurrenceRulesKeepTheHolidays() throws {
        let r = try read("01-empty-rrule-holidays.ics")
        XCTAssertEqual(r.events.map(\.title), ["New Year's Day", "Labour Day", "Christmas Day"])
        XCTAssertTrue(r.events.allSatisfy { $0.recurrence.rules.isEmpty })
        XCTAssertEqual(r.repairs.first, "01-empty-rrule-holidays.ics:10: UID \"newyear@holidays\": RRULE is empty: the event is kept without this rule")
        XCTAssertEqual(r.rejections, [])
        let strict = try read("01-empty-rrule-holidays.ics", strict: true)
        XCTAssertEqual(strict.events.count, 0)
        XCTAssertEqual(strict.rejections.first, "01-empty-rrule-holidays.ics:10: RRULE is empty")
    }

    func testDTENDWinsOverDURATIONAndOneBadRulePartIsDropped() throws {
        let r = try read("02-dtend-and-duration.ics")
        XCTAssertEqual(r.events[0].end.iso8601, "2026-05-01T10:00:00Z")
        // "BYDAY=MO,XX": the rule parser drops the bad value and keeps MO (RecurrenceRule.parse); the second stays.
        XCTAssertEqual(r.events[1].recurrence.rules.map(\.text), ["FREQ=WEEKLY;COUNT=3;BYDAY=MO", "FREQ=WEEKLY;COUNT=2"])
        // "COUNT=-1" next to UNTIL (recurring-ical-events' issue 128): the rule without COUNT.
        let salvaged = try XCTUnwrap(ICSEventBuilderProbe.salvage("FREQ=WEEKLY;UNTIL=20240331;COUNT=-1;INTERVAL=4;BYDAY=MO"))
        XCTAssertEqual(salvaged, "COUNT=-1")
        XCTAssertNil(ICSEventBuilderProbe.salvage("FREQ=MONTHLY;BYDAY=-9223372036854775808MO"))
        XCTAssertEqual(r.events[2].recurrence.exceptionRules.count, 0)
        XCTAssertEqual(r.events[2].recurrence.rules.count, 1)
    }

    func testEndBeforeStartAndMixedKinds() throws {
        let r = try read("03-dtend-before-dtstart.ics")
        XCTAssertEqual(r.events[0].end, r.events[0].start, "zero length at DTSTART")
        XCTAssertNil(r.events[1].endSpec, "an all-day event ending before it starts lasts its one day")
        let mix = try read("19-date-datetime-mix.ics")
        XCTAssertEqual(mix.events[0].end.iso8601, "2026-05-04", "a date-time end of an all-day event: the day it falls on is the last")
        XCTAssertEqual(mix.events[1].end.iso8601, "2026-05-03T00:00:00+02:00")
        let zoned = try read("20-floating-zoned-mix.ics")
        XCTAssertEqual(zoned.events[0].end.iso8601, "2026-05-01T11:00:00+02:00")
        XCTAssertEqual(zoned.events[1].end.iso8601, "2026-05-01T11:00:00")
    }

    func testOnlyTheBadRecurrenceValuesAreDropped() throws {
        let r = try read("04-bad-rdate-exdate.ics")
        XCTAssertEqual(r.events.count, 3)
        XCTAssertEqual(r.events[1].recurrence.exceptionDates.map(\.iso8601), ["2026-05-02T09:00:00Z", "2026-05-04T09:00:00Z"])
        XCTAssertEqual(r.events[1].recurrence.dates.count, 1)
        XCTAssertEqual(r.events[2].recurrence.dates.count, 1)
    }

    func testStructureIsResynchronisedAtTheNextCalendarLevelBegin() throws {
        XCTAssertEqual(try read("05-wrong-end-name.ics").events.map(\.uid),
                       ["after-1@example.com", "after-2@example.com", "vevnt@example.com", "after-3@example.com"])
        XCTAssertEqual(try read("06-truncated-feed.ics").events.map(\.uid), ["open@example.com", "next@example.com", "cut@example.com"])
        XCTAssertEqual(try read("15-nested-vcalendar.ics").events.map(\.uid), ["outer@example.com", "inner@example.com", "outer-2@example.com"])
        XCTAssertEqual(try read("14-concatenated-feeds.ics").events.map(\.uid), ["first@example.com", "second@example.com"])
        XCTAssertEqual(try read("22-bare-vevent.ics").events.map(\.uid), ["bare@example.com", "bare-2@example.com"])
        XCTAssertEqual(try read("24-duplicate-uid.ics").events.map(\.title), ["First copy", "Second copy"])
    }

    func testLineEndingsAndEncodings() throws {
        let cr = try read("07-bare-cr.ics")
        XCTAssertEqual(cr.events.map(\.uid), ["cr-1@example.com", "cr-2@example.com"])
        XCTAssertEqual(cr.events[0].description, "folded with abare CR")
        XCTAssertEqual(cr.repairs, ["07-bare-cr.ics:1: lines end with a bare CR: read as line ends"])
        XCTAssertEqual(cr.warnings, [])
        XCTAssertEqual(try read("08-mixed-line-endings.ics").events.count, 3)
        XCTAssertEqual(try read("09-bom.ics").events.first?.title, "Café with a BOM")
        XCTAssertEqual(try read("10-windows-1252.ics").events.first?.title, "Café – €5 “special”")
        XCTAssertEqual(try read("11-stray-byte.ics").events.first?.title, "Grüße \u{FFFD} from Zürich")
        XCTAssertEqual(try read("12-nul-bytes.ics").events.map(\.title), ["NUL inside", "after"])
        XCTAssertEqual(try read("13-tab-folded.ics").events.first?.title, "Folded witha tab")
    }

    /// Bare CR, CRLF and LF mixed, and NUL bytes, wherever the chunks end (a CR at the end of a chunk is only
    /// known to be a line end when the next chunk does not start with LF).
    func testLineEndingsReadTheSameWhateverTheChunks() throws {
        for name in ["07-bare-cr.ics", "08-mixed-line-endings.ics", "12-nul-bytes.ics"] {
            let bytes = try Fixtures.bytes(Self.folder + "/" + name)
            let whole = try summary(try readICS(bytes, label: name))
            for chunk in 1...40 {
                XCTAssertEqual(try summary(try readICS(bytes, label: name, chunk: chunk)), whole, "\(name), chunks of \(chunk)")
            }
        }
    }

    func testZoneFallbacks() throws {
        let outlook = try read("16-outlook-display-names.ics")
        XCTAssertEqual(outlook.events.map { $0.start.zone?.identifier }, ["Europe/Amsterdam", "America/New_York", "Australia/Melbourne"])
        let fixed = try read("17-fixed-offsets.ics")
        // Etc/GMT-3 is an IANA name (POSIX sign: +03:00) and comes out first: the others waited for a VTIMEZONE
        // that might still come, up to the END:VCALENDAR.
        XCTAssertEqual(fixed.events.map(\.start.iso8601), ["2026-05-01T09:00:00+03:00", "2026-05-01T09:00:00+01:00", "2026-05-01T09:00:00+11:00",
                                                           "2026-05-01T09:00:00+05:30"])
        let custom = try read("18-custom-and-unknown-tzid.ics")
        XCTAssertEqual(custom.events[0].start.zone?.identifier, "America/New_York")
        XCTAssertEqual(custom.events[1].start.zone?.identifier, "Europe/Berlin", "the pipeline's zone")
        XCTAssertTrue(custom.warnings.contains("18-custom-and-unknown-tzid.ics:13: unknown time zone \"Somewhere Special\" (no VTIMEZONE defines it), read in Europe/Berlin"))
        let ignored = try read("21-tzid-on-date-and-utc.ics")
        XCTAssertEqual(ignored.events.map(\.start.iso8601), ["2026-05-01", "2026-05-01T09:00:00Z"])
    }

    /// An override whose RECURRENCE-ID is a date while its series starts at a date-time: read as the instance
    /// of that day, so the expand stage replaces it (python icalendar and recurring-ical-events keep both).
    func testRecurrenceIDTakesTheKindOfTheMastersStart() throws {
        let r = try read("30-until-and-recurrence-id-types.ics")
        XCTAssertEqual(r.events[2].recurrenceID?.time.iso8601, "2026-05-11T09:00:00+02:00")
        XCTAssertEqual(try read("30-until-and-recurrence-id-types.ics", strict: true).rejections,
                       ["30-until-and-recurrence-id-types.ics:18: RECURRENCE-ID 2026-05-11 is not the kind of value the series' DTSTART is (2026-05-04T09:00:00+02:00)"])
    }

    func testInvalidComponentNamesAreSkipped() throws {
        let r = try read("29-invalid-component-names.ics")
        XCTAssertEqual(r.events.map(\.uid), ["names@example.com", "after@example.com"])
        XCTAssertEqual(r.events[0].components.count, 0)
        XCTAssertEqual(r.events[0].title, "Kept without the bad components")
    }
}
