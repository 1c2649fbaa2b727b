import Pipeline
import XCTest
@testable import Importers

final class JCalImportTests: XCTestCase {
    private func jcal(_ path: String, written: String? = nil) -> JCalSource {
        JCalSource(input: InputSpec(location: .path(path, written: written ?? path)))
    }

    private func temporary(_ text: String, _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "calpipe-\(getpid())-" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Both RFC examples 1 (RFC 6321 and RFC 7265) hold the same calendar: the events must be equal.
    func testRFC7265Example1MatchesTheXCalForm() throws {
        let fromJCal = try TestSupport.read(jcal(TestSupport.fixture("jcal/rfc7265-example1.json"), written: "jcal/rfc7265-example1.json"))
        let fromXCal = try TestSupport.read(XCalSource(input: InputSpec(location: .path(TestSupport.fixture("xml/rfc6321-example1.xml"), written: "x"))))
        XCTAssertEqual(fromJCal.count, 1)
        XCTAssertEqual(fromJCal.first?.origin, SourceLocation(file: "jcal/rfc7265-example1.json", line: 8))
        XCTAssertEqual(fromJCal.map(\.withoutOrigin), fromXCal.map(\.withoutOrigin))
    }

    func testRFC7265Example2() throws {
        let events = try TestSupport.read(jcal(TestSupport.fixture("jcal/rfc7265-example2.json"), written: "ex2.json"))
        XCTAssertEqual(events.count, 2)
        let eastern = TestSupport.eastern()
        var series = Event(uid: "00959BC664CA650E933C892C@example.com",
                           start: .zoned(CivilDateTime(year: 2006, month: 1, day: 2, hour: 12), eastern),
                           endSpec: .duration(CalDuration(seconds: 3600)), title: "Event #2")
        series.description = "We are having a meeting all this week at 12 pm for one hour, with an additional meeting on the first day 2 hours long.\nPlease bring your own lunch for the 12 pm meetings."
        series.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=5")]
        series.recurrence.dates = [.periodWithDuration(start: .zoned(CivilDateTime(year: 2006, month: 1, day: 2, hour: 15), eastern),
                                                       duration: CalDuration(seconds: 7200))]
        series.otherProperties = [RawProperty(name: "DTSTAMP", value: "20060206T001121Z")]
        series.origin = SourceLocation(file: "ex2.json", line: 51)
        XCTAssertEqual(events[0], series)
        var override = Event(uid: "00959BC664CA650E933C892C@example.com",
                             start: .zoned(CivilDateTime(year: 2006, month: 1, day: 2, hour: 14), eastern),
                             endSpec: .duration(CalDuration(seconds: 3600)), title: "Event #2")
        override.recurrenceID = RecurrenceID(time: .zoned(CivilDateTime(year: 2006, month: 1, day: 4, hour: 12), eastern))
        override.otherProperties = [RawProperty(name: "DTSTAMP", value: "20060206T001121Z")]
        override.origin = SourceLocation(file: "ex2.json", line: 76)
        XCTAssertEqual(events[1], override)
    }

    func testValueForms() throws {
        let text = """
        [["vcalendar", [], [
          ["vevent", [
            ["uid", {}, "text", "forms"],
            ["dtstart", {"tzid": "Europe/Berlin"}, "date-time", "2026-03-29T01:30:00"],
            ["dtend", {}, "date-time", "2026-03-29T04:00:00Z"],
            ["geo", {}, "float", [52.52, 13.405]],
            ["categories", {}, "text", "work", "a,b"],
            ["attendee", {"cn": "Ann", "partstat": "ACCEPTED", "delegated-from": ["mailto:x@example.com", "mailto:y@example.com"]}, "cal-address", "mailto:ann@example.com"],
            ["rrule", {}, "recur", {"freq": "WEEKLY", "until": "2026-06-30", "byday": ["MO", "WE"], "interval": 2}],
            ["rdate", {}, "period", ["2026-05-01T10:00:00Z", "2026-05-01T11:00:00Z"]],
            ["exdate", {}, "date-time", "2026-04-06T01:30:00Z", "2026-04-08T01:30:00Z"],
            ["request-status", {}, "text", ["2.0", "Success"]],
            ["x-flag", {}, "boolean", true],
            ["x-count", {}, "integer", 42],
            ["x-any", {"x-p": "1"}, "unknown", "a;b"]
          ], [["valarm", [["action", {}, "text", "AUDIO"], ["trigger", {"value": "date-time"}, "date-time", "2026-03-28T20:00:00Z"]], []]]]
        ]], ["vcalendar", [], [["vtodo", [["uid", {}, "text", "t"]], []]]]]
        """
        let path = try temporary(text, "forms.json")
        defer { unlink(path) }
        let context = TestSupport.context()
        let events = try TestSupport.read(jcal(path, written: "forms.json"), context: context)
        XCTAssertEqual(context.report.counter("skipped VTODO"), 1)
        let e = try XCTUnwrap(events.first)
        let berlin = TestSupport.zones.zone(named: "Europe/Berlin")!
        XCTAssertEqual(e.start, .zoned(CivilDateTime(year: 2026, month: 3, day: 29, hour: 1, minute: 30), berlin))
        XCTAssertEqual(e.endSpec, .end(.utc(CivilDateTime(year: 2026, month: 3, day: 29, hour: 4).secondsSinceEpoch)))
        XCTAssertEqual(e.coordinate, Coordinate(latitude: 52.52, longitude: 13.405))
        XCTAssertEqual(e.categories, ["work", "a,b"])
        XCTAssertEqual(e.attendees, [Attendee(name: "Ann", email: "ann@example.com", status: "ACCEPTED",
                                              otherParameters: [Parameter(name: "DELEGATED-FROM", values: ["mailto:x@example.com", "mailto:y@example.com"])])])
        XCTAssertEqual(e.recurrence.rules.map(\.text), ["FREQ=WEEKLY;UNTIL=20260630;INTERVAL=2;BYDAY=MO,WE"])
        XCTAssertEqual(e.recurrence.dates, [.period(start: .utc(CivilDateTime(year: 2026, month: 5, day: 1, hour: 10).secondsSinceEpoch),
                                                    end: .utc(CivilDateTime(year: 2026, month: 5, day: 1, hour: 11).secondsSinceEpoch))])
        XCTAssertEqual(e.recurrence.exceptionDates.count, 2)
        XCTAssertEqual(e.otherProperties, [
            RawProperty(name: "REQUEST-STATUS", value: "2.0;Success"),
            RawProperty(name: "X-FLAG", parameters: [Parameter("VALUE", "BOOLEAN")], value: "TRUE"),
            RawProperty(name: "X-COUNT", parameters: [Parameter("VALUE", "INTEGER")], value: "42"),
            RawProperty(name: "X-ANY", parameters: [Parameter("X-P", "1")], value: "a;b"),
        ])
        XCTAssertEqual(e.components, [RawComponent(name: "VALARM", properties: [
            RawProperty(name: "ACTION", value: "AUDIO"),
            RawProperty(name: "TRIGGER", parameters: [Parameter("VALUE", "DATE-TIME")], value: "20260328T200000Z"),
        ])])
    }

    /// Thousands of events cross the reader's chunk and compaction boundaries; every one arrives intact.
    func testManyEventsStreamAcrossChunks() throws {
        var text = "[\"vcalendar\", [[\"version\", {}, \"text\", \"2.0\"]], [\n"
        let count = 12_000
        for i in 0..<count {
            let day = String(i % 28 + 1).count == 1 ? "0\(i % 28 + 1)" : "\(i % 28 + 1)"
            text += "[\"vevent\", [[\"uid\", {}, \"text\", \"e\(i)\"], [\"dtstart\", {}, \"date\", \"2026-02-\(day)\"],"
            text += " [\"summary\", {}, \"text\", \"Event \\\"\(i)\\\" [x], {y}\"]], []]"
            text += i == count - 1 ? "\n" : ",\n"
        }
        text += "]]\n"
        XCTAssertGreaterThan(text.utf8.count, 3 * ChunkReader.defaultChunkSize / 2)
        let path = try temporary(text, "many.json")
        defer { unlink(path) }
        var batches = 0
        var events: [Event] = []
        try jcal(path).read(context: TestSupport.context()) { batch in
            batches += 1
            events += batch.events
        }
        XCTAssertEqual(events.count, count)
        XCTAssertEqual(batches, count / JCalSource.batchSize)
        XCTAssertEqual(events[11_999].uid, "e11999")
        XCTAssertEqual(events[11_999].title, "Event \"11999\" [x], {y}")
        XCTAssertEqual(events[11_999].start, .date(CivilDate(year: 2026, month: 2, day: 16)))
        XCTAssertEqual(events[11_999].origin?.line, 12_001)
    }

    func testSyntaxErrorNamesLineAndColumn() throws {
        let text = "[\"vcalendar\", [],\n [\n  [\"vevent\", [[\"uid\", {}, \"text\", \"a\"], [\"dtstart\", {}, \"date\" \"2026-01-01\"]], []]\n ]\n]\n"
        let path = try temporary(text, "broken.json")
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(jcal(path, written: "broken.json"))) { error in
            XCTAssertEqual("\(error)", "broken.json:3:64: expected \",\" or \"]\" in array, found \"\"\"")
        }
    }

    func testBadComponentIsRejectedWithItsPath() throws {
        let text = """
        ["vcalendar", [], [
          ["vevent", [["uid", {}, "text", "a"], ["dtstart", {}, "date", "2026-13-01"]], []],
          ["vevent", [["uid", {}, "text", "b"], ["dtstart", {}, "date", "2026-01-01"]], []]
        ]]
        """
        let path = try temporary(text, "reject.json")
        defer { unlink(path) }
        let context = TestSupport.context()
        let events = try TestSupport.read(jcal(path, written: "reject.json"), context: context)
        XCTAssertEqual(events.map(\.uid), ["b"])
        // The value is handed to the iCalendar reader as written, which judges it as in an .ics file.
        XCTAssertEqual(context.report.rejections.map(\.description), [
            "reject.json:2: DTSTART: \"2026-13-01\" is not a valid date",
        ])
    }

    /// What other writers put in jCal is read as they meant it: a rule as RRULE text, a period as a pair or as
    /// "start/end", an address with "MAILTO:" in capitals.
    func testLenientValues() throws {
        let text = """
        ["vcalendar", [], [
          ["vevent", [["uid", {}, "text", "a"], ["dtstart", {}, "date-time", "2026-01-05T09:00:00Z"],
                      ["rrule", {}, "recur", "FREQ=DAILY;COUNT=2"],
                      ["rdate", {}, "period", ["2026-01-10T09:00:00Z", "PT2H"], "2026-01-11T09:00:00Z/2026-01-11T10:00:00Z"],
                      ["attendee", {"cn": "Ann"}, "cal-address", "MAILTO:ann@example.org"]], []]
        ]]
        """
        let path = try temporary(text, "lenient.json")
        defer { unlink(path) }
        let context = TestSupport.context()
        let events = try TestSupport.read(jcal(path, written: "lenient.json"), context: context)
        XCTAssertEqual(context.report.rejections, [])
        XCTAssertEqual(events.first?.recurrence.rules.map(\.text), ["FREQ=DAILY;COUNT=2"])
        XCTAssertEqual(events.first?.recurrence.dates, [
            .periodWithDuration(start: .utc(CivilDateTime(year: 2026, month: 1, day: 10, hour: 9).secondsSinceEpoch), duration: CalDuration(seconds: 7200)),
            .period(start: .utc(CivilDateTime(year: 2026, month: 1, day: 11, hour: 9).secondsSinceEpoch),
                    end: .utc(CivilDateTime(year: 2026, month: 1, day: 11, hour: 10).secondsSinceEpoch)),
        ])
        XCTAssertEqual(events.first?.attendees.map(\.email), ["ann@example.org"])
    }

    /// Deep nesting ends at the JSON parser's depth limit with a message and a place, not a stack overflow.
    func testDeepNestingIsRefused() throws {
        let text = "[\"vcalendar\", [], [" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "]]"
        let path = try temporary(text, "deep.json")
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(jcal(path, written: "deep.json"))) { error in
            XCTAssertEqual("\(error)", "deep.json:1:532: nesting deeper than 512 levels")
        }
    }

    /// A component larger than the stream's limit ends with an error at its start, without being held whole.
    func testOversizedComponentIsRefused() throws {
        let text = "[\"vcalendar\", [],\n [[\"vevent\", [[\"description\", {}, \"text\", \"" + String(repeating: "x", count: 3 << 20) + "\"]], []]]]"
        let path = try temporary(text, "big.json")
        defer { unlink(path) }
        let stream = JCalStream(reader: try ChunkReader(path: path), label: "big.json", maxValueBytes: 2 << 20)
        XCTAssertEqual(try stream.peek(), UInt8(ascii: "["))
        try stream.expect(UInt8(ascii: "["), "[")
        _ = try stream.nextValue()
        try stream.expect(UInt8(ascii: ","), ",")
        _ = try stream.nextValue()
        try stream.expect(UInt8(ascii: ","), ",")
        try stream.expect(UInt8(ascii: "["), "[")
        XCTAssertThrowsError(try stream.nextValue()) { error in
            XCTAssertEqual("\(error)", "big.json:2:3: the value that starts here is larger than 2 MB")
        }
    }

    func testNotACalendar() throws {
        let path = try temporary("{\"events\": []}", "object.json")
        defer { unlink(path) }
        XCTAssertThrowsError(try TestSupport.read(jcal(path, written: "object.json"))) { error in
            XCTAssertEqual("\(error)", "object.json:1:1: expected a jCal calendar [\"vcalendar\", [properties], [components]], found \"{\"")
        }
    }
}

extension Event {
    /// The event without where it came from, to compare the same event read from two forms.
    var withoutOrigin: Event {
        var copy = self
        copy.origin = nil
        copy.sourceText = nil
        return copy
    }
}
