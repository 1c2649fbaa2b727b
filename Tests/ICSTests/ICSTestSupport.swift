import Foundation
import XCTest
import Importers
import Pipeline

/// Fixture paths and a one-call way to read iCalendar text into events, rejections, warnings and skips.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ics")

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func bytes(_ relative: String) throws -> [UInt8] { Array(try Data(contentsOf: url(relative))) }

    static func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url(folder).path).filter { $0.hasSuffix(".ics") }.sorted()
    }
}

struct ReadResult {
    var events: [Event] = []
    var rejections: [String] = []
    var warnings: [String] = []
    var skipped: [String] = []
    /// Repairs as `Repair.description` ("file:line: UID "x": what was wrong: what was done").
    var repairs: [String] = []
}

struct StopReading: Error {}

/// One zone database for all tests (it only caches immutable zones).
let testZones = ZoneDatabase()

/// Reads `bytes` fed in chunks of `chunk` bytes (to exercise lines split across chunks), with `workers`
/// worker threads; the event handler throws `StopReading` after `stopAfter` events.
func readICS(_ bytes: [UInt8], label: String = "test.ics", chunk: Int = 1 << 20, fallback: Zone = .utc, firstLine: Int = 1,
             workers: Int = 0, stopAfter: Int? = nil, strict: Bool = false) throws -> ReadResult {
    var result = ReadResult()
    let reader = ICSReader(label: label, zones: testZones, fallbackZone: fallback, firstLine: firstLine, workers: workers, strict: strict, handlers: .init(
        event: {
            result.events.append($0)
            if let stopAfter, result.events.count == stopAfter { throw StopReading() }
        },
        reject: { result.rejections.append("\($0): \($1)") },
        warn: { result.warnings.append($0) },
        skip: { result.skipped.append($0) },
        repair: { result.repairs.append("\($0)") }))
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + chunk)
        try reader.feed(Array(bytes[start..<end]))
        start = end
    }
    try reader.finish()
    return result
}

func readICS(_ text: String, label: String = "test.ics", chunk: Int = 1 << 20, strict: Bool = false) throws -> ReadResult {
    try readICS(Array(text.utf8), label: label, chunk: chunk, strict: strict)
}

/// CRLF-joined iCalendar text from lines.
func ics(_ lines: [String]) -> String { lines.joined(separator: "\r\n") + "\r\n" }
