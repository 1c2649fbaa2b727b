import CalpipeKit
import Foundation
import XCTest

/// Incremental runs with a stage of the program's own, through `import CalpipeKit` only (docs/incremental.md): a
/// stage that declares itself a `DeterministicStage` keeps the next run of an unchanged feed from reading it; one
/// that does not makes every run read everything. Run through the async API (`PipelineLoader.run(file:)`).
final class IncrementalPluginTests: XCTestCase {
    /// Prefixes every title: its output depends on its input alone, and it says so.
    final class TagStage: DeterministicStage {
        static let descriptor = StageDescriptor(type: "tag", kind: .stage, summary: "prefixes titles", make: { _ in TagStage() })
        func process(_ batch: Batch, context: RunContext) throws -> Batch {
            var out = batch
            for i in out.events.indices { out.events[i].title = "[team] " + (out.events[i].title ?? "") }
            return out
        }
    }

    /// The same work, without the declaration: calpipe cannot know it gives the same output for the same input.
    final class UndeclaredTagStage: Stage {
        static let descriptor = StageDescriptor(type: "undeclared_tag", kind: .stage, summary: "prefixes titles", make: { _ in UndeclaredTagStage() })
        func process(_ batch: Batch, context: RunContext) throws -> Batch { try TagStage().process(batch, context: context) }
    }

    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-incremental-plugin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let events = (0..<30).map { i in
            #"{"uid": "e\#(i)", "title": "Event \#(i)", "start": "2026-12-\#(String(format: "%02d", 1 + i % 28))T10:00:00", "timezone": "Europe/Berlin", "duration": "PT1H"}"#
        }
        try ("[" + events.joined(separator: ",\n") + "]").write(to: dir.appendingPathComponent("events.json"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Writes a pipeline with `stage` first and returns its path.
    private func pipeline(stage: String) throws -> String {
        let path = dir.appendingPathComponent("\(stage).json")
        try """
        {"name": "\(stage)", "timezone": "Europe/Berlin", "window": {"from": "2026-12-01", "to": "2027-01-01"},
         "sources": [{"type": "json", "path": "events.json"}],
         "stages": [{"type": "\(stage)"}, {"type": "expand"}, {"type": "split"}],
         "sinks": [{"type": "sqlite", "path": "\(stage).db"}]}
        """.write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    private var loader: PipelineLoader {
        var registry = PluginRegistry.standard
        registry.register(TagStage.descriptor)
        registry.register(UndeclaredTagStage.descriptor)
        return PipelineLoader(registry: registry, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
    }

    func testADeclaredDeterministicStageLetsAnUnchangedSourceGoUnread() async throws {
        let file = try pipeline(stage: "tag")
        let first = try await loader.run(file: file)
        XCTAssertEqual(first.eventsRead, 30)
        let second = try await loader.run(file: file)
        XCTAssertEqual(second.counter("sources unchanged (not read)"), 1)
        XCTAssertEqual(second.eventsRead, 0)
    }

    func testAnUndeclaredStageReadsEverySourceEveryRun() async throws {
        let file = try pipeline(stage: "undeclared_tag")
        _ = try await loader.run(file: file)
        let second = try await loader.run(file: file)
        XCTAssertEqual(second.counter("sources unchanged (not read)"), 0)
        XCTAssertEqual(second.eventsRead, 30)
    }
}
