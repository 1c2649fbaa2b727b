import Enrichers
import Exporters
import Foundation
import Importers
import Pipeline
import XCTest

/// The days document of the json sink (issue 17): the demo pipeline's output validated against
/// docs/agenda-days.schema.json by python's jsonschema (a peer: installed by .ci/run), stable ids, localized
/// weekdays, self-contained NDJSON lines.
final class DaysDocumentTests: XCTestCase {
    static let root = BundledPipelinesTests.root
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-days-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs pipelines/demo.json with its sinks replaced by json sinks into the test's folder; returns their paths.
    func runDemo(locale: String? = nil, epoch: String = "1795392000", name: String = "run") throws -> (json: String, ndjson: String) {
        let text = try Data(contentsOf: Self.root.appendingPathComponent("pipelines/demo.json"))
        var root = try JSONSerialization.jsonObject(with: text) as! [String: Any]
        let json = folder.appendingPathComponent("\(name).json").path, ndjson = folder.appendingPathComponent("\(name).ndjson").path
        root["sinks"] = [["type": "json", "path": json, "shape": "days"], ["type": "json", "path": ndjson, "shape": "days"]]
        if let locale { root["locale"] = locale }
        let parsed = try JSONParser.parse(String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self))
        let loader = PipelineLoader(registry: BundledPipelinesTests.registry, environment: ["HOME": "/nonexistent", "SOURCE_DATE_EPOCH": epoch],
                                    now: Date(timeIntervalSince1970: TimeInterval(epoch)!))
        let pipeline = try loader.load(json: parsed, file: "pipelines/demo.json", baseDirectory: Self.root.appendingPathComponent("pipelines"))
        try Runner().run(pipeline, context: RunContext(environment: pipeline.environment, quiet: true))
        return (json, ndjson)
    }

    func object(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    /// python3 -m jsonschema's library: validates the document, and each NDJSON line against `ndjsonDay`.
    func validate(document: String, ndjson: String) throws -> String {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            V = jsonschema.Draft202012Validator
            V.check_schema(schema)
            errors = [f"{sys.argv[2]}: {e.json_path}: {e.message}" for e in V(schema).iter_errors(json.load(open(sys.argv[2])))]
            line_schema = dict(schema, **{"$ref": "#/$defs/ndjsonDay"})
            for key in ("type", "required", "additionalProperties", "properties"):
                line_schema.pop(key, None)
            for n, line in enumerate(open(sys.argv[3]), 1):
                errors += [f"{sys.argv[3]}:{n}: {e.json_path}: {e.message}" for e in V(line_schema).iter_errors(json.loads(line))]
            print("\\n".join(errors[:20]) if errors else "valid")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, Self.root.appendingPathComponent("docs/agenda-days.schema.json").path, document, ndjson]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // scripts/test (the README's test command) provides jsonschema; a bare `swift test` without it skips.
        if output.contains("No module named 'jsonschema'"), ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] != "1" {
            throw XCTSkip("python jsonschema is not installed (scripts/test installs it)")
        }
        return output
    }

    func testDemoOutputValidatesAgainstTheSchema() throws {
        let (json, ndjson) = try runDemo()
        XCTAssertEqual(try validate(document: json, ndjson: ndjson), "valid")
        let doc = try object(json)
        XCTAssertEqual(doc["generated_at"] as? String, "2026-11-23T00:00:00Z")
        XCTAssertEqual(doc["locale"] as? String, "en")
        let sources = doc["sources"] as! [[String: Any]]
        XCTAssertEqual(sources.count, 1)
        XCTAssertEqual(sources[0]["name"] as? String, "sample")
        XCTAssertEqual(sources[0]["type"] as? String, "json")
        XCTAssertEqual(sources[0]["origin"] as? String, "file")
        XCTAssertEqual(sources[0]["events"] as? Int, 50)
        let days = doc["days"] as! [[String: Any]]
        XCTAssertEqual(days.count, 42)
        // Every day has its weather, those without entries too.
        XCTAssertEqual(days.filter { ($0["weather"] as? [String: Any])?["available"] as? Bool != true }.count, 0)
        XCTAssertGreaterThan(days.filter { ($0["entries"] as! [Any]).isEmpty }.count, 0)
        // Summary, icon and code agree (one daily record).
        for day in days {
            let w = day["weather"] as! [String: Any]
            let code = w["weather_code"] as! Int
            XCTAssertEqual(w["summary"] as? String, WeatherCode.summary(code))
            XCTAssertEqual(w["icon"] as? String, WeatherIcon.name(forCode: code))
        }
        // Entries carry source and calendar (the source's name) and attendee counts.
        let entries = days.flatMap { $0["entries"] as! [[String: Any]] }
        XCTAssertEqual(Set(entries.map { $0["source"] as! String }), ["sample"])
        XCTAssertEqual(Set(entries.map { $0["calendar"] as! String }), ["sample"])
        for entry in entries {
            XCTAssertEqual(entry["attendee_count"] as? Int, (entry["attendees"] as! [Any]).count)
        }
        // The NDJSON lines are the same days, each with the zone and the attribution.
        let lines = try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 42)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        XCTAssertEqual(first["timezone"] as? String, "Europe/Berlin")
        XCTAssertEqual(first["attribution"] as? String, doc["attribution"] as? String)
        XCTAssertNotNil(first["weather"] as? [String: Any])
    }

    func testIDsAreStableAcrossRunsAndDifferBetweenOccurrences() throws {
        let a = try runDemo(name: "a"), b = try runDemo(name: "b")
        func ids(_ path: String) throws -> [String] {
            try (object(path)["days"] as! [[String: Any]]).flatMap { ($0["entries"] as! [[String: Any]]).map { $0["id"] as! String } }
        }
        let first = try ids(a.json), second = try ids(b.json)
        XCTAssertGreaterThan(first.count, 60)
        XCTAssertEqual(first, second)
        XCTAssertEqual(Set(first).count, first.count, "every entry has an id of its own")
        // A recurring event: its occurrences have the same uid and different ids.
        let entries = try (object(a.json)["days"] as! [[String: Any]]).flatMap { $0["entries"] as! [[String: Any]] }
        let byUID = Dictionary(grouping: entries, by: { $0["uid"] as! String })
        let recurring = try XCTUnwrap(byUID.values.first { $0.count > 2 })
        XCTAssertEqual(Set(recurring.map { $0["id"] as! String }).count, recurring.count)
        // The same bytes, run after run.
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a.json)), try Data(contentsOf: URL(fileURLWithPath: b.json)))
    }

    func testWeekdaysInThePipelineLocaleAndToday() throws {
        // SOURCE_DATE_EPOCH 2026-10-15 12:00 UTC: a Thursday inside the demo's window.
        let (json, _) = try runDemo(locale: "de", epoch: "1792065600")
        let days = try object(json)["days"] as! [[String: Any]]
        let thursday = try XCTUnwrap(days.first { $0["date"] as? String == "2026-10-15" })
        XCTAssertEqual(thursday["weekday"] as? String, "Donnerstag")
        XCTAssertEqual(thursday["weekday_short"] as? String, "Do.")
        XCTAssertEqual(days.filter { $0["is_today"] as? Bool == true }.map { $0["date"] as! String }, ["2026-10-15"])
    }

    func testUnknownLocaleIsAConfigError() throws {
        let json = try JSONParser.parse("""
            {"locale": "xx-nonsense", "sources": [{"type": "json", "path": "../data/agenda.json"}], "stages": [{"type": "split"}],
             "sinks": [{"type": "json", "path": "-"}]}
            """)
        let loader = PipelineLoader(registry: BundledPipelinesTests.registry, environment: ["HOME": "/nonexistent"])
        XCTAssertThrowsError(try loader.load(json: json, file: "pipelines/x.json", baseDirectory: Self.root.appendingPathComponent("pipelines"))) { error in
            XCTAssertEqual("\(error)", "pipelines/x.json: locale: unknown locale \"xx-nonsense\" (expected a language code such as \"en\", \"de\" or \"fr_CA\")")
        }
    }
}
