import CalpipeKit
import Exporters
import Foundation
import Importers
import Pipeline
import XCTest

/// Pipeline-file problems with the XML and jCal plugins, reported with their JSON path.
final class XMLConfigTests: XCTestCase {
    private func issues(_ text: String) -> [String] {
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
        do {
            _ = try loader.load(json: try JSONParser.parse(text), file: "p.json", baseDirectory: URL(fileURLWithPath: "/srv/cal"))
            return []
        } catch let e as ConfigErrors {
            return e.issues.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    func testMappedXMLOptions() {
        XCTAssertEqual(issues("""
        {"sources": [{"type": "xml", "path": "feed.xml", "item": "//event[1]", "fields": {"title": "name(", "start": "@begins", "titel": "x"}}],
         "sinks": [{"type": "xcal", "path": "out.xml"}]}
        """), [
            "p.json: sources[0].fields.titel: unknown field (expected one of: \(EventMapping.fieldNames.joined(separator: ", "))); did you mean \"title\"?",
            "p.json: sources[0].item: \"//event[1]\" is not a path calpipe can match while streaming (use forms like \"//event\", \"/feed/event\" or \"events/event\")",
        ])
        XCTAssertEqual(issues("""
        {"sources": [{"type": "xml", "path": "feed.xml", "fields": {"start": "@begins[", "title": "name"}}],
         "sinks": [{"type": "jcal", "path": "out.jcal", "expand": "yes"}]}
        """), [
            "p.json: sources[0].item: missing required option (expected a string)",
            "p.json: sources[0].fields.start: XPath \"@begins[\": invalid expression",
            "p.json: sinks[0].expand: expected a boolean (true or false), got a string \"yes\"",
        ])
    }

    func testFileSourcesTakePathOrURL() {
        XCTAssertEqual(issues("""
        {"sources": [{"type": "xcal"}, {"type": "jcal", "path": "a.jcal", "url": "https://example.com/a.jcal"},
                     {"type": "caldav-xml", "path": "r.xml", "depth": 1}, {"type": "xml", "name": "venue", "path": "v.xml", "item": "//e"}],
         "sinks": [{"type": "ics", "path": "out.ics"}]}
        """), [
            "p.json: sources[0].path: missing (give \"path\" or \"url\")",
            "p.json: sources[1].url: give either \"path\" or \"url\", not both",
            "p.json: sources[2].depth: unknown option (expected one of: path, url, headers, bearer_token, username, password, netrc, max_stale, allow_empty, name, color)",
        ])
    }
}
