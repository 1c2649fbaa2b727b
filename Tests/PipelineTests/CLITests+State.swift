import CalpipeKit
import Foundation
import XCTest

/// `calpipe state PIPELINE`: the plugins' states as JSON, from the state folder or the pipeline's database.
extension CLITests {
    /// Runs `pipeline` in this process with the test's cursor source in place of its sources, keeping states as
    /// `calpipe run` does.
    private func runWithCursor(_ file: URL, environment: [String: String]) throws {
        let loaded = try PipelineLoader.standard(environment: environment).load(file: file.path)
        let source = PluginStateTests.CursorSource(name: "feed", box: PluginStateTests.CursorSource.Box())
        let context = RunContext(environment: loaded.environment, quiet: true)
        var runner = Runner()
        runner.stateFile = PluginStateFile.path(for: file.path, environment: environment)
        try runner.run(PipelineDefinition(environment: loaded.environment, sources: [source], sourceLabels: ["feed"],
                                          stages: [ExpandStage(), SplitStage()], sinks: loaded.sinks), context: context)
    }

    func testStatePrintsTheStateOfTheLastSuccessfulRunAsJSON() throws {
        let dir = try TestSupport.temporaryDirectory()
        let environment = ["CALPIPE_STATE": dir.appendingPathComponent("state").path, "TZ": "UTC"]
        let file = dir.appendingPathComponent("P.json")
        try #"{"name": "p", "sources": [{"type": "ics", "path": "feed.ics", "name": "feed"}], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "json", "path": "out.json"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let stateFile = try XCTUnwrap(PluginStateFile.path(for: file.path, environment: environment))

        let before = try calpipe(["state", file.path], environment: environment)
        XCTAssertEqual(before.code, 0, before.stderr)
        XCTAssertEqual(before.stdout, """
            {
              "pipeline": "p",
              "store": "\(stateFile)",
              "plugins": {}
            }

            """)

        try runWithCursor(file, environment: environment)
        let after = try calpipe(["state", file.path], environment: environment)
        XCTAssertEqual(after.code, 0, after.stderr)
        XCTAssertEqual(after.stdout, """
            {
              "pipeline": "p",
              "store": "\(stateFile)",
              "plugins": {
                "feed": {
                  "cursor": 1
                }
              }
            }

            """)
        XCTAssertEqual(after.stderr, "")
    }

    func testStateReadsTheDatabaseOfTheSQLiteSink() throws {
        let dir = try TestSupport.temporaryDirectory()
        let environment = ["CALPIPE_STATE": dir.appendingPathComponent("state").path, "CALPIPE_LOCKS": dir.appendingPathComponent("locks").path, "TZ": "UTC"]
        let file = dir.appendingPathComponent("P.json")
        try #"{"name": "p", "sources": [{"type": "ics", "path": "feed.ics", "name": "feed"}], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "sqlite", "path": "out/agenda.db"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        try runWithCursor(file, environment: environment)
        let result = try calpipe(["state", "P.json"], in: dir, environment: environment)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, """
            {
              "pipeline": "p",
              "store": "sqlite out/agenda.db",
              "plugins": {
                "feed": {
                  "cursor": 1
                }
              }
            }

            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: PluginStateFile.path(for: file.path, environment: environment)!))
    }
}
