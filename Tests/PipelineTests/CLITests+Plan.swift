import Foundation
import XCTest
@testable import Pipeline

/// Issue 17, item 5: a pipeline with `split` and no `expand` gets one (recurring events keep every
/// occurrence), and `validate` / `run --dry-run` print the resolved plan.
extension CLITests {
    private func writeFile(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// A weekly stand-up (four Mondays in the window) and a one-off meeting; the pipeline has split only.
    private func splitOnlyPipeline() throws -> URL {
        let dir = try TestSupport.temporaryDirectory()
        try writeFile("""
            [{"uid": "standup", "title": "Stand-up", "start": "2026-11-02T09:00:00", "end": "2026-11-02T09:15:00",
              "timezone": "Europe/Berlin", "rrule": "FREQ=WEEKLY;BYDAY=MO"},
             {"uid": "review", "title": "Review", "start": "2026-11-04T14:00:00", "end": "2026-11-04T15:00:00", "timezone": "Europe/Berlin"}]
            """, to: dir.appendingPathComponent("feed.json"))
        try writeFile("""
            {"name": "team", "timezone": "Europe/Berlin", "window": {"from": "2026-11-01", "to": "2026-11-29"},
             "sources": [{"type": "json", "path": "feed.json"}], "stages": [{"type": "split"}],
             "sinks": [{"type": "json", "path": "out.json", "shape": "days"}]}
            """, to: dir.appendingPathComponent("team.json"))
        return dir
    }

    static let expandNote = "added {\"type\": \"expand\"} in front of \"split\": without it recurring events keep only their first occurrence (add it to \"stages\" to silence this note)"

    func testValidatePrintsTheResolvedPlanWithTheAddedExpand() throws {
        let dir = try splitOnlyPipeline()
        let result = try calpipe(["validate", "team.json"], in: dir)
        XCTAssertEqual(result.code, 0)
        XCTAssertEqual(result.stdout, """
            team.json: ok: "team", 1 source, 2 stages, 1 sink, time zone Europe/Berlin, window 2026-11-01 to 2026-11-29 (exclusive)
            plan of "team":
              time zone: Europe/Berlin
              window: 2026-11-01 to 2026-11-28 (28 days; "to" 2026-11-29 is exclusive)
              sources:
                1. json feed.json
              stages:
                1. expand (added)
                2. split
              sinks:
                1. json out.json
              note: \(Self.expandNote)

            """)
    }

    func testSplitWithoutExpandKeepsEveryOccurrenceAndSaysSo() throws {
        let dir = try splitOnlyPipeline()
        let result = try calpipe(["run", "team.json"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("calpipe: note: \(Self.expandNote)\n"), result.stderr)
        let doc = try JSONParser.parse(String(contentsOf: dir.appendingPathComponent("out.json"), encoding: .utf8))
        let titles = (doc.value(atDottedPath: "days")?.arrayValue ?? []).flatMap { $0.value(atDottedPath: "entries")?.arrayValue ?? [] }
            .compactMap { $0.value(atDottedPath: "title")?.stringValue }
        XCTAssertEqual(titles.filter { $0 == "Stand-up" }.count, 4, "every Monday of the window")
        XCTAssertEqual(titles.filter { $0 == "Review" }.count, 1)

        let dry = try calpipe(["run", "team.json", "--dry-run"], in: dir)
        XCTAssertEqual(dry.code, 0)
        XCTAssertTrue(dry.stderr.contains("calpipe:   stages:\ncalpipe:     1. expand (added)\ncalpipe:     2. split\n"), dry.stderr)
    }

    func testAPipelineWithExpandIsLeftAsWritten() throws {
        let dir = try splitOnlyPipeline()
        var text = try String(contentsOf: dir.appendingPathComponent("team.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""stages": [{"type": "split"}]"#, with: #""stages": [{"type": "expand"}, {"type": "split"}]"#)
        try writeFile(text, to: dir.appendingPathComponent("team.json"))
        let result = try calpipe(["validate", "team.json"], in: dir)
        XCTAssertFalse(result.stdout.contains("note:"))
        XCTAssertTrue(result.stdout.contains("    1. expand\n    2. split\n"))
    }
}
