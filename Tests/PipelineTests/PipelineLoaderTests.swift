import CalpipeKit
import Exporters
import XCTest
@testable import Pipeline

final class PipelineLoaderTests: XCTestCase {
    static var registry: PluginRegistry { .standard }

    /// 2026-11-22 12:00 UTC.
    let now = Date(timeIntervalSince1970: 1_795_348_800)

    private func load(_ text: String, env: [String: String] = ["TZ": "UTC"]) throws -> PipelineDefinition {
        let loader = PipelineLoader(registry: Self.registry, environment: env, now: now)
        return try loader.load(json: try JSONParser.parse(text), file: "pipelines/team.json", baseDirectory: URL(fileURLWithPath: "/srv/cal/pipelines"))
    }

    private func issues(_ text: String, env: [String: String] = ["TZ": "UTC"]) -> [String] {
        do {
            _ = try load(text, env: env)
            return []
        } catch let e as ConfigErrors {
            return e.issues.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    func testMisspeltTypeWrongOptionTypeAndUnknownKeyAreAllReported() {
        let found = issues("""
        {
          "name": "team",
          "sources": [ { "type": "json", "path": "a.json" } ],
          "stages": [ { "type": "splt" } ],
          "sinks": [ { "type": "json", "path": "out.json", "shape": "events", "ndjson": "yes", "pth": "x" } ]
        }
        """)
        XCTAssertEqual(found, [
            "pipelines/team.json: stages[0].type: unknown stage type \"splt\" (known: \(Self.registry.typeNames(.stage).joined(separator: ", "))); did you mean \"split\"?",
            "pipelines/team.json: sinks[0].pth: unknown option (expected one of: path, shape, ndjson, pretty, empty_days); did you mean \"path\"?",
            "pipelines/team.json: sinks[0].ndjson: expected a boolean (true or false), got a string \"yes\"",
        ])
    }

    func testUnknownChoiceSuggestsTheClosestValue() {
        let found = issues("""
        {"sources": [{"type": "json", "path": "a.json"}], "stages": [{"type": "split"}],
         "sinks": [{"type": "json", "path": "o.json", "shape": "day"}]}
        """)
        XCTAssertEqual(found, ["pipelines/team.json: sinks[0].shape: unknown value \"day\" (expected one of: days, events, occurrences); did you mean \"days\"?"])
    }

    func testMissingSectionsAndTopLevelTypos() {
        let found = issues("""
        {"name": "x", "timezon": "Europe/Berlin", "sinks": []}
        """)
        XCTAssertEqual(found, [
            "pipelines/team.json: timezon: unknown key (expected one of: name, description, timezone, window, location, locale, sources, stages, sinks, rejected, serve); did you mean \"timezone\"?",
            "pipelines/team.json: sources: missing (expected an array of source objects, each with a \"type\")",
            "pipelines/team.json: sinks: expected at least one sink",
        ])
    }

    func testDaysSinkWithoutSplitStageIsAnError() {
        let found = issues("""
        {"sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "days"}]}
        """)
        XCTAssertEqual(found, ["pipelines/team.json: sinks[0]: this sink writes day entries, but no stage makes them (add {\"type\": \"split\"} to \"stages\")"])
    }

    func testRelativeWindowsAreDaysInThePipelineZone() throws {
        let p = try load("""
        {"timezone": "Pacific/Auckland", "window": {"from": "today-1w", "to": "today+60d"},
         "sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """)
        // 12:00 UTC on the 22nd is already the 23rd in Auckland.
        XCTAssertEqual(p.environment.today.iso8601, "2026-11-23")
        XCTAssertEqual(p.environment.window, Window(from: TestSupport.date(2026, 11, 16), to: TestSupport.date(2027, 1, 22)))
        XCTAssertEqual(p.environment.zone.identifier, "Pacific/Auckland")
    }

    func testBadWindowValues() {
        let found = issues("""
        {"window": {"from": "yesterday", "to": "2026-13-01"},
         "sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """)
        XCTAssertEqual(found, [
            "pipelines/team.json: window.from: invalid date \"yesterday\" (expected YYYY-MM-DD, today, today+Nd or today-Nw)",
            "pipelines/team.json: window.to: invalid date \"2026-13-01\" (expected YYYY-MM-DD, today, today+Nd or today-Nw)",
        ])
        XCTAssertEqual(issues("""
        {"window": {"from": "2026-12-01", "to": "2026-11-01"},
         "sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """), ["pipelines/team.json: window.to: the window ends (2026-11-01) before or when it starts (2026-12-01); \"to\" is exclusive"])
    }

    func testEnvironmentInterpolationAndRelativePaths() throws {
        let p = try load("""
        {"name": "${TEAM:-default-team}", "timezone": "${ZONE}",
         "sources": [{"type": "json", "path": "${DATA_DIR}/agenda.json"}],
         "sinks": [{"type": "json", "path": "out/$${literal}.json", "shape": "events"}]}
        """, env: ["ZONE": "Europe/Berlin", "DATA_DIR": "../data"])
        XCTAssertEqual(p.environment.name, "default-team")
        XCTAssertEqual(p.environment.zone.identifier, "Europe/Berlin")
        XCTAssertEqual(p.sourceLabels, ["../data/agenda.json"])
        XCTAssertEqual((p.sinks[0] as? JSONExporter)?.path, "/srv/cal/pipelines/out/${literal}.json")
        XCTAssertEqual(p.environment.resolve(path: "../data/agenda.json"), "/srv/cal/data/agenda.json")
    }

    func testUnsetEnvironmentVariableIsReportedAtItsPath() {
        XCTAssertEqual(issues("""
        {"sources": [{"type": "json", "path": "${FEED}"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """), ["pipelines/team.json: sources[0].path: environment variable FEED is not set (write ${FEED:-default} for a fallback)"])
    }

    func testTimezoneDefaultsToTZThenSystem() throws {
        let p = try load("""
        {"sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """, env: ["TZ": "America/New_York"])
        XCTAssertEqual(p.environment.zone.identifier, "America/New_York")
        XCTAssertEqual(issues("""
        {"timezone": "Europe/Berln", "sources": [{"type": "json", "path": "a.json"}], "sinks": [{"type": "json", "path": "o.json", "shape": "events"}]}
        """), ["pipelines/team.json: timezone: unknown time zone \"Europe/Berln\" (expected an IANA name such as \"Europe/Berlin\"); did you mean \"Europe/Berlin\"?"])
    }

    func testSyntaxErrorInPipelineFileReportsLineAndColumn() throws {
        let dir = try TestSupport.temporaryDirectory()
        let file = dir.appendingPathComponent("broken.json")
        try "{\n  \"name\": \"x\",\n  \"sources\": [ { \"type\": \"json\" \"path\": \"a\" } ]\n}\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try PipelineLoader(registry: Self.registry, environment: [:], now: now).load(file: file.path)) { error in
            XCTAssertEqual((error as? ConfigErrors)?.description, "\(file.path): line 3, column 33: expected \",\" or \"}\" in object, found \"\"\"")
        }
    }
}
