import Foundation
import XCTest
import Exporters
import Importers
import Pipeline

/// The exporter: strictly valid output for every fixture, round trips, determinism, folding, expansion.
final class ICSExportTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-ics-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func context() -> RunContext {
        let env = PipelineEnvironment(pipelineFile: "test.json", baseDirectory: directory, name: "test", zone: .utc, window: nil,
                                      environment: [:], zones: testZones, today: CivilDate(year: 2026, month: 3, day: 1))
        return RunContext(environment: env, quiet: true)
    }

    private func export(_ batches: [Batch], expand: Bool = false, name: String = "out.ics") throws -> [UInt8] {
        let path = directory.appendingPathComponent(name).path
        let sink = ICSSink(path: path, expand: expand)
        let ctx = context()
        try sink.open(context: ctx)
        for b in batches { try sink.write(b, context: ctx) }
        _ = try sink.commit(context: ctx)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// What must survive a round trip. Times as text with their zone's name (a custom zone comes back with the
    /// transitions of the exported years only, so the Zone values differ while every time is the same).
    static func roundTripView(_ e: Event, addedStamp: Bool) -> [String] {
        func t(_ x: EventTime) -> String { x.iso8601 + "@" + (x.zone?.identifier ?? "-") }
        func end(_ s: Event.EndSpec?) -> String {
            switch s { case .end(let x): return "end " + t(x); case .duration(let d): return "duration " + d.iCalendarText; case nil: return "none" }
        }
        func date(_ d: RecurrenceDate) -> String {
            switch d {
            case .time(let x): return t(x)
            case .period(let s, let e): return t(s) + "/" + t(e)
            case .periodWithDuration(let s, let d): return t(s) + "/" + d.iCalendarText
            }
        }
        let others = e.otherProperties.filter { !(addedStamp && $0.name == "DTSTAMP") }
        return [
            "uid " + e.uid, "title \(e.title ?? "-")", "description \(e.description ?? "-")", "location \(e.location ?? "-")",
            "geo \(String(describing: e.coordinate))", "organizer \(String(describing: e.organizer))", "attendees \(e.attendees)",
            "categories \(e.categories)", "color \(e.color ?? "-")", "url \(e.url ?? "-")", "status \(e.status ?? "-")",
            "start " + t(e.start), "endSpec " + end(e.endSpec),
            "rules \(e.recurrence.rules.map(\.text))", "exrules \(e.recurrence.exceptionRules.map(\.text))",
            "rdates \(e.recurrence.dates.map(date))", "exdates \(e.recurrence.exceptionDates.map(t))",
            "rid \(e.recurrenceID.map { t($0.time) + ($0.thisAndFuture ? " THISANDFUTURE" : "") } ?? "-")",
            "others \(others)", "components \(e.components)",
            "fieldParameters \(e.fieldParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })",
        ]
    }

    /// Every corpus file: export is strictly valid, re-reading gives the same events, exporting again gives the
    /// same bytes, and the bytes equal the committed copy under exported/ (which scripts/ics-check-exports.py
    /// checks with python icalendar). Set CALPIPE_UPDATE_FIXTURES=1 to rewrite those copies.
    func testEveryFixtureExportsValidICSAndRoundTrips() throws {
        let update = ProcessInfo.processInfo.environment["CALPIPE_UPDATE_FIXTURES"] == "1"
        let files = try Fixtures.files(in: "corpus")
        XCTAssertGreaterThanOrEqual(files.count, 20)
        for name in files {
            let original = try readICS(try Fixtures.bytes("corpus/" + name), label: name).events
            let first = try export([Batch(events: original)], name: name)
            XCTAssertEqual(ICSValidator.validate(first), [], name)
            let reread = try readICS(first, label: "exported-" + name)
            XCTAssertEqual(reread.rejections, [], name)
            XCTAssertEqual(reread.warnings, [], name)
            XCTAssertEqual(reread.events.count, original.count, name)
            for (a, b) in zip(original, reread.events) {
                let addedStamp = !a.otherProperties.contains { $0.name == "DTSTAMP" }
                XCTAssertEqual(Self.roundTripView(a, addedStamp: addedStamp), Self.roundTripView(b, addedStamp: addedStamp), "\(name) \(a.uid)")
            }
            let second = try export([Batch(events: reread.events)], name: "again-" + name)
            XCTAssertEqual(second, first, "\(name): exporting the re-read events gives the same bytes")
            let committed = Fixtures.url("exported/" + name)
            if update { try Data(first).write(to: committed) }
            XCTAssertEqual(Array(try Data(contentsOf: committed)), first, "\(name): differs from exported/\(name)")
        }
    }

    func testFoldingNeverSplitsACharacterAndKeepsTheText() throws {
        for shift in 0..<8 {
            var e = Event(uid: "fold-\(shift)", start: .utc(1_775_000_000))
            e.title = String(repeating: "x", count: shift) + String(repeating: "Grüße aus dem Café Müller ☕🎂🇩🇪 ", count: 9)
            e.description = "Zeile 1\nZeile 2, mit Komma; und Semikolon \\ Backslash"
            let bytes = try export([Batch(events: [e])])
            XCTAssertEqual(ICSValidator.validate(bytes), [])
            let back = try readICS(bytes).events
            XCTAssertEqual(back.first?.title, e.title)
            XCTAssertEqual(back.first?.description, e.description)
        }
    }

    func testExactBytesOfASmallCalendar() throws {
        let berlin = try XCTUnwrap(testZones.zone(named: "Europe/Berlin"))
        var e = Event(uid: "team@example.com", start: .zoned(CivilDateTime(year: 2026, month: 3, day: 30, hour: 9), berlin),
                      endSpec: .duration(CalDuration(seconds: 1800)), title: "Stand-up, daily; short")
        e.attendees = [Attendee(name: "Doe, Jane \"JD\"", email: "jane@example.com", role: "CHAIR", status: "ACCEPTED")]
        e.otherProperties = [RawProperty(name: "X-CUSTOM", parameters: [Parameter("X-P", "a:b")], value: "kept")]
        let text = String(decoding: try export([Batch(events: [e])]), as: UTF8.self)
        XCTAssertEqual(text, [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpipe//calpipe \(CalpipeVersion.current)//EN", "CALSCALE:GREGORIAN",
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
            "BEGIN:STANDARD", "DTSTART:20251026T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:20260329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT",
            "BEGIN:STANDARD", "DTSTART:20261025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
            "END:VTIMEZONE",
            "BEGIN:VEVENT", "UID:team@example.com", "DTSTART;TZID=Europe/Berlin:20260330T090000",
            "DURATION:PT30M", "SUMMARY:Stand-up\\, daily\\; short",
            "ATTENDEE;CN=\"Doe, Jane ^'JD^'\";ROLE=CHAIR;PARTSTAT=ACCEPTED:mailto:jane@exa", " mple.com",
            "DTSTAMP:20260301T000000Z", "X-CUSTOM;X-P=\"a:b\":kept", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n"))
    }

    /// expand: true writes one VEVENT per occurrence with its RECURRENCE-ID and no rules.
    func testExpandWritesOneEventPerOccurrence() throws {
        let berlin = try XCTUnwrap(testZones.zone(named: "Europe/Berlin"))
        var series = Event(uid: "weekly@example.com", start: .zoned(CivilDateTime(year: 2026, month: 3, day: 23, hour: 9), berlin),
                           endSpec: .duration(CalDuration(seconds: 3600)), title: "Weekly")
        series.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=2")]
        let occurrences = [0, 7].map { days -> Occurrence in
            let s = series.start.adding(CalDuration(days: days))
            return Occurrence(event: series, start: s, end: s.adding(CalDuration(seconds: 3600)), recurrenceID: s)
        }
        let bytes = try export([Batch(events: [series], occurrences: occurrences, content: [.events, .occurrences])], expand: true)
        XCTAssertEqual(ICSValidator.validate(bytes), [])
        let back = try readICS(bytes).events
        XCTAssertEqual(back.map { $0.start.iso8601 }, ["2026-03-23T09:00:00+01:00", "2026-03-30T09:00:00+02:00"])
        XCTAssertEqual(back.map { $0.end.iso8601 }, ["2026-03-23T10:00:00+01:00", "2026-03-30T10:00:00+02:00"])
        XCTAssertEqual(back.map { $0.recurrenceID?.time.iso8601 }, ["2026-03-23T09:00:00+01:00", "2026-03-30T09:00:00+02:00"])
        XCTAssertEqual(back.map(\.recurrence.isEmpty), [true, true])
    }

    /// Events from other formats: names with odd characters, values with line breaks and control characters.
    func testForeignNamesAndValuesAreMadeValid() throws {
        var e = Event(uid: "json-1", start: .floating(CivilDateTime(year: 2026, month: 5, day: 1, hour: 9)))
        e.otherProperties = [RawProperty(name: "x_note", parameters: [Parameter(name: "lang code", values: ["de"])], value: "line 1\nline 2\u{7}bell")]
        e.title = "Tab\there"
        let bytes = try export([Batch(events: [e])])
        XCTAssertEqual(ICSValidator.validate(bytes), [])
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\r\nX-NOTE;LANG-CODE=de:line 1\\nline 2bell\r\n"), text)
        XCTAssertTrue(text.contains("\r\nDTSTART:20260501T090000\r\n"), text)
        XCTAssertEqual(try readICS(bytes).events.first?.title, "Tab\there")
    }

    func testAbortLeavesThePreviousFile() throws {
        let path = directory.appendingPathComponent("keep.ics").path
        try Data("previous".utf8).write(to: URL(fileURLWithPath: path))
        let sink = ICSSink(path: path)
        let ctx = context()
        try sink.open(context: ctx)
        try sink.write(Batch(events: [Event(uid: "x", start: .utc(0))]), context: ctx)
        sink.abort(context: ctx)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "previous")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["keep.ics"])
    }

    func testValidatorCatchesWhatItShould() {
        let bad = Array("BEGIN:VCALENDAR\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART;TZID=Nowhere:20260101T000000\r\nSUMMARY:\(String(repeating: "é", count: 40))\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        XCTAssertEqual(ICSValidator.validate(bad), [
            "line 1: bare LF",
            "line 6: 88 octets (more than 75)",
            "VEVENT at line 3: 0 DTSTAMP (expected exactly one)",
            "VCALENDAR at line 1: 0 PRODID (expected exactly one)",
            "line 5: TZID Nowhere has no VTIMEZONE",
        ])
    }
}
