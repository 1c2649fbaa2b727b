import CalpipeKit
import Foundation
import XCTest

/// The model's `Codable` is the documented JSON (docs/json-format.md): the json sink's members and values.
final class ModelCodingTests: XCTestCase {
    let settings = Calpipe.Settings(environment: ["TZ": "UTC", "SOURCE_DATE_EPOCH": "1795348800"])

    /// A JSON text with its members sorted, to compare documents whatever their members' order.
    private func canonical(_ data: Data) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(JSONDecoder().decode(JSONValue.self, from: data)), as: UTF8.self)
    }

    /// Each element of a JSON array as sorted text (JSONEncoder keeps no member order).
    private func canonicalItems(_ data: Data) throws -> [String] {
        try JSONDecoder().decode([JSONValue].self, from: data).map { try canonical(JSONEncoder().encode($0)) }
    }

    func testTheSampleAgendaRoundTripsToTheJSONSinksOutput() async throws {
        let events = try await Calpipe.readEvents(fromFile: CommonJobsTests.agenda, settings: settings)
        XCTAssertGreaterThan(events.count, 10)
        // What the json sink writes for them, through a real pipeline run.
        let sink = try await Calpipe.data(events, format: "json", settings: settings)
        let encoded = try JSONEncoder().encode(events)
        XCTAssertEqual(try canonical(encoded), try canonical(sink))
        // Decoded by the json source's reader and written again: the same bytes as the sink's.
        let decoded = try JSONDecoder().decode([Event].self, from: encoded)
        XCTAssertEqual(Data(Calpipe.jsonData(decoded)), sink)
        XCTAssertEqual(decoded.map(\.uid), events.map(\.uid))
    }

    func testAnEventThatCannotBeReadSaysWhy() {
        XCTAssertThrowsError(try JSONDecoder().decode(Event.self, from: Data(#"{"title": "x", "start": "tomorrow"}"#.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(context.debugDescription.hasPrefix(#"invalid date "tomorrow" (expected ISO-8601"#), context.debugDescription)
        }
        XCTAssertThrowsError(try JSONDecoder().decode(Event.self, from: Data("[1]".utf8)))
    }

    func testTheDaysDocumentCodesAsItsJSON() async throws {
        let document = try await Calpipe.days(ofFile: CommonJobsTests.agenda, from: "2026-10-12", to: "2026-10-14", timeZone: "Europe/Berlin", settings: settings)
        let decoded = try JSONDecoder().decode(DaysDocument.self, from: JSONEncoder().encode(document))
        XCTAssertEqual(try canonical(JSONEncoder().encode(decoded)), try canonical(document.jsonData))
        XCTAssertEqual(decoded.dates, ["2026-10-12", "2026-10-13"])
    }

    /// The recurrence fixture (a series in Europe/Berlin with moved instances, a UTC series, an all-day one) and
    /// the sample agenda: timed, all-day and multi-day entries, series instances and overrides.
    private func modelEvents() async throws -> [Event] {
        let agenda = try await Calpipe.readEvents(fromFile: CommonJobsTests.agenda, settings: settings)
        let series = try await Calpipe.readEvents(fromFile: CommonJobsTests.recurrence, settings: settings)
        return agenda + series
    }

    private func encoder(zone: String?) -> JSONEncoder {
        let encoder = JSONEncoder()
        if let zone { encoder.userInfo[.calpipeTimeZone] = zone }
        return encoder
    }

    private func decoder(zone: String?) -> JSONDecoder {
        let decoder = JSONDecoder()
        if let zone { decoder.userInfo[.calpipeTimeZone] = zone }
        return decoder
    }

    func testDayEntriesCodeAsTheDaysDocumentsEntries() async throws {
        let events = try await modelEvents()
        let weather = Calpipe.Weather.file(CommonJobsTests.root.appendingPathComponent("data/forecast-sample.json").path,
                                           location: Coordinate(latitude: 52.52, longitude: 13.41))
        for (from, to) in [("2026-10-12", "2026-10-19"), ("2026-06-01", "2026-07-01")] {
            let entries = try await Calpipe.dayEntries(of: events, from: from, to: to, timeZone: "Europe/Berlin", weather: weather, settings: settings)
            let document = try await Calpipe.days(of: events, from: from, to: to, timeZone: "Europe/Berlin", weather: weather, settings: settings)
            let written = document.dates.flatMap { document.entries(on: $0) }
            XCTAssertGreaterThan(entries.count, 5)
            XCTAssertEqual(entries.count, written.count)
            // Each entry encodes as the sink wrote it (found by its id), with the pipeline's zone given.
            let byID = Dictionary(try written.map { ($0.value(atDottedPath: "id")?.stringValue ?? "", try canonical(JSONEncoder().encode($0))) },
                                  uniquingKeysWith: { a, _ in a })
            let encoded = try encoder(zone: "Europe/Berlin").encode(entries)
            let trees = try canonicalItems(encoded)
            for (entry, tree) in zip(entries, trees) {
                XCTAssertEqual(tree, byID[entry.stableID], "entry \(entry.stableID) of \(entry.event.uid) on \(entry.day.iso8601)")
            }
            // Decoded, an entry keeps its day, times, parts, id and forecast, and encodes to the same JSON.
            let decoded = try decoder(zone: "Europe/Berlin").decode([DayEntry].self, from: encoded)
            XCTAssertEqual(try canonicalItems(encoder(zone: "Europe/Berlin").encode(decoded)), trees)
            for (a, b) in zip(entries, decoded) {
                XCTAssertEqual(a.stableID, b.stableID)
                XCTAssertEqual([a.day.iso8601, a.start.iso8601, a.end.iso8601], [b.day.iso8601, b.start.iso8601, b.end.iso8601])
                XCTAssertEqual([a.startUTC, a.endUTC, Int64(a.part), Int64(a.parts)], [b.startUTC, b.endUTC, Int64(b.part), Int64(b.parts)])
                XCTAssertEqual(a.allDay, b.allDay)
                XCTAssertEqual(a.forecast, b.forecast)
                XCTAssertEqual(a.event.title, b.event.title)
                XCTAssertEqual(a.event.attendees, b.event.attendees)
            }
            XCTAssertTrue(decoded.contains { $0.forecast != nil } || from == "2026-06-01")
        }
    }

    func testADayEntryWithoutAZoneWritesItsOwnOffsets() async throws {
        let events = try await modelEvents()
        let entries = try await Calpipe.dayEntries(of: events, from: "2026-06-01", to: "2026-06-08", timeZone: "America/New_York", settings: settings)
        let timed = try XCTUnwrap(entries.first { !$0.occurrence.isAllDay })
        let plain = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(timed))
        XCTAssertEqual(try canonical(JSONEncoder().encode(timed)), try canonical(encoder(zone: "America/New_York").encode(timed)))
        XCTAssertTrue(plain.value(atDottedPath: "starts_at")?.stringValue?.hasSuffix("-04:00") == true, "\(plain)")
        XCTAssertThrowsError(try encoder(zone: "Mars/Olympus").encode(timed)) { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.debugDescription, #"unknown time zone "Mars/Olympus" (expected an IANA name such as "Europe/Berlin")"#)
        }
    }

    func testOccurrencesCodeAsTheJSONSinksOccurrenceRecords() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-occurrences-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("occurrences.json").path
        let pipeline = try JSONDecoder().decode(JSONValue.self, from: Data("""
        {"timezone": "Europe/Berlin", "window": {"from": "2026-05-01", "to": "2026-08-01"},
         "sources": [{"type": "ics", "name": "series", "path": "\(CommonJobsTests.recurrence)"}],
         "stages": [{"type": "expand"}],
         "sinks": [{"type": "json", "path": "\(output)", "shape": "occurrences"}]}
        """.utf8))
        _ = try await Calpipe.run(pipeline: pipeline, name: "occurrences", settings: settings)
        let written = try canonicalItems(Data(contentsOf: URL(fileURLWithPath: output)))
        let events = try await Calpipe.readEvents(fromFile: CommonJobsTests.recurrence, settings: settings)
        let occurrences = try await Calpipe.occurrences(of: events, from: "2026-05-01", to: "2026-08-01", timeZone: "Europe/Berlin", settings: settings)
        XCTAssertGreaterThan(occurrences.count, 10)
        let encoded = try encoder(zone: "Europe/Berlin").encode(occurrences)
        let trees = try canonicalItems(encoded)
        XCTAssertEqual(Set(trees), Set(written))
        XCTAssertEqual(trees.count, written.count)
        // Decoded, each is its instance: the same times and identity, and the same JSON again.
        let decoded = try decoder(zone: "Europe/Berlin").decode([Occurrence].self, from: encoded)
        XCTAssertEqual(try canonicalItems(encoder(zone: "Europe/Berlin").encode(decoded)), trees)
        for (a, b) in zip(occurrences, decoded) {
            XCTAssertEqual(a.start, b.start)
            XCTAssertEqual(a.end, b.end)
            XCTAssertEqual(a.recurrenceID.map { $0.utcSeconds(in: .utc) }, b.recurrenceID.map { $0.utcSeconds(in: .utc) })
            XCTAssertEqual(a.event.title, b.event.title)
        }
    }

    func testAttendeesPlacesAndForecastsCodeAsTheirDocumentedForms() throws {
        let attendee = Attendee(name: "Anna Schmidt", email: "anna@example.org", role: "CHAIR", status: "ACCEPTED")
        XCTAssertEqual(try canonical(JSONEncoder().encode(attendee)),
                       #"{"email":"anna@example.org","name":"Anna Schmidt","role":"CHAIR","status":"ACCEPTED"}"#)
        XCTAssertEqual(try JSONDecoder().decode(Attendee.self, from: JSONEncoder().encode(attendee)), attendee)
        XCTAssertEqual(try JSONDecoder().decode(Attendee.self, from: Data(#""Ben <ben@example.org>""#.utf8)), Attendee(name: "Ben", email: "ben@example.org"))

        let place = Coordinate(latitude: 52.5219, longitude: 13.4132)
        XCTAssertEqual(try canonical(JSONEncoder().encode(place)), #"{"latitude":52.5219,"longitude":13.4132}"#)
        XCTAssertEqual(try JSONDecoder().decode(Coordinate.self, from: JSONEncoder().encode(place)), place)
        XCTAssertEqual(try JSONDecoder().decode(Coordinate.self, from: Data("[52.5219, 13.4132]".utf8)), place)
        XCTAssertThrowsError(try JSONDecoder().decode(Coordinate.self, from: Data("[95, 13]".utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.debugDescription, "coordinates out of range")
        }

        let forecast = DailyForecast(weatherCode: 63, summary: "Moderate rain", temperatureMax: 2.8, temperatureMin: -3,
                                     precipitationProbability: 54, precipitationAmount: 8.4, windSpeedMax: 19.5, provider: "open-meteo",
                                     fetchedAt: 1_795_348_800)
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(forecast))
        XCTAssertEqual(json.objectValue?.keys.sorted(), ["provider", "weather_code", "icon", "summary", "temperature_max", "temperature_min",
                                                         "precipitation_probability", "precipitation", "wind_speed_max", "units", "fetched_at"].sorted())
        XCTAssertEqual(json.value(atDottedPath: "icon"), .string("rain"))
        XCTAssertEqual(json.value(atDottedPath: "fetched_at"), .string("2026-11-22T12:00:00Z"))
        XCTAssertEqual(try JSONDecoder().decode(DailyForecast.self, from: JSONEncoder().encode(forecast)), forecast)
        XCTAssertThrowsError(try JSONDecoder().decode(DailyForecast.self, from: Data(#"{"weather_code": 3}"#.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.debugDescription, "missing (the forecast's provider)")
        }
    }
}

