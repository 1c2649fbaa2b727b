import Foundation
import XCTest
@testable import Importers
import Pipeline

/// The quick pass's regions (`ICSUnchangedRegions`, docs/incremental.md "Events left unparsed"): reading a file
/// with them, which skips the bytes of the events the check leaves out, gives exactly what reading it whole with the
/// same check gives (events with their lines, rejections, warnings, repairs, the events left out and the lines the
/// check is told), whatever the chunks and workers, and on feeds where the scanner reads an event otherwise than
/// the quick pass (inside a skipped component, after an unclosed one, bare CRs, nested components, text that is not
/// UTF-8, a file without a last line end).
final class ICSUnchangedRegionsTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-regions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private static func event(_ uid: String, _ lines: String = "") -> String {
        "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTART:20261110T100000Z\r\nSUMMARY:Event \(uid)\r\n\(lines)END:VEVENT\r\n"
    }

    private static let alarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"

    /// What one read of a file gave.
    private struct Outcome: Equatable {
        var events: [Event] = []
        var log: [String] = []
        var leftOut: [String] = []
    }

    /// Reads `bytes` from a file, the events whose text hash is in `claimed` left out, with or without regions.
    private func read(_ bytes: [UInt8], claimed: Set<Int64>, regions: Bool, chunkSize: Int, workers: Int,
                      skipped: inout Int) throws -> Outcome {
        let path = dir.appendingPathComponent("feed.ics").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var found: ICSUnchangedRegions?
        var scan = IncrementalRun.TextScan()
        XCTAssertNotNil(ICSSource.scan(path: path, into: &scan, known: { claimed.contains($0) ? StoredText(id: $0, startUTC: 0, spanEndUTC: nil, series: nil) : nil }, regions: regions ? { found = $0 } : nil))
        var out = Outcome()
        var handlers = ICSReader.Handlers(event: { out.events.append($0) }, reject: { out.log.append("reject \($0): \($1)") },
                                          warn: { out.log.append("warn \($0)") }, skip: { out.log.append("skip \($0)") },
                                          repair: { out.log.append("repair \($0)") })
        handlers.unchanged = { hash, line in
            guard claimed.contains(hash) else { return false }
            out.leftOut.append("\(hash) at \(line)")
            return true
        }
        let reader = ICSReader(label: "feed.ics", zones: testZones, fallbackZone: .utc, workers: workers, handlers: handlers)
        var feeder = ICSUnchangedRegions.Feeder(found, path: path)
        try ChunkReader(path: path).forEachChunk(chunkSize: chunkSize) { chunk in
            // The stored event's id is the hash of its text (above): the hook is told the same as for a text read.
            try feeder.feed(chunk, to: reader) { stored, line in handlers.unchanged!(stored.id, line) }
        }
        try reader.finish()
        skipped = feeder.skipped
        return out
    }

    /// Every event's text claimed unchanged but `keep`'s: the same outcome with and without regions; returns how many
    /// events were skipped unread (the largest chunks, no workers).
    @discardableResult
    private func assertSameOutcome(_ text: String, keep: Set<String> = [], also: [String] = [],
                                   file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        try assertSameOutcome(Array(text.utf8), keep: keep, also: also, file: file, line: line)
    }

    /// `also`: texts of events stored from another file, claimed too.
    @discardableResult
    private func assertSameOutcome(_ bytes: [UInt8], keep: Set<String> = [], also: [String] = [],
                                   file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var unused = 0
        let all = try read(bytes, claimed: [], regions: false, chunkSize: 1 << 20, workers: 0, skipped: &unused)
        var claimed = Set(all.events.filter { !keep.contains($0.uid) }.compactMap(\.rawTextHash))
        for text in also {
            var text = text
            claimed.insert(text.withUTF8 { Fingerprint.rawText(bytes: UnsafeRawBufferPointer($0)) })
        }
        var skippedInBigChunks = 0
        for workers in [0, 2] {
            for chunkSize in [1, 3, 7, 64, 1 << 20] {
                var skipped = 0
                let whole = try read(bytes, claimed: claimed, regions: false, chunkSize: chunkSize, workers: workers, skipped: &skipped)
                XCTAssertEqual(skipped, 0, file: file, line: line)
                let skipping = try read(bytes, claimed: claimed, regions: true, chunkSize: chunkSize, workers: workers, skipped: &skipped)
                XCTAssertEqual(skipping, whole, "chunks of \(chunkSize), \(workers) workers", file: file, line: line)
                if chunkSize == 1 << 20 && workers == 0 { skippedInBigChunks = skipped }
            }
        }
        return skippedInBigChunks
    }

    /// More than the 64 bytes the scanner reads before it knows the input is iCalendar (before that nothing is skipped).
    private static let header = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe tests//regions//EN\r\n"

    private static func calendar(_ body: String) -> String {
        header + body + "END:VCALENDAR\r\n"
    }

    func testPlainEventsAreSkippedUnreadWithTheSameOutcome() throws {
        // Folded lines (the END line too), blank lines, lower case, LF line ends, a duplicate text, one event kept.
        let body = Self.event("a", "DESCRIPTION:a long line\r\n  folded\r\n") + Self.event("b") + "\r\n"
            + "begin:vevent\r\nUID:c\r\nDTSTART:20261111T100000Z\r\n\r\nend:vevent\r\n"
            + Self.event("d").replacingOccurrences(of: "END:VEVENT\r\n", with: "END:VEV\r\n ENT\r\n")
            + Self.event("e").replacingOccurrences(of: "\r\n", with: "\n") + Self.event("b") + Self.event("kept")
        XCTAssertEqual(try assertSameOutcome(Self.calendar(body), keep: ["kept"]), 6)
        // With a VALARM: skipped when the text is ASCII; else read (the scanner parses such an event's lines when
        // the VALARM begins, and says once that the text is not UTF-8).
        XCTAssertEqual(try assertSameOutcome(Self.calendar(Self.event("f", Self.alarm) + Self.event("g"))), 2)
        var latin1 = Array(Self.calendar(Self.event("h", "LOCATION:Caf\u{1}\r\n" + Self.alarm) + Self.event("i")).utf8)
        latin1[latin1.firstIndex(of: 1)!] = 0xE9
        XCTAssertEqual(try assertSameOutcome(latin1), 1)
        // Not UTF-8 in a plain event: it is left out unparsed either way, with no warning.
        latin1 = Array(Self.calendar(Self.event("j", "LOCATION:Caf\u{1}\r\n") + Self.event("k")).utf8)
        latin1[latin1.firstIndex(of: 1)!] = 0xE9
        XCTAssertEqual(try assertSameOutcome(latin1), 2)
    }

    func testEventsTheScannerReadsOtherwiseAreRead() throws {
        // Inside a skipped VTODO, after an unclosed VTIMEZONE, with an x-component or an unclosed VALARM in it, at
        // the end of a file without a last line end: read as usual (the check still leaves out what it claims).
        let todo = "BEGIN:VTODO\r\nUID:t\r\n" + Self.event("in-todo") + "END:VTODO\r\n"
        XCTAssertEqual(try assertSameOutcome(Self.calendar(todo + Self.event("after")), also: [Self.event("in-todo")]), 1)
        let zone = "BEGIN:VTIMEZONE\r\nTZID:X\r\n"
        XCTAssertEqual(try assertSameOutcome(Self.calendar(zone + Self.event("a") + Self.event("b"))), 1)
        let nested = Self.event("x", "BEGIN:X-THING\r\nX-A:1\r\nEND:X-THING\r\n") + Self.event("open", "BEGIN:VALARM\r\nACTION:DISPLAY\r\n")
        XCTAssertEqual(try assertSameOutcome(Self.calendar(nested + Self.event("y"))), 1)
        XCTAssertEqual(try assertSameOutcome(Self.header + Self.event("a") + Self.event("last").dropLast(2)), 1)
        // Bare VEVENTs without their VCALENDAR (the first makes one), a nested VCALENDAR, a byte order mark; before
        // the scanner knows the input is iCalendar nothing is skipped.
        XCTAssertEqual(try assertSameOutcome(Self.event("bare") + Self.event("bare2") + Self.event("at the end")), 1)
        XCTAssertEqual(try assertSameOutcome("BEGIN:VCALENDAR\r\n" + Self.event("early") + "END:VCALENDAR\r\n"), 0)
        XCTAssertEqual(try assertSameOutcome(Self.calendar(Self.calendar(Self.event("inner")) + Self.event("outer"))), 2)
        XCTAssertEqual(try assertSameOutcome("\u{FEFF}" + Self.calendar(Self.event("a"))), 1)
    }

    func testBareCarriageReturnsAndNULBytes() throws {
        // The scanner reads a bare CR as a line end and drops NUL bytes (repairs of the file, said once): events with
        // them have another text than the quick pass's and are read; the others are skipped, their lines counted alike.
        let cr = Self.calendar(Self.event("a") + Self.event("b", "X-A:1\r2\r\n") + Self.event("c") + Self.event("d"))
        XCTAssertEqual(try assertSameOutcome(cr), 3)
        var nul = Array(Self.calendar(Self.event("a") + Self.event("b", "X-A:\u{1}\r\n") + Self.event("c")).utf8)
        nul[nul.firstIndex(of: 1)!] = 0
        XCTAssertEqual(try assertSameOutcome(nul), 2)
    }

    func testAFileChangedAfterTheQuickPassIsReadWhole() throws {
        let path = dir.appendingPathComponent("feed.ics").path
        let text = Self.calendar(Self.event("a") + Self.event("b"))
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var found: ICSUnchangedRegions?
        var scan = IncrementalRun.TextScan()
        _ = ICSSource.scan(path: path, into: &scan, known: { _ in StoredText(id: 1, startUTC: 0, spanEndUTC: nil, series: nil) }, regions: { found = $0 })
        XCTAssertEqual(found?.regions.count, 2)
        XCTAssertEqual(found?.regions.map(\.start), [Self.header.utf8.count, Self.header.utf8.count + Self.event("a").utf8.count])
        XCTAssertEqual(found?.regions.map(\.lines), [5, 5])
        // Rewritten in place (another size, another modification time): the regions are not used.
        try Self.calendar(Self.event("a") + Self.event("bb")).write(toFile: path, atomically: false, encoding: .utf8)
        var events: [String] = []
        var handlers = ICSReader.Handlers(event: { events.append($0.uid) }, reject: { _, _ in })
        handlers.unchanged = { _, _ in true }
        let reader = ICSReader(label: "feed.ics", zones: testZones, fallbackZone: .utc, handlers: handlers)
        var feeder = ICSUnchangedRegions.Feeder(found, path: path)
        try ChunkReader(path: path).forEachChunk { try feeder.feed($0, to: reader) { _, _ in true } }
        try reader.finish()
        XCTAssertEqual(feeder.skipped, 0)
    }
}
