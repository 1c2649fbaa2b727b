import CalpipeKit
import Foundation
import XCTest

/// A remote sink of the program's own, through `import CalpipeKit` only: it declares `.remote`, reports each
/// record's outcome, and a refused record fails the run (exit 1) after the standard file sink committed.
final class RemoteSinkTests: XCTestCase {
    /// "Sends" each event to `server` as it writes; the server refuses titles starting with "!".
    final class PostingSink: Sink {
        final class Server: @unchecked Sendable { var received: [String: String] = [:] }
        let server: Server
        init(_ server: Server) { self.server = server }
        var needs: BatchContent { .events }
        var label: String { "post test" }
        var commitKind: SinkCommit { .remote }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {
            for event in batch.events {
                let title = event.title ?? ""
                if title.hasPrefix("!") {
                    context.report.recordFailure(sink: label, record: "UID \"\(event.uid)\"", reason: "refused")
                } else {
                    let outcome: RecordOutcome = server.received[event.uid] == nil ? .created : server.received[event.uid] == title ? .unchanged : .updated
                    server.received[event.uid] = title
                    context.report.record(outcome, sink: label)
                }
            }
        }
        func commit(context: RunContext) throws -> Int { server.received.count }
        func abort(context: RunContext) {}
    }

    /// A sink that does not say how it commits.
    final class Silent: Sink {
        var needs: BatchContent { .events }
        var label: String { "silent" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {}
        func commit(context: RunContext) throws -> Int { 0 }
        func abort(context: RunContext) {}
    }

    func testARefusedRecordFailsTheRunAfterTheOtherOutputsCommitted() throws {
        XCTAssertEqual(Silent().commitKind, .transaction)
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("calpipe-remote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func feed(_ titles: [String]) throws {
            let items = titles.enumerated().map { #"{"uid": "e\#($0.offset)", "title": "\#($0.element)", "start": "2026-12-0\#($0.offset + 1)T09:00:00Z"}"# }
            try ("[" + items.joined(separator: ", ") + "]").write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        }
        let server = PostingSink.Server()
        var registry = PluginRegistry.standard
        registry.register(SinkDescriptor(type: "post", kind: .sink, summary: "posts events", make: { _ in PostingSink(server) }))
        let loader = PipelineLoader(registry: registry, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
        func run() throws -> RunReport {
            let text = #"{"name": "remote", "sources": [{"type": "json", "path": "feed.json"}], "sinks": [{"type": "post"}, {"type": "json", "path": "out.json", "shape": "events"}]}"#
            let definition = try loader.load(json: try JSONParser.parse(text), file: "remote.json", baseDirectory: dir)
            let context = RunContext(environment: definition.environment, quiet: true)
            try Runner().run(definition, context: context)
            return context.report
        }
        try feed(["Stand-up", "Review", "Retro"])
        let first = try run()
        XCTAssertEqual("\(first.outcomes(of: "post test"))", "3 created")
        XCTAssertEqual(ExitStatus.of(first).code, 0)

        try feed(["Stand-up", "Review (moved)", "!Retro"])
        let second = try run()
        XCTAssertEqual("\(second.outcomes(of: "post test"))", "1 updated, 1 unchanged, 1 failed")
        XCTAssertEqual(second.failedRecords, [#"post test: UID "e2": refused"#])
        XCTAssertEqual(ExitStatus.of(second).code, 1)
        // The json sink committed all the same, refused record included.
        XCTAssertTrue(try String(contentsOf: dir.appendingPathComponent("out.json"), encoding: .utf8).contains("!Retro"))
        XCTAssertEqual(server.received, ["e0": "Stand-up", "e1": "Review (moved)", "e2": "Retro"])
    }
}
