import Foundation
import Importers
@testable import Pipeline
import XCTest

/// The binary codec the expand stage holds events on disk with (Event+BinaryCodec.swift): every event of the
/// ICS fixtures, the recurrence fixtures and the sample agenda comes back equal, with its zones as the same
/// objects, and damaged bytes give an error.
final class EventBinaryCodecTests: XCTestCase {

    func context() -> RunContext {
        let environment = PipelineEnvironment(pipelineFile: "test.json", baseDirectory: RecurrenceTestSupport.tests, name: "codec", zone: RecurrenceTestSupport.berlin,
                                              window: nil, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 10, day: 1))
        return RunContext(environment: environment, quiet: true)
    }

    func events(from source: any EventSource) throws -> [Event] {
        var all: [Event] = []
        try source.read(context: context()) { all += $0.events }
        return all
    }

    func path(_ glob: String) -> InputSpec {
        let p = RecurrenceTestSupport.tests.appendingPathComponent(glob).path
        return InputSpec(location: .path(p, written: p))
    }

    /// Every event the fixtures hold: the ICS corpus, the recurrence series and the sample agenda (JSON).
    func fixtureEvents() throws -> [Event] {
        var all = try events(from: ICSSource(input: path("Fixtures/ics/corpus/*.ics")))
        all += try events(from: ICSSource(input: path("Fixtures/recurrence/series/*.ics")))
        let agenda = RecurrenceTestSupport.repository.appendingPathComponent("data/agenda.json").path
        all += try events(from: JSONImporter(input: InputSpec(location: .path(agenda, written: agenda))))
        return all
    }

    func roundTrip(_ events: [Event], zones: ZoneTable = ZoneTable()) throws -> [Event] {
        var writer = ByteWriter()
        var ends: [Int] = []
        for e in events {
            e.encode(to: &writer, zones: zones)
            ends.append(writer.count)
        }
        return try writer.bytes.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            var out: [Event] = []
            for end in ends {
                out.append(try Event(decoding: &reader, zones: zones))
                XCTAssertEqual(reader.position, end)
            }
            XCTAssertTrue(reader.isAtEnd)
            return out
        }
    }

    func testEveryFixtureEventComesBackEqual() throws {
        let events = try fixtureEvents()
        // 52 VEVENTs in the corpus, 8 in the series files, 50 sample agenda records.
        XCTAssertEqual(events.count, 110)
        let back = try roundTrip(events)
        XCTAssertEqual(back.count, events.count)
        for (a, b) in zip(events, back) {
            XCTAssertEqual(a, b, "event \(a.uid) (\(a.origin?.description ?? "?"))")
        }
        // The fixtures exercise the codec's branches: each of these is set on some event.
        func some(_ name: String, _ test: (Event) -> Bool) { XCTAssertTrue(events.contains(where: test), name) }
        some("coordinate") { $0.coordinate != nil }
        some("organizer") { $0.organizer != nil }
        some("attendee parameters") { $0.attendees.contains { !$0.otherParameters.isEmpty } }
        some("categories") { !$0.categories.isEmpty }
        some("color") { $0.color != nil }
        some("url") { $0.url != nil }
        some("duration") { if case .duration = $0.endSpec { return true } else { return false } }
        some("date start") { if case .date = $0.start { return true } else { return false } }
        some("UTC start") { if case .utc = $0.start { return true } else { return false } }
        some("zoned start") { if case .zoned = $0.start { return true } else { return false } }
        some("floating start") { if case .floating = $0.start { return true } else { return false } }
        some("RRULE") { !$0.recurrence.rules.isEmpty }
        some("RDATE") { !$0.recurrence.dates.isEmpty }
        some("EXDATE") { !$0.recurrence.exceptionDates.isEmpty }
        some("RECURRENCE-ID") { $0.recurrenceID != nil }
        some("other properties") { !$0.otherProperties.isEmpty }
        some("components") { !$0.components.isEmpty }
        some("field parameters") { !$0.fieldParameters.isEmpty }
        some("origin line") { $0.origin?.line != nil }
        some("origin path") { $0.origin?.path != nil }
        some("source text") { $0.sourceText != nil }
    }

    func testZonesComeBackAsTheSameObjectsIncludingAFileDefinedVTimeZone() throws {
        let events = try self.events(from: ICSSource(input: path("Fixtures/ics/corpus/02-outlook-custom-vtimezone.ics")))
        let zoned = events.compactMap { e -> Zone? in if case .zoned(_, let z) = e.start { return z } else { return nil } }
        // The file's own VTIMEZONE, which the system's zone database does not know.
        let custom = try XCTUnwrap(zoned.first { ZoneDatabase().zone(named: $0.identifier) == nil })
        let back = try roundTrip(events)
        XCTAssertEqual(back, events)
        let backZones = back.compactMap { e -> Zone? in if case .zoned(_, let z) = e.start { return z } else { return nil } }
        XCTAssertEqual(backZones.count, zoned.count)
        for (a, b) in zip(zoned, backZones) { XCTAssertTrue(a === b, "zone \(a.identifier) came back as another object") }
        XCTAssertTrue(backZones.contains { $0 === custom })
    }

    /// An event with every field set, each time form and each RDATE form, built by hand.
    static func everything() throws -> Event {
        let custom = Zone(identifier: "Custom Standard Time", transitions: [1_000_000, 2_000_000], offsets: [3600, 7200, 3600])
        let ny = Zone.system(identifier: "America/New_York")!
        var e = Event(uid: "all-fields@example.com", start: .zoned(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30), RecurrenceTestSupport.berlin),
                      endSpec: .end(.zoned(CivilDateTime(year: 2026, month: 3, day: 29, hour: 9), ny)), title: "Tür & Tor 🎉")
        e.description = "line one\nline two, with a comma; and a semicolon\u{0}and a NUL"
        e.location = "東京オフィス 5F"
        e.coordinate = Coordinate(latitude: -33.8688, longitude: 151.2093)
        e.organizer = Attendee(name: "Ava", email: "ava@example.com", role: nil, status: nil, otherParameters: [Parameter("SENT-BY", "mailto:x@example.com")])
        e.attendees = [
            Attendee(name: "François", email: "f@example.com", role: "CHAIR", status: "ACCEPTED",
                     otherParameters: [Parameter(name: "DELEGATED-TO", values: ["mailto:a@example.com", "mailto:b@example.com"]), Parameter("RSVP", "TRUE")]),
            Attendee(),
        ]
        e.categories = ["Work", "", "Bürozeit"]
        e.color = "seagreen"
        e.url = "https://example.com/e?a=1"
        e.status = "TENTATIVE"
        var rule = try RecurrenceRule(parsing: "FREQ=MONTHLY;INTERVAL=2;UNTIL=20281231T235959Z;BYSECOND=0,30;BYMINUTE=5;BYHOUR=9,17;BYDAY=-1SU,2MO,TU;BYMONTHDAY=1,-1;BYYEARDAY=100,-100;BYWEEKNO=1,-53;BYMONTH=3,10;BYSETPOS=1,-1;WKST=SU;X-NAME=value")
        rule.end = .until(.zoned(CivilDateTime(year: 2028, month: 1, day: 1), custom))
        e.recurrence.rules = [rule, try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=10")]
        e.recurrence.exceptionRules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;UNTIL=20270101")]
        e.recurrence.dates = [
            .time(.date(CivilDate(year: 2026, month: 12, day: 24))),
            .time(.floating(CivilDateTime(year: 1969, month: 7, day: 20, hour: 20, minute: 17))),
            .period(start: .utc(1_790_000_000), end: .utc(1_790_003_600)),
            .periodWithDuration(start: .zoned(CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30), ny), duration: CalDuration(days: -1, seconds: -90)),
        ]
        e.recurrence.exceptionDates = [.date(CivilDate(year: 2027, month: 1, day: 1)), .utc(1_800_000_000),
                                       .zoned(CivilDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30), RecurrenceTestSupport.berlin),
                                       .floating(CivilDateTime(year: 2026, month: 5, day: 1, hour: 8))]
        e.recurrenceID = RecurrenceID(time: .utc(-86_400 * 365 * 300), thisAndFuture: true)
        e.otherProperties = [RawProperty(name: "X-EMPTY", value: ""), RawProperty(name: "ATTACH", parameters: [Parameter("FMTTYPE", "text/plain")], value: "https://example.com/a.txt")]
        e.components = [RawComponent(name: "VALARM", properties: [RawProperty(name: "TRIGGER", value: "-PT15M")],
                                     components: [RawComponent(name: "X-NESTED", properties: [], components: [RawComponent(name: "X-DEEPER")])])]
        e.fieldParameters = ["SUMMARY": [Parameter("LANGUAGE", "de")], "LOCATION": [Parameter("ALTREP", "https://example.com/room"), Parameter(name: "X-EMPTY", values: [])]]
        e.origin = SourceLocation(file: "feeds/team.ics", line: 12_345, path: "[3].start")
        e.metadata = ["source": "team", "href": "/cal/1.ics", "etag": "\"abc\""]
        e.sourceText = "BEGIN:VEVENT\r\nUID:all-fields@example.com\r\nEND:VEVENT\r\n"
        return e
    }

    func testAnEventWithEveryFieldSetComesBackEqual() throws {
        let e = try Self.everything()
        // Event has these 21 stored fields; a new one must be added to the codec (and here).
        XCTAssertEqual(Mirror(reflecting: e).children.count, 21)
        XCTAssertTrue(Mirror(reflecting: e).children.allSatisfy { child in
            let m = Mirror(reflecting: child.value)
            return m.displayStyle != .optional || !m.children.isEmpty
        }, "every optional field of the test event is set")
        var bare = Event(uid: "", start: .utc(0))
        bare.endSpec = .duration(.zero)
        let zones = ZoneTable()
        let back = try roundTrip([e, bare, e], zones: zones)
        XCTAssertEqual(back, [e, bare, e])
        // Fields Event's == compares by text (RRULE) or by content (Zone): checked as data here.
        XCTAssertEqual(back[0].recurrence.rules[0].otherParts.map { "\($0.0)=\($0.1)" }, ["X-NAME=value"])
        XCTAssertEqual(back[0].recurrence.rules[0].byDay, e.recurrence.rules[0].byDay)
        if case .until(.zoned(_, let z)) = back[0].recurrence.rules[0].end {
            XCTAssertEqual(z.identifier, "Custom Standard Time")
            XCTAssertEqual(z.transitions, [1_000_000, 2_000_000])
        } else {
            XCTFail("UNTIL lost its zone")
        }
        XCTAssertEqual(zones.count, 3)
    }

    func testTheSameEventAlwaysGivesTheSameBytes() throws {
        let e = try Self.everything()
        var a = ByteWriter()
        var b = ByteWriter()
        let zones = ZoneTable()
        e.encode(to: &a, zones: zones)
        var copy = e
        copy.metadata = [:]
        for (k, v) in e.metadata.sorted(by: { $0.key > $1.key }) { copy.metadata[k] = v }
        copy.encode(to: &b, zones: zones)
        XCTAssertEqual(a.bytes, b.bytes)
    }

    /// The ICS reader keeps an event's text as bytes (`SourceText`), decoded only when read: the event is equal to
    /// one holding the decoded string, encodes to the same bytes, and stray bytes read as U+FFFD.
    func testSourceTextKeptAsBytesIsTheDecodedText() throws {
        let text = "BEGIN:VEVENT\r\nSUMMARY:Grüße \u{1F600}\r\nEND:VEVENT\r\n"
        var asBytes = Event(uid: "a@x", start: .date(CivilDate(year: 2026, month: 1, day: 1)))
        var asString = asBytes
        Array(text.utf8).withUnsafeBufferPointer { asBytes.setSourceText(utf8: $0) }
        asString.sourceText = text
        XCTAssertEqual(asBytes.sourceText, text)
        XCTAssertEqual(asBytes, asString)
        XCTAssertEqual(asBytes.hashValue, asString.hashValue)
        XCTAssertEqual(asBytes.sourceTextUTF8Count, text.utf8.count)
        let zones = ZoneTable()
        var a = ByteWriter()
        var b = ByteWriter()
        asBytes.encode(to: &a, zones: zones)
        asString.encode(to: &b, zones: zones)
        XCTAssertEqual(a.bytes, b.bytes)
        let decoded = try a.bytes.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            return try Event(decoding: &reader, zones: zones)
        }
        XCTAssertEqual(decoded, asString)

        var stray = asBytes
        [UInt8]([0x41, 0xFF, 0x42]).withUnsafeBufferPointer { stray.setSourceText(utf8: $0) }
        XCTAssertEqual(stray.sourceText, "A\u{FFFD}B")
    }

    func testDamagedBytesGiveAnErrorNotACrash() throws {
        let zones = ZoneTable()
        var writer = ByteWriter()
        try Self.everything().encode(to: &writer, zones: zones)
        let bytes = writer.bytes
        // Every truncation fails cleanly.
        for cut in 0..<bytes.count {
            let prefix = Array(bytes[..<cut])
            XCTAssertThrowsError(try prefix.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                _ = try Event(decoding: &reader, zones: zones)
            }, "cut at \(cut)") { error in
                XCTAssertTrue(error is CalpipeError, "\(error)")
            }
        }
        // A zone number the table does not have.
        var other = ByteWriter()
        Event(uid: "z", start: .zoned(CivilDateTime(secondsSinceEpoch: 0), RecurrenceTestSupport.berlin)).encode(to: &other, zones: ZoneTable())
        XCTAssertThrowsError(try other.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            _ = try Event(decoding: &reader, zones: ZoneTable())
        }) { error in
            XCTAssertEqual((error as? CalpipeError)?.message, "zone number 0 is not in the table")
        }
    }

    func testVarintsAtTheirLimits() throws {
        var w = ByteWriter()
        let values: [Int64] = [0, 1, -1, 63, -64, 64, -65, Int64.max, Int64.min, 1 << 35, -(1 << 35)]
        for v in values { w.signed(v) }
        w.unsigned(UInt64.max)
        w.double(-0.0)
        w.double(.infinity)
        XCTAssertEqual(Array(w.bytes.prefix(6)), [0, 2, 1, 126, 127, 128])
        try w.bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            for v in values { XCTAssertEqual(try r.signed(), v) }
            XCTAssertEqual(try r.unsigned(), UInt64.max)
            XCTAssertEqual(try r.double().bitPattern, (-0.0 as Double).bitPattern)
            XCTAssertEqual(try r.double(), .infinity)
            XCTAssertTrue(r.isAtEnd)
        }
        // Eleven continuation bytes are not a 64-bit varint.
        let tooLong = [UInt8](repeating: 0xff, count: 11) + [0]
        XCTAssertThrowsError(try tooLong.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            _ = try r.unsigned()
        })
    }
}
