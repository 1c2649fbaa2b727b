import CalpipeKit
import Foundation
@testable import Pipeline

/// A sink for the stage tests: keeps the events and occurrences that reach the end of a pipeline, in order.
final class EventCollector: Sink {
    static let descriptor = SinkDescriptor(type: "collect", kind: .sink, summary: "keeps events and occurrences in memory", options: [],
                                           make: { _ in EventCollector() })

    private(set) var events: [Event] = []
    private(set) var occurrences: [Occurrence] = []
    var needs: BatchContent { [.events, .occurrences] }
    var label: String { "collect" }
    func open(context: RunContext) throws {}
    func write(_ batch: Batch, context: RunContext) throws {
        events += batch.events
        if batch.content.contains(.occurrences) { occurrences += batch.occurrences }
    }
    func commit(context: RunContext) throws -> Int { events.count }
    func abort(context: RunContext) {}

    /// Runs a pipeline document (paths relative to the repository's root) with the standard plugins and this sink
    /// (`{"type": "collect"}`); returns the sinks and the run's context. SOURCE_DATE_EPOCH: 2026-11-22 12:00 UTC.
    static func run(_ json: String) throws -> (sinks: [any Sink], context: RunContext) {
        let definition = try load(json)
        let context = RunContext(environment: definition.environment, quiet: true)
        try Runner().run(definition, context: context)
        return (definition.sinks, context)
    }

    static func load(_ json: String) throws -> PipelineDefinition {
        var registry = PluginRegistry.standard
        registry.register(descriptor)
        let loader = PipelineLoader(registry: registry, environment: ["TZ": "Europe/Berlin", "SOURCE_DATE_EPOCH": "1795348800"])
        return try loader.load(json: try JSONParser.parse(json), file: "pipelines/test.json", baseDirectory: TestSupport.repositoryRoot)
    }

    /// The messages of a document the loader refuses (none when it loads).
    static func problems(_ json: String) -> [String] {
        do {
            _ = try load(json)
            return []
        } catch let e as ConfigErrors {
            return e.issues.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }
}
