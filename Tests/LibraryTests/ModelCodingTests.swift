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
}
