import Exporters
import Foundation
import Pipeline
import XCTest
@testable import Importers

/// Events JSON as calpipe writes it: instants beside local times (issue 15 item 3), and read back by the json
/// source whatever zone the events had, with RDATE periods and repairs of what cannot be read (item 4).
final class EventJSONRoundTripTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "calpipe-eventjson-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func spec(_ path: String) -> InputSpec { InputSpec(location: .path(path, written: path)) }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Writes `events` with the json sink (events shape) and returns the records as parsed JSON objects.
    private func exportJSON(_ events: [Event], shape: JSONExporter.Shape = .events, occurrences: [Occurrence] = [],
                            context: RunContext = TestSupport.context()) throws -> (path: String, records: [JSONObject]) {
        let path = directory + "/out-\(UUID().uuidString).json"
        let sink = JSONExporter(path: path, shape: shape, pretty: false)
        try sink.open(context: context)
        try sink.write(Batch(events: events, occurrences: occurrences), context: context)
        _ = try sink.commit(context: context)
        let parsed = try JSONParser.parse(String(contentsOfFile: path, encoding: .utf8))
        return (path, (parsed.arrayValue ?? []).compactMap(\.objectValue))
    }

    private static let customZoneFeed = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VTIMEZONE\r
        TZID:custom_America/New_York\r
        BEGIN:STANDARD\r
        DTSTART:19701101T020000\r
        RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r
        TZOFFSETFROM:-0400\r
        TZOFFSETTO:-0500\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:19700308T020000\r
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r
        TZOFFSETFROM:-0500\r
        TZOFFSETTO:-0400\r
        END:DAYLIGHT\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:custom-zone@example.com\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;TZID=custom_America/New_York:20261031T090000\r
        DTEND;TZID=custom_America/New_York:20261101T090000\r
        SUMMARY:Across the DST change\r
        RDATE;TZID=custom_America/New_York;VALUE=PERIOD:20261105T100000/20261105T113000\r
        RDATE;TZID=custom_America/New_York;VALUE=PERIOD:20261106T100000/PT2H\r
        ORGANIZER:MAILTO:Boss@Example.com\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// Zoned, UTC, all-day and floating events: starts_at/ends_at in RFC 3339, floating ones marked.
    func testEventsCarryInstants() throws {
        let berlin = TestSupport.zones.zone(named: "Europe/Berlin")!
        let zoned = Event(uid: "z", start: .zoned(CivilDateTime(year: 2026, month: 3, day: 28, hour: 22), berlin),
                          endSpec: .duration(CalDuration(seconds: 6 * 3600)))
        let utc = Event(uid: "u", start: .utc(CivilDateTime(year: 2026, month: 5, day: 1, hour: 7).secondsSinceEpoch))
        let allDay = Event(uid: "d", start: .date(CivilDate(year: 2026, month: 5, day: 1)))
        let floating = Event(uid: "f", start: .floating(CivilDateTime(year: 2026, month: 5, day: 1, hour: 9)),
                             endSpec: .end(.floating(CivilDateTime(year: 2026, month: 5, day: 1, hour: 10))))
        let records = try exportJSON([zoned, utc, allDay, floating]).records
        func fields(_ o: JSONObject) -> [String?] {
            [o["starts_at"]?.stringValue, o["ends_at"]?.stringValue, o["floating"].map { "\($0)" }]
        }
        XCTAssertEqual(records.map(fields), [
            // The end falls after the change to summer time: its own offset.
            ["2026-03-28T22:00:00+01:00", "2026-03-29T05:00:00+02:00", nil],
            ["2026-05-01T07:00:00Z", "2026-05-01T07:00:00Z", nil],
            ["2026-05-01", "2026-05-02", nil],
            ["2026-05-01T09:00:00", "2026-05-01T10:00:00", "\(JSONValue.bool(true))"],
        ])
        // Occurrences of a floating event: no offset either (they are not instants until a zone is chosen).
        let occurrences = try exportJSON([], shape: .occurrences, occurrences: [Occurrence(single: floating), Occurrence(single: zoned)],
                                         context: TestSupport.context(zone: berlin)).records
        XCTAssertEqual(occurrences.map(fields), [
            ["2026-05-01T09:00:00", "2026-05-01T10:00:00", "\(JSONValue.bool(true))"],
            ["2026-03-28T22:00:00+01:00", "2026-03-29T05:00:00+02:00", nil],
        ])
    }

    /// A zone defined only by the file's VTIMEZONE: events JSON is read back by the json source (the zone as the
    /// offsets written beside the times, with a warning), with the same instants; RDATE periods keep their end
    /// or duration; the organizer's MAILTO: is read in any case.
    func testCalpipeEventsJSONReadsBackWhateverTheZone() throws {
        let ics = try write(Self.customZoneFeed, "custom.ics")
        let original = try TestSupport.read(ICSSource(input: spec(ics)))
        XCTAssertEqual(original.count, 1)
        XCTAssertEqual(original.first?.organizer?.email, "Boss@Example.com")
        let (path, records) = try exportJSON(original)
        XCTAssertEqual(records.first?["timezone"]?.stringValue, "custom_America/New_York")
        XCTAssertEqual(records.first?["starts_at"]?.stringValue, "2026-10-31T09:00:00-04:00")
        XCTAssertEqual(records.first?["ends_at"]?.stringValue, "2026-11-01T09:00:00-05:00")
        XCTAssertEqual(records.first?["rdate"], .array([.string("2026-11-05T10:00:00/2026-11-05T11:30:00"), .string("2026-11-06T10:00:00/PT2H")]))

        let context = TestSupport.context()
        let back = try TestSupport.read(JSONImporter(input: spec(path)), context: context)
        XCTAssertEqual(context.report.rejections, [])
        XCTAssertEqual(context.report.warnings.count, 1, "\(context.report.warnings)")
        XCTAssertTrue(context.report.warnings.first?.contains("timezone: unknown time zone \"custom_America/New_York\"; read as the offset -04:00") == true,
                      "\(context.report.warnings)")
        guard let event = back.first, let first = original.first else { return XCTFail("nothing read back") }
        let zone = Zone.utc
        XCTAssertEqual(event.start.utcSeconds(in: zone), first.start.utcSeconds(in: zone))
        XCTAssertEqual(event.end.utcSeconds(in: zone), first.end.utcSeconds(in: zone))
        XCTAssertEqual(event.start.localTime, first.start.localTime)
        XCTAssertEqual(event.start.zone?.identifier, "custom_America/New_York")
        XCTAssertEqual(event.recurrence.dates.count, 2)
        if case .period(let s, let e) = event.recurrence.dates[0] {
            XCTAssertEqual(s.localTime, CivilDateTime(year: 2026, month: 11, day: 5, hour: 10))
            XCTAssertEqual(e.localTime, CivilDateTime(year: 2026, month: 11, day: 5, hour: 11, minute: 30))
        } else {
            XCTFail("the first RDATE lost its end: \(event.recurrence.dates[0])")
        }
        XCTAssertEqual(event.recurrence.dates[1], .periodWithDuration(start: event.recurrence.dates[1].start, duration: CalDuration(seconds: 7200)))
        XCTAssertEqual(event.organizer?.email, "Boss@Example.com")

        // Written again: the same document.
        let again = try exportJSON(back).records
        XCTAssertEqual(again, records)
    }

    /// Faults the ICS reader repairs are repaired in the json source too: a rule that cannot be read leaves the
    /// event without it, one unreadable EXDATE/RDATE value is left out; each with a warning naming the record
    /// and field. `strict` rejects instead.
    func testJSONSourceRepairsRulesAndDateValues() throws {
        let path = try write("""
            [{"uid": "a", "start": "2026-11-23T09:00:00", "rrule": "FREQ=SOMETIMES", "exdate": ["2026-11-30T09:00:00", "tuesday"],
              "rdate": ["2026-12-01T09:00:00", "2026-12-02T09:00:00/PT1H", "later"], "attendees": ["MAILTO:Ann@Example.org"]},
             {"uid": "b", "start": "2026-11-24", "rrule": ["FREQ=WEEKLY;COUNT=2", ""]}]
            """, "faults.json")
        let context = TestSupport.context()
        let events = try TestSupport.read(JSONImporter(input: spec(path)), context: context)
        XCTAssertEqual(events.map(\.uid), ["a", "b"])
        XCTAssertEqual(context.report.rejections, [])
        XCTAssertEqual(events[0].recurrence.rules, [])
        XCTAssertEqual(events[0].recurrence.exceptionDates.count, 1)
        XCTAssertEqual(events[0].recurrence.dates.count, 2)
        XCTAssertEqual(events[0].attendees.first?.email, "Ann@Example.org")
        XCTAssertEqual(events[1].recurrence.rules.map(\.text), ["FREQ=WEEKLY;COUNT=2"])
        XCTAssertEqual(context.report.warnings.count, 4, "\(context.report.warnings)")
        XCTAssertTrue(context.report.warnings[0].hasPrefix("\(path): [0].rrule: invalid rule \"FREQ=SOMETIMES\""), context.report.warnings[0])
        XCTAssertTrue(context.report.warnings[0].hasSuffix("; the event is kept without it (event \"a\")"), context.report.warnings[0])
        XCTAssertTrue(context.report.warnings[1].contains("[0].rdate[2]: invalid date \"later\""), context.report.warnings[1])
        XCTAssertTrue(context.report.warnings[1].hasSuffix("; that value is left out (event \"a\")"), context.report.warnings[1])
        XCTAssertTrue(context.report.warnings[2].contains("[0].exdate[1]: invalid date \"tuesday\""), context.report.warnings[2])
        XCTAssertTrue(context.report.warnings[3].contains("[1].rrule[1]: invalid rule \"\""), context.report.warnings[3])

        let strict = RunContext(environment: context.environment, strict: true, quiet: true)
        let kept = try TestSupport.read(JSONImporter(input: spec(path)), context: strict)
        XCTAssertEqual(kept.map(\.uid), [])
        XCTAssertEqual(strict.report.rejections.count, 2)
        XCTAssertEqual(strict.report.warnings, [])
    }
}
