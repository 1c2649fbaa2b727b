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

    /// Every default in the schema is a JSON value of its option's type (not words), and every object the
    /// schema allows has its members typed (`properties` with `additionalProperties: false`, or typed members).
    func testSchemaGivesRealDefaultsAndTypesEveryNestedObject() throws {
        let schema = try JSONParser.parse(try calpipe(["schema"]).stdout)
        var defaults = 0, objects = 0
        func types(_ node: JSONObject) -> [String] {
            switch node["type"] {
            case .string(let t)?: return [t]
            case .array(let list)?: return list.compactMap(\.stringValue)
            default: return []
            }
        }
        func walk(_ value: JSONValue, _ path: String) {
            switch value {
            case .array(let items):
                for (i, item) in items.enumerated() { walk(item, "\(path)[\(i)]") }
            case .object(let node):
                let kinds = types(node)
                if let value = node["default"] {
                    defaults += 1
                    let fits: Bool
                    switch value {
                    case .number(let n): fits = kinds.contains("number") || (kinds.contains("integer") && n == n.rounded())
                    case .bool: fits = kinds.contains("boolean")
                    case .string: fits = kinds.contains("string")
                    case .array: fits = kinds.contains("array")
                    case .object: fits = kinds.contains("object")
                    case .null: fits = false
                    }
                    XCTAssertTrue(fits, "\(path): default \(value.preview) is not a \(kinds)")
                    if let allowed = node["enum"]?.arrayValue { XCTAssertTrue(allowed.contains(value), "\(path): default not allowed") }
                }
                XCTAssertNil(node["$comment"].flatMap { $0.stringValue?.hasPrefix("default") == true ? $0 : nil }, "\(path): a default in words")
                if kinds == ["object"] {
                    objects += 1
                    let typed = node["properties"] != nil ? node["additionalProperties"] == .bool(false) || node["allOf"] != nil || node["then"] != nil
                                                          : node["additionalProperties"]?.objectValue != nil
                    XCTAssertTrue(typed || node["allOf"] != nil, "\(path): an object without typed members")
                }
                for member in node.members { walk(member.value, path.isEmpty ? member.key : path + "." + member.key) }
            default: break
            }
        }
        walk(schema, "")
        XCTAssertGreaterThan(defaults, 40)
        XCTAssertGreaterThan(objects, 5)
        // The sqlite sink's busy timeout, the html sink's nested theme, the window's bounds.
        let sqlite = schema.value(atDottedPath: "properties.sinks.items.allOf")?.arrayValue?
            .first { $0.value(atDottedPath: "if.properties.type.const") == .string("sqlite") }
        XCTAssertEqual(sqlite?.value(atDottedPath: "then.properties.busy_timeout_ms.default"), .number(30_000))
        XCTAssertEqual(sqlite?.value(atDottedPath: "then.properties.busy_timeout_ms.maximum"), .number(86_400_000))
        let html = schema.value(atDottedPath: "properties.sinks.items.allOf")?.arrayValue?
            .first { $0.value(atDottedPath: "if.properties.type.const") == .string("html") }
        XCTAssertEqual(html?.value(atDottedPath: "then.properties.theme.properties.dark.additionalProperties"), .bool(false))
        XCTAssertEqual(html?.value(atDottedPath: "then.properties.theme.properties.dark.properties.accent.type"), .string("string"))
        XCTAssertEqual(schema.value(atDottedPath: "properties.window.required"), .array([.string("from"), .string("to")]))
        XCTAssertEqual(schema.value(atDottedPath: "properties.window.additionalProperties"), .bool(false))
    }

    /// A theme colour that is not "#rrggbb" and an unknown palette key are caught by the schema at their paths.
    func testSchemaChecksNestedObjects() throws {
        let bad = try TestSupport.temporaryDirectory().appendingPathComponent("theme.json")
        try ##"{"sources": [{"type": "ics", "path": "a.ics"}], "sinks": [{"type": "html", "path": "o.html", "theme": {"dark": {"acent": "#fff"}}}]}"##
            .write(to: bad, atomically: true, encoding: .utf8)
        let result = try checkWithJSONSchema([bad.path])
        XCTAssertEqual(result.code, 1, result.output)
        XCTAssertTrue(result.output.contains("sinks[0].theme.dark: Additional properties are not allowed ('acent' was unexpected)"), result.output)
    }
}
