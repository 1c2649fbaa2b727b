import Foundation
import XCTest
import Importers
import Exporters
import Pipeline

/// Feeds as they are published, read and expanded as a pipeline would: every event once (issue 30, item 1),
/// METHOD where it belongs (issue 25, point 12). The occurrences are compared with what python icalendar and
/// recurring-ical-events read from the same file (Tests/Fixtures/ics/peers, README.md there says how).
final class ICSPublishedFeedTests: XCTestCase {
    static let berlin = testZones.zone(named: "Europe/Berlin")!

    struct Expanded {
        var read: ReadResult
        /// [UID, start, end] as the peers' JSON writes them: UTC date-times, dates as dates.
        var occurrences: [[String]]
        var warnings: [String]
    }

    /// Reads `name` from the realworld fixtures and expands it in [from, to) with Europe/Berlin as the zone.
    func expand(_ name: String, from: CivilDate, to: CivilDate) throws -> Expanded {
        let read = try readICS(try Fixtures.bytes("realworld/" + name), label: name, fallback: Self.berlin)
        let environment = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test",
                                              zone: Self.berlin, window: Window(from: from, to: to), environment: [:], zones: testZones,
                                              today: from)
        let context = RunContext(environment: environment, log: { _ in })
        let stage = ExpandStage()
        let events = read.events.map { e -> Event in
            var e = e
            e.metadata["source"] = name
            return e
        }
        var occurrences = try stage.process(Batch(events: events), context: context).occurrences
        try stage.finish(context: context) { occurrences += $0.occurrences }
        func text(_ t: EventTime) -> String {
            switch t {
            case .date(let d): return d.iso8601
            case .floating(let l): return EventTime.floating(l).iso8601
            default: return EventTime.utc(t.utcSeconds(in: Self.berlin)).iso8601
            }
        }
        let rows = occurrences.map { [$0.event.uid, text($0.start), text($0.end)] }
            .sorted { ($0[1], $0[0]) < ($1[1], $1[0]) }
        return Expanded(read: read, occurrences: rows, warnings: context.report.warnings)
    }

    func peers(_ name: String) throws -> [[String]] {
        let data = try Data(contentsOf: Fixtures.url("peers/" + name.replacingOccurrences(of: ".ics", with: ".json")))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String]])
    }

    // MARK: RDATE before DTSTART

    func testPeriodRDATEsBeforeDTSTARTAreKept() throws {
        let name = "37-rdate-period-before-dtstart.ics"
        let r = try expand(name, from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1))
        XCTAssertEqual(r.occurrences, try peers(name))
        // The two trial evenings, each with its own period: 3 hours, and 45 minutes.
        XCTAssertEqual(r.occurrences.prefix(2).map { $0[1] + "/" + $0[2] },
                       ["2026-02-24T17:30:00Z/2026-02-24T18:15:00Z", "2026-03-03T17:00:00Z/2026-03-03T20:00:00Z"])
        XCTAssertEqual(r.occurrences.count, 6)
        XCTAssertEqual(r.read.repairs, [])
    }

    func testRDATEBeforeDTSTARTOutsideTheWindowStaysOut() throws {
        let r = try expand("37-rdate-period-before-dtstart.ics", from: CivilDate(year: 2026, month: 3, day: 1), to: CivilDate(year: 2027, month: 1, day: 1))
        XCTAssertEqual(r.occurrences.map { $0[1] }, ["2026-03-03T17:00:00Z", "2026-03-10T17:30:00Z", "2026-03-17T17:30:00Z",
                                                     "2026-03-24T17:30:00Z", "2026-03-31T16:30:00Z"])
    }

    // MARK: A calendar published twice

    func testASeriesPublishedTwiceKeepsItsLaterRevisionAndACopyOnce() throws {
        let name = "39-calendar-published-twice.ics"
        let r = try expand(name, from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 7, day: 1))
        // The peers keep one of the two talks that share a UID (single events, different DTSTART); calpipe keeps
        // both (issue 15: a conference schedule whose talks carry one UID). Everything else is the same.
        let secondTalk = ["talks@conf.example.net", "2026-04-10T10:00:00Z", "2026-04-10T10:45:00Z"]
        XCTAssertEqual(r.occurrences.filter { $0 != secondTalk }, try peers(name))
        XCTAssertTrue(r.occurrences.contains(secondTalk))
        XCTAssertEqual(r.occurrences.filter { $0[0] == "summer-party@club.example.net" }.count, 1)
        XCTAssertEqual(r.occurrences.filter { $0[0] == "training@club.example.net" }.first?[1], "2026-01-06T18:00:00Z")
        XCTAssertEqual(r.read.warnings, [
            "\(name):49: VEVENT with UID \"summer-party@club.example.net\" repeats the one at line 14 exactly: kept once",
        ])
        XCTAssertEqual(r.warnings, [
            "event \"training@club.example.net\" (\(name):40) is a later revision of the series (\(name):5) (SEQUENCE, DTSTAMP); using it",
        ])
    }

    func testTheEarlierRevisionLosesWhereverItComes() throws {
        // The same two copies the other way round: the one with the higher SEQUENCE still wins.
        let text = String(decoding: try Fixtures.bytes("realworld/39-calendar-published-twice.ics"), as: UTF8.self)
        let calendars = text.components(separatedBy: "END:VCALENDAR\r\n").filter { !$0.isEmpty }
        XCTAssertEqual(calendars.count, 2)
        let swapped = calendars[1] + "END:VCALENDAR\r\n" + calendars[0] + "END:VCALENDAR\r\n"
        let read = try readICS(Array(swapped.utf8), label: "swapped.ics", fallback: Self.berlin)
        let environment = PipelineEnvironment(pipelineFile: "pipelines/test.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "test",
                                              zone: Self.berlin, window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 1, day: 10)),
                                              environment: [:], zones: testZones, today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, log: { _ in })
        let stage = ExpandStage()
        _ = try stage.process(Batch(events: read.events), context: context)
        var titles: [String] = []
        try stage.finish(context: context) { titles += $0.occurrences.map { ($0.event.title ?? "") + " " + $0.start.iso8601 } }
        XCTAssertEqual(titles, ["Training 2026-01-06T18:00:00Z"])
        XCTAssertEqual(context.report.warnings, ["event \"training@club.example.net\" (swapped.ics:26) is an earlier revision of the series (swapped.ics:5) (SEQUENCE, DTSTAMP); using the later one"])
    }

    // MARK: METHOD inside VEVENT

    func testMETHODInsideAVEVENTIsDroppedWithARepair() throws {
        let name = "38-method-in-vevent.ics"
        let r = try expand(name, from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2027, month: 1, day: 1))
        XCTAssertEqual(r.occurrences, try peers(name))
        XCTAssertEqual(r.read.repairs, [
            "\(name):6: UID \"booking-7781@rooms.example.org\": METHOD inside VEVENT (a VCALENDAR property): dropped",
            "\(name):14: UID \"booking-7790@rooms.example.org\": METHOD inside VEVENT (a VCALENDAR property): dropped",
        ])
        XCTAssertTrue(r.read.events.allSatisfy { !$0.otherProperties.contains { $0.name == "METHOD" } })
        let strict = try readICS(try Fixtures.bytes("realworld/" + name), label: name, fallback: Self.berlin, strict: true)
        XCTAssertEqual(strict.events.count, 0)
        XCTAssertEqual(strict.rejections, ["\(name):6: METHOD inside VEVENT (a VCALENDAR property)",
                                           "\(name):14: METHOD inside VEVENT (a VCALENDAR property)"])
    }

    /// The ICS sink's output of that feed is strictly valid again: no METHOD inside a VEVENT.
    func testTheExportOfAFeedWithMETHODInItsEventsIsValid() throws {
        let name = "38-method-in-vevent.ics"
        let read = try readICS(try Fixtures.bytes("realworld/" + name), label: name, fallback: Self.berlin)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-method-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = PipelineEnvironment(pipelineFile: "p.json", baseDirectory: folder, name: "method", zone: Self.berlin, window: nil,
                                              environment: ["SOURCE_DATE_EPOCH": "1780000000"], zones: testZones,
                                              today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let path = folder.appendingPathComponent("out.ics").path
        let sink = ICSSink(path: path, expand: false)
        try sink.open(context: context)
        try sink.write(Batch(events: read.events), context: context)
        _ = try sink.commit(context: context)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(ICSValidator.validate(bytes), [])
        XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("METHOD"))
        // The validator sees the fault the input has.
        XCTAssertEqual(ICSValidator.validate(try Fixtures.bytes("realworld/" + name)).filter { $0.contains("METHOD") }.count, 2)
    }
}
