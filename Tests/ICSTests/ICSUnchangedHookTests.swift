import Foundation
import XCTest
@testable import Importers
import Pipeline

/// The reader's `unchanged` hook (incremental runs, docs/incremental.md "Events left unparsed"): it sees the hash of
/// each VEVENT's raw text exactly as of the event's `sourceText` (so the sink's stored hash and the reader's agree), an
/// event it claims is left out and the others come out as without the hook, on one thread and with workers;
/// events with a problem are never offered. And the `ics` source's context hash ignores the events' own lines.
final class ICSUnchangedHookTests: XCTestCase {
    static let feed = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        BEGIN:VEVENT\r
        UID:a\r
        DTSTART:20261110T100000Z\r
        SUMMARY:A long title that is folded over two lines because it is longer than seventy-five octets\r
          in all\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:b\r
        DTSTART;VALUE=DATE:20261111\r
        SUMMARY:B\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:c\r
        DTSTART:20261112T100000Z\r
        SUMMARY:C\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:broken\r
        DTSTART:not a time\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    private func read(workers: Int, unchanged: ((Int64, Int) -> Bool)?) throws -> [Event] {
        var events: [Event] = []
        var handlers = ICSReader.Handlers(event: { events.append($0) }, reject: { _, _ in })
        handlers.unchanged = unchanged
        let reader = ICSReader(label: "t.ics", zones: testZones, fallbackZone: .utc, workers: workers, handlers: handlers)
        try reader.parse(Self.feed)
        return events
    }

    func testTheHookSeesTheSourceTextAndLeavesOutWhatItClaims() throws {
        for workers in [0, 2] {
            let all = try read(workers: workers, unchanged: nil)
            XCTAssertEqual(all.map(\.uid), ["a", "b", "c"])
            var offered: [(hash: Int64, line: Int)] = []
            let b = all.first { $0.uid == "b" }?.rawTextHash
            let kept = try read(workers: workers, unchanged: { hash, line in
                offered.append((hash, line))
                return hash == b
            })
            // Every event the scanner found no problem in is offered (the broken DTSTART is found by the parser,
            // after the offer), with the hash of its sourceText and the line of its BEGIN.
            XCTAssertEqual(offered.count, 4)
            XCTAssertEqual(offered.prefix(3).map { Optional($0.hash) }, all.map(\.rawTextHash), "workers \(workers)")
            XCTAssertEqual(offered.map(\.line), [3, 9, 18, 23])
            XCTAssertEqual(all.map { $0.origin?.line }, [3, 9, 18])
            XCTAssertEqual(kept.map(\.uid), ["a", "c"])
            XCTAssertEqual(kept, all.filter { $0.uid != "b" })
        }
    }

    func testContextHashIgnoresEventLinesOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-context-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func hash(_ text: String) throws -> String? {
            let path = dir.appendingPathComponent("f.ics").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            var scan = IncrementalRun.TextScan()
            return ICSSource.scan(path: path, into: &scan, known: { _ in StoredText(id: 1, startUTC: 0, spanEndUTC: nil, series: nil) })
        }
        let base = try hash(Self.feed)
        XCTAssertNotNil(base)
        // The quick pass finds each event's raw text as the scanner does (folded lines, a nested VALARM): it counts
        // the texts it is told are stored series parts, and notes the UIDs of those it is told are unknown.
        let path = dir.appendingPathComponent("f.ics").path
        try Self.feed.replacingOccurrences(of: "\r\n", with: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let part: (Int64) -> StoredText? = { StoredText(id: $0, startUTC: 0, spanEndUTC: nil, series: 1) }
        var scan = IncrementalRun.TextScan()
        XCTAssertEqual(ICSSource.scan(path: path, into: &scan, known: { _ in nil }), base)
        var parts = IncrementalRun.TextScan()
        XCTAssertEqual(ICSSource.scan(path: path, into: &parts, known: part), base)
        var offered: [Int64] = []
        _ = try read(workers: 0, unchanged: { hash, _ in
            offered.append(hash)
            return false
        })
        XCTAssertEqual(parts.texts, Dictionary(uniqueKeysWithValues: offered.map { ($0, 1) }))
        XCTAssertEqual(parts.newUIDs, [])
        XCTAssertEqual(scan.texts, [:])
        XCTAssertEqual(scan.newUIDs, ["a", "b", "c", "broken"])
        // The same whatever the chunks (lines, folds and CRLFs split anywhere).
        try Self.feed.write(toFile: path, atomically: false, encoding: .utf8)
        for chunkSize in [1, 2, 3, 5, 7, 64] {
            var small = IncrementalRun.TextScan()
            XCTAssertEqual(ICSSource.scan(path: path, into: &small, known: { _ in nil }, chunkSize: chunkSize), base, "chunks of \(chunkSize)")
            XCTAssertEqual(small.newUIDs, scan.newUIDs, "chunks of \(chunkSize)")
            small = IncrementalRun.TextScan()
            XCTAssertEqual(ICSSource.scan(path: path, into: &small, known: part, chunkSize: chunkSize), base, "chunks of \(chunkSize)")
            XCTAssertEqual(small.texts, parts.texts, "chunks of \(chunkSize)")
        }
        scan = IncrementalRun.TextScan()
        try Self.feed.replacingOccurrences(of: "UID:c", with: "UID;X-P=1:c").write(toFile: path, atomically: false, encoding: .utf8)
        _ = ICSSource.scan(path: path, into: &scan, known: { _ in nil })
        XCTAssertNil(scan.newUIDs, "a UID with parameters is not read for sure")
        XCTAssertEqual(try hash(Self.feed.replacingOccurrences(of: "SUMMARY:C", with: "SUMMARY:D")), base)
        XCTAssertEqual(try hash(Self.feed.replacingOccurrences(of: "BEGIN:VEVENT\r\nUID:c", with: "begin:vevent\r\nUID:c")), base)
        XCTAssertNotEqual(try hash(Self.feed.replacingOccurrences(of: "VERSION:2.0", with: "VERSION:2.0\r\nX-WR-CALNAME:Team")), base)
        let zone = "BEGIN:VTIMEZONE\r\nTZID:X\r\nEND:VTIMEZONE\r\n"
        XCTAssertNotEqual(try hash(Self.feed.replacingOccurrences(of: "END:VCALENDAR", with: zone + "END:VCALENDAR")), base)
        // Line ends are not context: the scanner gives every line of an event's text a CRLF either way.
        XCTAssertEqual(try hash(Self.feed.replacingOccurrences(of: "\r\n", with: "\n")), base)
    }
}
