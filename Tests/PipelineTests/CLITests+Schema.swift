import Foundation
import XCTest
@testable import Pipeline

/// `calpipe schema`, checked by an independent validator (python jsonschema, installed by .ci/run): the
/// bundled pipelines and every pipeline example in README.md and docs/ are valid, and mistakes are caught.
extension CLITests {
    private func checkWithJSONSchema(_ files: [String]) throws -> (code: Int32, output: String) {
        let dir = try TestSupport.temporaryDirectory()
        let schema = try calpipe(["schema"])
        XCTAssertEqual(schema.code, 0, schema.stderr)
        let schemaFile = dir.appendingPathComponent("pipeline.schema.json")
        try schema.stdout.write(to: schemaFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "scripts/check-pipeline-schema.py", schemaFile.path] + files
        process.currentDirectoryURL = TestSupport.repositoryRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        // scripts/test (the README's test command) provides jsonschema; a bare `swift test` without it skips.
        if output.contains("No module named 'jsonschema'"), ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] != "1" {
            throw XCTSkip("python jsonschema is not installed (scripts/test installs it)")
        }
        return (process.terminationStatus, output)
    }

    func testSchemaAcceptsTheBundledPipelinesAndEveryDocumentedExample() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: TestSupport.repositoryRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let result = try checkWithJSONSchema(["pipelines/demo.json", "pipelines/forecast-live.json", "--markdown", "README.md"] + docs)
        XCTAssertEqual(result.code, 0, result.output)
        XCTAssertTrue(result.output.contains("ok pipelines/demo.json"), result.output)
        XCTAssertTrue(result.output.contains("ok README.md#1"), result.output)
    }

    func testSchemaRejectsUnknownOptionsWrongKindsAndValues() throws {
        let bad = try TestSupport.temporaryDirectory().appendingPathComponent("bad.json")
        try #"{"sources": [{"type": "ics", "path": "a.ics", "nmae": "x"}], "window": {"from": "tomorrow", "to": "today"}, "stages": [{"type": "expnad"}], "sinks": [{"type": "json", "path": "o.json", "shape": "day", "pretty": "yes"}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        let result = try checkWithJSONSchema([bad.path])
        XCTAssertEqual(result.code, 1, result.output)
        for expected in ["sinks[0].shape: 'day' is not one of ['days', 'events', 'occurrences']",
                         "sinks[0].pretty: 'yes' is not of type 'boolean'",
                         "sources[0]: Additional properties are not allowed ('nmae' was unexpected)",
                         "stages[0].type: 'expnad' is not one of",
                         "window.from: 'tomorrow' does not match"] {
            XCTAssertTrue(result.output.contains(expected), "missing \(expected) in:\n\(result.output)")
        }
    }

    /// The schema's top level follows the loader's keys, so a new key cannot be forgotten in one of them.
    func testSchemaTopLevelMatchesTheLoader() throws {
        let schema = try JSONParser.parse(try calpipe(["schema"]).stdout)
        XCTAssertEqual(schema.value(atDottedPath: "properties")?.objectValue?.keys.sorted(), PipelineLoader.topLevelKeys.sorted())
    }
}
