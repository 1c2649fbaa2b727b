import Foundation
import Pipeline
@testable import Importers

/// Fixture paths and a run context for the XML and jCal tests.
enum TestSupport {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ relative: String) -> String {
        fixtures.appendingPathComponent(relative).path
    }

    static func context(zone: Zone = .utc) -> RunContext {
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: fixtures, name: "test", zone: zone, window: nil,
            environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 22))
        return RunContext(environment: environment, quiet: true)
    }

    /// Every event a source reads, and the context it ran with.
    static func read(_ source: EventSource, context: RunContext = context()) throws -> [Event] {
        var events: [Event] = []
        try source.read(context: context) { events += $0.events }
        return events
    }

    static func eastern() -> Zone { ZoneDatabase().zone(named: "US/Eastern")! }
}
