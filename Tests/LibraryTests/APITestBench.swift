import CalpipeKit
import Foundation

/// What the tests of docs/architecture.md's API pages share: a folder of their own, the test calendar service
/// with a week of five events, and a run of a pipeline with `EventsAPISource` and `EventsStoreSink` registered.
final class APITestBench {
    let dir: URL
    let server: CalendarAPIServer
    /// The HTTP options of the pipelines: no pause between requests, no retries.
    static let http = #""max_requests_per_second": 0, "max_attempts": 1"#

    init() throws {
        dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("calpipe-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        server = try CalendarAPIServer(folder: dir)
        try server.setEvent("demo", "Demo", day: "2026-12-05", hour: 16)
        try server.setEvent("planning", "Planning", day: "2026-12-04", hour: 9)
        try server.setEvent("retro", "Retro", day: "2026-12-03", hour: 15)
        try server.setEvent("review", "Review", day: "2026-12-02", hour: 10)
        try server.setEvent("standup", "Stand-up", day: "2026-12-01", hour: 9)
    }

    deinit { try? FileManager.default.removeItem(at: dir) }

    /// The source's pipeline entry: the service's events, two a page, named "team".
    var source: String {
        #"{"type": "events-api", "name": "team", "url": "\#(server.base)/v1/events", "page_size": 2, \#(Self.http)}"#
    }

    /// The sink's pipeline entry: the store of the same service.
    var store: String { #"{"type": "events-store", "url": "\#(server.base)/v1/store", \#(Self.http)}"# }

    /// The sink's label (its state's key and its line in the summary).
    var storeLabel: String { "events-store \(server.base)/v1/store" }

    /// Runs the pipeline `text` (file `name` in the folder), keeping the states in `stateFile` when no sink keeps them.
    func run(_ text: String, name: String, stateFile: String) throws -> RunReport {
        var registry = PluginRegistry.standard
        registry.register(EventsAPISource.descriptor)
        registry.register(EventsStoreSink.descriptor)
        let loader = PipelineLoader.standard(registry: registry, environment: ["TZ": "UTC", "CALPIPE_CACHE": dir.appendingPathComponent("cache.sqlite").path],
                                             now: Date(timeIntervalSince1970: 1_795_348_800))
        let definition = try loader.load(json: try JSONParser.parse(text), file: name, baseDirectory: dir)
        let context = RunContext(environment: definition.environment, quiet: true)
        var runner = Runner()
        runner.stateFile = stateFile
        try runner.run(definition, context: context)
        return context.report
    }

    /// The requests the service got since the last call (`count`: how many were seen then).
    func newRequests(since count: inout Int) throws -> [String] {
        let log = try server.log()
        defer { count = log.count }
        return Array(log.dropFirst(count))
    }
}
