import CalpipeKit
import Foundation
import XCTest

/// The common jobs of `Calpipe` (Sources/CalpipeKit/Jobs), through `import CalpipeKit` only, on the repository's
/// sample agenda and iCalendar fixtures; each compared with what the json sink or the source reader gives.
final class CommonJobsTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let agenda = root.appendingPathComponent("data/agenda.json").path
    static let recurrence = root.appendingPathComponent("Tests/Fixtures/ics/corpus/15-recurrence-data.ics").path
    /// A fixed "now" (2026-11-22) and zone, so the documents are the same bytes on every run.
    let settings = Calpipe.Settings(environment: ["TZ": "UTC", "SOURCE_DATE_EPOCH": "1795348800", "CALPIPE_OFFLINE": "1"])

    func testReadsAFileBytesAndAFileURLInTheirSniffedFormat() async throws {
        let fromFile = try await Calpipe.readEvents(fromFile: Self.recurrence, settings: settings)
        XCTAssertEqual(Set(fromFile.map(\.uid)), ["series-1@example.com", "monthly-last-friday@example.com", "yearly-setpos@example.com"])
        // No extension to go by: the first bytes say iCalendar.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.recurrence))
        let fromBytes = try await Calpipe.readEvents(from: bytes, settings: settings)
        XCTAssertEqual(fromBytes.map(\.uid), fromFile.map(\.uid))
        let fromURL = try await Calpipe.readEvents(from: URL(fileURLWithPath: Self.agenda), settings: settings)
        XCTAssertEqual(fromURL.first?.title, "Release check")
        XCTAssertEqual(fromURL.first?.uid, "sample-001@calpipe.example")
    }

    func testUnknownBytesNameTheFormatsThatWouldDo() async {
        do {
            _ = try await Calpipe.readEvents(from: Data("hello".utf8), settings: settings)
            XCTFail("read text that is no calendar")
        } catch {
            XCTAssertTrue("\(error)".contains("cannot tell the format of"), "\(error)")
        }
    }

    func testExpandsInAWindow() async throws {
        let events = try await Calpipe.readEvents(fromFile: Self.recurrence, settings: settings)
        let occurrences = try await Calpipe.occurrences(of: events, from: "2026-06-01", to: "2026-06-08", timeZone: "Europe/Berlin", settings: settings)
        // The fortnightly series (moved from 1 June on, RDATEs on 6 and 7 June); the monthly ones fall outside.
        func day(_ time: EventTime) -> String {
            switch time {
            case .date(let d): return d.iso8601
            case .zoned(let l, _), .floating(let l): return l.date.iso8601
            case .utc(let s): return CivilDateTime(secondsSinceEpoch: s).date.iso8601
            }
        }
        let days = occurrences.map { day($0.start) }
        XCTAssertTrue(days.contains("2026-06-01") && days.contains("2026-06-06") && days.contains("2026-06-07"), "\(days)")
        XCTAssertTrue(days.allSatisfy { $0 >= "2026-06-01" && $0 < "2026-06-08" }, "\(days)")
        XCTAssertEqual(Set(occurrences.map(\.event.uid)), ["series-1@example.com"])
        XCTAssertTrue(occurrences.contains { $0.event.title == "Biweekly sync (moved)" })
    }

    func testDaysOfAFileAreTheConvertCommandsDocument() async throws {
        let document = try await Calpipe.days(ofFile: Self.agenda, from: "2026-10-12", to: "2026-10-19", timeZone: "Europe/Berlin", settings: settings)
        XCTAssertEqual(document.dates.first, "2026-10-12")
        XCTAssertEqual(document.entries(on: "2026-10-12").first?.value(atDottedPath: "title")?.stringValue, "Release check")
        // The same document from the events read first: the days of values equal the days of the file but for
        // the source's name.
        let events = try await Calpipe.readEvents(fromFile: Self.agenda, settings: settings)
        let entries = try await Calpipe.dayEntries(of: events, from: "2026-10-12", to: "2026-10-19", timeZone: "Europe/Berlin", settings: settings)
        XCTAssertEqual(entries.map(\.day.iso8601).sorted(), document.dates.flatMap { date in document.entries(on: date).map { _ in date } })
    }

    func testAttachesWeatherFromTheFileProvider() async throws {
        let events = try await Calpipe.readEvents(fromFile: Self.agenda, settings: settings)
        let weather = Calpipe.Weather.file(Self.root.appendingPathComponent("data/forecast-sample.json").path,
                                           location: Coordinate(latitude: 52.52, longitude: 13.41))
        let document = try await Calpipe.days(of: events, from: "2026-10-12", to: "2026-10-19", timeZone: "Europe/Berlin", weather: weather, settings: settings)
        let first = try XCTUnwrap(document.json.value(atDottedPath: "days")?.arrayValue?.first)
        XCTAssertEqual(first.value(atDottedPath: "weather.available"), .bool(true), "\(first)")
        // Without weather, the days have none.
        let bare = try await Calpipe.days(of: events, from: "2026-10-12", to: "2026-10-19", timeZone: "Europe/Berlin", settings: settings)
        XCTAssertEqual(bare.json.value(atDottedPath: "days")?.arrayValue?.first?.value(atDottedPath: "weather.reason"), .string("no-forecast"))
    }

    func testWritesAnyFormatToBytesAndAFile() async throws {
        let events = try await Calpipe.readEvents(fromFile: Self.agenda, settings: settings)
        let ics = try await Calpipe.data(events, format: "ics", settings: settings)
        XCTAssertTrue(String(decoding: ics, as: UTF8.self).hasPrefix("BEGIN:VCALENDAR"))
        let again = try await Calpipe.readEvents(from: ics, settings: settings)
        XCTAssertEqual(again.map(\.uid), events.map(\.uid))
        let json = try await Calpipe.data(events, format: "json", settings: settings)
        XCTAssertEqual([UInt8](json), Calpipe.jsonData(events))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("agenda.ics").path
        try await Calpipe.write(events, toFile: path, settings: settings)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), ics)
    }

    func testRunsAPipelineFileAndOneBuiltInCode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.ics").path
        let pipeline = JSONValue.object(JSONObject([
            ("sources", .array([.object(JSONObject([("type", .string("json")), ("path", .string(Self.agenda))]))])),
            ("sinks", .array([.object(JSONObject([("type", .string("ics")), ("path", .string(output))]))])),
        ]))
        let report = try await Calpipe.run(pipeline: pipeline, settings: settings)
        let events = try await Calpipe.readEvents(fromFile: Self.agenda, settings: settings)
        XCTAssertEqual(report.eventsRead, events.count)
        let file = directory.appendingPathComponent("p.json").path
        try JSONEncoder().encode(pipeline).write(to: URL(fileURLWithPath: file))
        try FileManager.default.removeItem(atPath: output)
        let fromFile = try await Calpipe.run(file: file, settings: settings)
        XCTAssertEqual(fromFile.eventsRead, events.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output))
    }

    /// A stage of the program's own, registered beside the standard plugins, runs between expand and split.
    final class ShoutStage: Stage {
        static let descriptor = StageDescriptor(type: "shout", kind: .stage, summary: "upper-cases titles", make: { _ in ShoutStage() })
        func process(_ batch: Batch, context: RunContext) throws -> Batch {
            var batch = batch
            for i in batch.events.indices { batch.events[i].title = batch.events[i].title?.uppercased() }
            return batch
        }
    }

    func testACustomStageRunsThroughTheRegistry() async throws {
        var settings = settings
        settings.registry = Calpipe.registry(stages: [ShoutStage.descriptor])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.json").path
        try await Calpipe.run(pipeline: .object(JSONObject([
            ("sources", .array([.object(JSONObject([("type", .string("json")), ("path", .string(Self.agenda))]))])),
            ("stages", .array([.object(JSONObject([("type", .string("shout"))]))])),
            ("sinks", .array([.object(JSONObject([("type", .string("json")), ("path", .string(output)), ("shape", .string("events"))]))])),
        ])), settings: settings)
        let events = try await Calpipe.readEvents(fromFile: output, settings: settings)
        XCTAssertEqual(events.first?.title, "RELEASE CHECK")
    }
}
