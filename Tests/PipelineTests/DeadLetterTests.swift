import Foundation
import XCTest

/// `--rejected FILE` and the pipeline's `"rejected"` key (DeadLetterFile): nothing rejected is lost. A run of three
/// sources with one bad event each (iCalendar, a JSON array, NDJSON) writes three lines with everything needed to
/// find and fix each record.
final class DeadLetterTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        try write("""
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//test//EN\r
        BEGIN:VEVENT\r
        UID:good@example.org\r
        DTSTART:20261013T090000Z\r
        SUMMARY:Good\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:bad@example.org\r
        DTSTART:sometime soon\r
        SUMMARY:No start\r
        END:VEVENT\r
        END:VCALENDAR\r

        """, to: "feeds/team.ics")
        try write("""
        [ { "uid": "ok-1", "title": "Fine", "start": "2026-10-14T10:00:00" },
          { "uid": "late", "title": "When?", "start": "next tuesday" } ]
        """, to: "feeds/rooms.json")
        try write("""
        {"uid": "n-1", "title": "Line one", "start": "2026-10-15"}
        {"uid": "n-2", "title": "Line two", "start": 
        {"uid": "n-3", "title": "Line three", "start": "2026-10-16"}

        """, to: "feeds/stream.ndjson")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func url(_ path: String) -> URL { dir.appendingPathComponent(path) }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url(path), atomically: true, encoding: .utf8)
    }

    private func writePipeline(rejectedKey: String = "") throws {
        try write("""
        { "name": "letters", "timezone": "Europe/Berlin", "window": { "from": "2026-10-12", "to": "2026-10-19" },\(rejectedKey)
          "sources": [ { "type": "ics", "name": "team", "path": "../feeds/team.ics" },
                       { "type": "json", "name": "rooms", "path": "../feeds/rooms.json" },
                       { "type": "json", "name": "stream", "path": "../feeds/stream.ndjson" } ],
          "sinks": [ { "type": "json", "path": "../out/events.json", "shape": "events" } ] }
        """, to: "pipelines/letters.json")
    }

    private func calpipe(_ arguments: [String]) throws -> CalpipeProcess.Result {
        try CalpipeProcess.run(arguments, in: dir, environment: [
            "CALPIPE_STATE": url("state/runs").path, "CALPIPE_LOCKS": url("state/locks").path,
            "SOURCE_DATE_EPOCH": "1795000000", "NO_COLOR": "1",
        ])
    }

    private func letters(_ path: String) throws -> [[String: Any]] {
        try String(contentsOf: url(path), encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testEveryRejectedRecordIsWrittenWithItsReasonSourcePlaceAndText() throws {
        try writePipeline()
        let result = try calpipe(["run", "pipelines/letters.json", "--rejected", "out/rejected.ndjson"])
        XCTAssertEqual(result.code, 3, result.stderr)
        let lines = try letters("out/rejected.ndjson")
        XCTAssertEqual(lines.count, 3, "\(lines)")
        for line in lines {
            XCTAssertEqual(line["pipeline"] as? String, "letters")
            XCTAssertEqual(line["run"] as? String, ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_795_000_000)))
        }

        let ics = lines[0]
        XCTAssertEqual(ics["source"] as? String, "team")
        XCTAssertEqual(ics["file"] as? String, "feeds/team.ics")
        XCTAssertEqual(ics["line"] as? Int, 11)
        XCTAssertTrue((ics["reason"] as? String)?.contains("sometime soon") == true, "\(ics)")
        XCTAssertEqual(ics["raw"] as? String,
                       "BEGIN:VEVENT\r\nUID:bad@example.org\r\nDTSTART:sometime soon\r\nSUMMARY:No start\r\nEND:VEVENT\r\n")

        let json = lines[1]
        XCTAssertEqual(json["source"] as? String, "rooms")
        XCTAssertEqual(json["file"] as? String, "feeds/rooms.json")
        XCTAssertEqual(json["path"] as? String, "[1].start")
        XCTAssertTrue((json["reason"] as? String)?.contains("next tuesday") == true, "\(json)")
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(XCTUnwrap(json["raw"] as? String).utf8)) as? [String: String])
        XCTAssertEqual(record, ["uid": "late", "title": "When?", "start": "next tuesday"])

        let ndjson = lines[2]
        XCTAssertEqual(ndjson["source"] as? String, "stream")
        XCTAssertEqual(ndjson["file"] as? String, "feeds/stream.ndjson")
        XCTAssertEqual(ndjson["line"] as? Int, 2)
        XCTAssertEqual(ndjson["reason"] as? String, "invalid JSON (the line ends inside a value)")
        XCTAssertEqual(ndjson["raw"] as? String, #"{"uid": "n-2", "title": "Line two", "start": "#)

        // The good events were written (the NDJSON line after the broken one too); the summary said what was
        // rejected, as without the file.
        XCTAssertTrue(result.stderr.contains("3 rejected"), result.stderr)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url("out/events.json"))) as? [[String: Any]])
        XCTAssertEqual(Set(written.compactMap { $0["uid"] as? String }), ["good@example.org", "ok-1", "n-1", "n-3"])
    }

    /// The pipeline's key works like the option (its path from the pipeline file's folder); a second run appends.
    func testThePipelineKeyAppendsRunAfterRun() throws {
        try writePipeline(rejectedKey: #" "rejected": "../out/dead.ndjson","#)
        XCTAssertEqual(try calpipe(["run", "pipelines/letters.json"]).code, 3)
        XCTAssertEqual(try letters("out/dead.ndjson").count, 3)
        XCTAssertEqual(try calpipe(["run", "pipelines/letters.json", "--full"]).code, 3)
        XCTAssertEqual(try letters("out/dead.ndjson").count, 6)
    }

    func testAFileThatCannotBeWrittenIsOneLine() throws {
        try writePipeline()
        try write("", to: "blocker")
        let result = try calpipe(["run", "pipelines/letters.json", "--rejected", "blocker/rejected.ndjson"])
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.contains("rejected records") }.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: error: cannot write the rejected records: "), result.stderr)
    }
}
