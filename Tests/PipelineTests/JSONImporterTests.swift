import Importers
import XCTest
@testable import Pipeline

final class JSONImporterTests: XCTestCase {
    typealias T = TestSupport

    private func read(_ text: String, file: String = "feed.json", items: String? = nil, ndjson: Bool = false,
                      mapping: EventMapping = EventMapping()) throws -> (events: [Event], rejections: [String]) {
        let dir = try T.temporaryDirectory()
        let url = dir.appendingPathComponent(file)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let importer = JSONImporter(input: InputSpec(location: .path(url.path, written: file)), items: items, ndjson: ndjson, mapping: mapping)
        let context = T.context()
        var events: [Event] = []
        try importer.read(context: context) { events.append(contentsOf: $0.events) }
        return (events, context.report.rejections.map(\.description))
    }

    func testCalpipeFormatAllFields() throws {
        let (events, rejected) = try read("""
        [{"uid": "u1", "title": "Design review", "description": "Line 1\\nLine 2", "location": "Room Spree",
          "geo": {"latitude": 52.52, "longitude": 13.41}, "organizer": "Anna <anna@example.org>",
          "attendees": [{"name": "Ben", "email": "mailto:ben@example.org", "role": "chair", "status": "accepted"}, "carl@example.org"],
          "categories": "work, review", "color": "#1E88E5", "url": "https://example.org/r", "status": "confirmed",
          "start": "2026-11-23T09:00:00", "end": "2026-11-23T10:30:00", "timezone": "Europe/Berlin",
          "rrule": "FREQ=WEEKLY;BYDAY=MO;COUNT=4", "exdate": ["2026-11-30T09:00:00"],
          "properties": [{"name": "x-team", "parameters": {"LANG": "de"}, "value": "Platform"}]}]
        """)
        XCTAssertEqual(rejected, [])
        XCTAssertEqual(events.count, 1)
        let e = events[0]
        let berlin = T.zone("Europe/Berlin")
        XCTAssertEqual(e.uid, "u1")
        XCTAssertEqual(e.title, "Design review")
        XCTAssertEqual(e.description, "Line 1\nLine 2")
        XCTAssertEqual(e.coordinate, Coordinate(latitude: 52.52, longitude: 13.41))
        XCTAssertEqual(e.organizer, Attendee(name: "Anna", email: "anna@example.org"))
        XCTAssertEqual(e.attendees, [Attendee(name: "Ben", email: "ben@example.org", role: "CHAIR", status: "ACCEPTED"), Attendee(email: "carl@example.org")])
        XCTAssertEqual(e.categories, ["work", "review"])
        XCTAssertEqual(e.status, "CONFIRMED")
        XCTAssertEqual(e.start, .zoned(T.local(2026, 11, 23, 9), berlin))
        XCTAssertEqual(e.endSpec, .end(.zoned(T.local(2026, 11, 23, 10, 30), berlin)))
        XCTAssertEqual(e.recurrence.rules.map(\.text), ["FREQ=WEEKLY;COUNT=4;BYDAY=MO"])
        XCTAssertEqual(e.recurrence.exceptionDates, [.zoned(T.local(2026, 11, 30, 9), berlin)])
        XCTAssertEqual(e.otherProperties, [RawProperty(name: "X-TEAM", parameters: [Parameter("LANG", "de")], value: "Platform")])
        XCTAssertEqual(e.origin, SourceLocation(file: "feed.json", path: "[0]"))
    }

    func testDateFormsOffsetsEpochsAndAllDay() throws {
        let (events, rejected) = try read("""
        [{"uid": "a", "start": "2026-11-23"},
         {"uid": "b", "start": "2026-11-23T09:00:00+01:00", "duration": "PT1H"},
         {"uid": "c", "start": 1795420800},
         {"uid": "d", "start": 1795420800000},
         {"uid": "e", "start": "2026-11-23T09:00"},
         {"uid": "f", "start": "2026-11-23T09:00:00Z", "all_day": true, "end": "2026-11-25T00:00:00Z"}]
        """)
        XCTAssertEqual(rejected, [])
        let utc9 = T.local(2026, 11, 23, 8).secondsSinceEpoch
        XCTAssertEqual(events.map(\.start), [
            .date(T.date(2026, 11, 23)), .utc(utc9), .utc(1_795_420_800), .utc(1_795_420_800), .floating(T.local(2026, 11, 23, 9)),
            .date(T.date(2026, 11, 23)),
        ])
        XCTAssertEqual(events[0].end, .date(T.date(2026, 11, 24)))
        XCTAssertEqual(events[1].end, .utc(utc9 + 3600))
        XCTAssertEqual(events[5].end, .date(T.date(2026, 11, 25)))
    }

    func testFieldMappingWithDottedPathsAndNamedArray() throws {
        let mapping = EventMapping(paths: ["uid": "id", "title": "name", "start": "when.begin", "end": "when.finish", "location": "venue.name"],
                                   dateFormat: .epochMillis, zone: nil)
        let (events, rejected) = try read("""
        {"data": {"events": [
          {"id": 7, "name": "Concert", "when": {"begin": 1795420800000, "finish": "1795428000000"}, "venue": {"name": "Arena"}}
        ]}}
        """, items: "data.events", mapping: mapping)
        XCTAssertEqual(rejected, [])
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events[0].uid, "7")
        XCTAssertEqual(events[0].title, "Concert")
        XCTAssertEqual(events[0].location, "Arena")
        XCTAssertEqual(events[0].start, .utc(1_795_420_800))
        XCTAssertEqual(events[0].end, .utc(1_795_428_000))
        XCTAssertEqual(events[0].origin, SourceLocation(file: "feed.json", path: "data.events[0]"))
    }

    func testBadRecordsAreRejectedWithPathAndTheRestImported() throws {
        let (events, rejected) = try read("""
        [{"uid": "ok1", "start": "2026-11-23"},
         {"uid": "nostart", "title": "x"},
         {"uid": "bad", "start": "2026-02-30T10:00"},
         "not an object",
         {"uid": "geo", "start": "2026-11-23", "latitude": 91, "longitude": 0},
         {"uid": "ok2", "start": "2026-11-24", "duration": "1 hour"},
         {"uid": "ok3", "start": "2026-11-24"}]
        """)
        XCTAssertEqual(events.map(\.uid), ["ok1", "ok3"])
        XCTAssertEqual(rejected, [
            "feed.json: [1].start: missing (expected an ISO-8601 date or date-time, or epoch seconds)",
            "feed.json: [2].start: invalid date \"2026-02-30T10:00\" (expected ISO-8601 such as 2026-11-23, 2026-11-23T09:00 or 2026-11-23T09:00:00+01:00)",
            "feed.json: [3]: expected an event object, got a string",
            "feed.json: [4].latitude: coordinates out of range (latitude -90...90, longitude -180...180)",
            "feed.json: [5].duration: invalid duration \"1 hour\" (expected ISO-8601 such as PT1H30M or P2D)",
        ])
    }

    func testNewlineDelimitedJSONReportsLines() throws {
        let (events, rejected) = try read("""
        {"uid": "a", "start": "2026-11-23"}

        {"uid": "b", "start": "2026-11-23", oops}
        {"uid": "c", "title": "no start"}
        {"uid": "d", "start": "2026-11-25"}
        """, file: "feed.ndjson", ndjson: true)
        XCTAssertEqual(events.map(\.uid), ["a", "d"])
        XCTAssertEqual(events[1].origin, SourceLocation(file: "feed.ndjson", line: 5))
        XCTAssertEqual(rejected, [
            "feed.ndjson:3: invalid JSON (column 37: expected a string key, found \"o\")",
            "feed.ndjson:4: start: missing (expected an ISO-8601 date or date-time, or epoch seconds)",
        ])
    }

    func testSyntaxErrorFailsTheSourceWithLineAndColumn() throws {
        XCTAssertThrowsError(try read("[\n {\"uid\": \"a\", \"start\": \"2026-11-23\"},\n {\"uid\": \"b\" \"start\": 1}\n]")) { error in
            XCTAssertEqual("\(error)", "feed.json: line 3, column 14: expected \",\" or \"}\" in object, found \"\"\"")
        }
    }

    func testMissingUIDIsDerivedStably() throws {
        let (a, _) = try read(#"[{"title": "Lunch", "start": "2026-11-23T12:00"}]"#)
        let (b, _) = try read(#"[{"title": "Lunch", "start": "2026-11-23T12:00"}]"#)
        XCTAssertEqual(a[0].uid, b[0].uid)
        XCTAssertTrue(a[0].uid.hasPrefix("calpipe-"))
        XCTAssertEqual(a[0].uid.count, "calpipe-".count + 16)
    }
}
