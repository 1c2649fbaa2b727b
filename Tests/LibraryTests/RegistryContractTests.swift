import CalpipeKit
import Foundation
import XCTest

/// What the README promises of every plugin, checked over the whole standard registry.
final class RegistryContractTests: XCTestCase {
    private func issues(_ pipeline: String) -> [CalpipeError] {
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
        do {
            _ = try loader.load(json: try JSONParser.parse(pipeline), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
            return []
        } catch let errors as ConfigErrors {
            return errors.issues
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    /// `name` is accepted by every source, and nothing else unknown is.
    func testEverySourceTakesAName() {
        let registry = PluginRegistry.standard
        XCTAssertGreaterThanOrEqual(registry.sources.count, 6)
        for source in registry.sources {
            XCTAssertTrue(source.options.contains { $0.name == "name" }, source.type)
            let found = issues(#"{"sources": [{"type": "\#(source.type)", "name": "team", "nmae": 1}], "sinks": [{"type": "json", "path": "o.json"}]}"#)
            let paths = found.map(\.path)
            XCTAssertFalse(paths.contains("sources[0].name"), "\(source.type): \(found)")
            XCTAssertTrue(found.contains { $0.path == "sources[0].nmae" && $0.message.hasSuffix(#"did you mean "name"?"#) }, "\(source.type): \(found)")
        }
    }

    /// Every declared option's kind and default are shown, and each plugin's options are listed once.
    func testOptionsAreDeclaredOnce() {
        let registry = PluginRegistry.standard
        let all: [(String, [OptionDoc])] = registry.sources.map { ($0.type, $0.options) } + registry.stages.map { ($0.type, $0.options) }
            + registry.sinks.map { ($0.type, $0.options) }
        for (type, options) in all {
            XCTAssertEqual(Set(options.map(\.name)).count, options.count, "\(type) declares an option twice")
            for option in options { XCTAssertFalse(option.summary.isEmpty, "\(type).\(option.name)") }
        }
    }

    /// A value of the wrong kind is reported from the declaration, before the plugin reads it.
    func testDeclaredKindsAreChecked() {
        let found = issues(#"{"sources": [{"type": "ics", "path": 3, "workers": "two"}], "sinks": [{"type": "ics", "path": "o.ics", "expand": "yes"}]}"#)
        XCTAssertEqual(found.map(\.description), [
            "p.json: sources[0].path: expected a path (a string), got a number 3",
            #"p.json: sources[0].workers: expected an integer, got a string "two""#,
            #"p.json: sinks[0].expand: expected a boolean (true or false), got a string "yes""#,
        ])
    }
}
