import Foundation
import XCTest

/// The command line's own messages: unknown options, misspelt zones, the summary's singular and plural.
/// (Bare `calpipe` and unknown commands: CLITests+Operators.)
final class CLIUsageTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    func testAnUnknownOptionNamesTheClosestOne() throws {
        let result = try CalpipeProcess.run(["run", "--quite", "p.json"], in: dir)
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.hasPrefix("Error: Unknown option '--quite'. Did you mean '--quiet'?\n"), result.stderr)
    }

    func testAMisspeltTimeZoneNamesTheClosestOne() throws {
        try #"[{"uid": "a", "title": "A", "start": "2026-11-02T10:00:00Z"}]"#.write(to: dir.appendingPathComponent("in.json"), atomically: true, encoding: .utf8)
        let result = try CalpipeProcess.run(["convert", "in.json", "-o", "out.ics", "--tz", "Europe/Berln"], in: dir)
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "calpipe convert: timezone: unknown time zone \"Europe/Berln\" (expected an IANA name such as \"Europe/Berlin\"); did you mean \"Europe/Berlin\"?\n")
    }

    func testTheSummarySaysOneAndManyRight() throws {
        try #"[{"uid": "a", "title": "A", "start": "2026-11-02T10:00:00Z", "duration": "PT1H"}]"#.write(to: dir.appendingPathComponent("in.json"), atomically: true, encoding: .utf8)
        try """
            { "name": "one", "timezone": "UTC", "window": { "from": "2026-11-01", "to": "2026-11-08" },
              "sources": [ { "type": "json", "path": "in.json" } ], "stages": [ { "type": "expand" }, { "type": "split" } ],
              "sinks": [ { "type": "json", "path": "out/days.json" } ] }
            """.write(to: dir.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
        let result = try CalpipeProcess.run(["run", "p.json"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("calpipe: one: 1 event read, 1 occurrence, 1 day entry, 0 rejected, ") == true, result.stderr)
        XCTAssertEqual(lines.dropFirst().first, "calpipe:   json out/days.json: 1 row written")
    }
}
