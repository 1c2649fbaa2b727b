import XCTest
@testable import Pipeline

/// `metadata["source"]` has one writer, `SourceStamp`: the runner stamps what a source did not, and a source that
/// stamps as it reads uses the same stamp.
final class SourceStampTests: XCTestCase {
    typealias T = TestSupport

    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class MetadataSink: Sink, @unchecked Sendable {
        var needs: BatchContent { [.events] }
        var label: String { "metadata" }
        var metadata: [[String: String]] = []
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws { metadata += batch.events.map(\.metadata) }
        func commit(context: RunContext) throws -> Int { metadata.count }
        func abort(context: RunContext) {}
    }

    private func event(_ uid: String, _ metadata: [String: String]) -> Event {
        var e = Event(uid: uid, start: .date(T.date(2026, 11, 10)))
        e.metadata = metadata
        return e
    }

    func testTheStampKeepsOtherMetadataAndReplacesAnotherLabel() {
        var stamp = SourceStamp(label: "team")
        let calendar = ["calendar": "Work"]
        var metadata: [[String: String]] = [[:], calendar, calendar, ["source": "elsewhere"], ["source": "team", "x": "1"], [:]]
        for i in metadata.indices { stamp.stamp(&metadata[i]) }
        XCTAssertEqual(metadata, [
            ["source": "team"], ["calendar": "Work", "source": "team"], ["calendar": "Work", "source": "team"],
            ["source": "team"], ["source": "team", "x": "1"], ["source": "team"],
        ])
        XCTAssertTrue(metadata.allSatisfy(stamp.isStamped))
    }

    /// Whatever the source wrote as its label, the sinks see the pipeline's: the runner's stamp wins.
    func testTheRunnerStampsEveryEventWithItsSourcesLabel() throws {
        let context = T.context()
        let sink = MetadataSink()
        let events = [event("a", [:]), event("b", ["source": "spoofed"]), event("c", ["calendar": "Work"])]
        let pipeline = PipelineDefinition(environment: context.environment, sources: [StaticSource(events), StaticSource([event("d", [:])])],
                                          sourceLabels: ["team", "private"], stages: [], sinks: [sink])
        try Runner().run(pipeline, context: context)
        XCTAssertEqual(sink.metadata, [["source": "team"], ["source": "team"], ["calendar": "Work", "source": "team"], ["source": "private"]])
        XCTAssertNil(context.runState.currentSourceLabel)
        XCTAssertEqual(context.runState.sourceLabels, ["team", "private"])
    }
}
