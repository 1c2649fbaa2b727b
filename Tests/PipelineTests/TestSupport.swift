import CalSQLite
import Foundation
import XCTest
@testable import Pipeline

/// Shared helpers for the pipeline tests.
enum TestSupport {
    static let zones = ZoneDatabase()

    static func zone(_ name: String) -> Zone {
        guard let z = zones.zone(named: name) else { fatalError("test zone \(name) missing") }
        return z
    }

    static func local(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0, _ s: Int = 0) -> CivilDateTime {
        CivilDateTime(year: y, month: m, day: d, hour: h, minute: min, second: s)
    }

    static func date(_ y: Int, _ m: Int, _ d: Int) -> CivilDate { CivilDate(year: y, month: m, day: d) }

    static func environment(zone: String = "Europe/Berlin", window: Window? = nil, base: URL = URL(fileURLWithPath: "/tmp"),
                            env: [String: String] = [:]) -> PipelineEnvironment {
        PipelineEnvironment(pipelineFile: "test.json", baseDirectory: base, name: "test", zone: self.zone(zone), window: window,
                            environment: env, zones: zones, today: date(2026, 11, 22))
    }

    static func context(zone: String = "Europe/Berlin", window: Window? = nil) -> RunContext {
        RunContext(environment: environment(zone: zone, window: window), quiet: true)
    }

    /// A fresh empty folder under the system's temporary folder.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The repository's root folder (tests read bundled data and fixtures from it).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs `events` from one source labelled "feed" through expand and split into `sinks` (the commit-phase tests).
    @discardableResult
    static func runExpandedAndSplit(_ events: [Event], sinks: [any Sink]) throws -> RunContext {
        let context = context()
        try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events)], sourceLabels: ["feed"],
                                            stages: [ExpandStage(), SplitStage()], sinks: sinks), context: context)
        return context
    }

    /// The UIDs of the events table of a database the sqlite sink wrote, sorted.
    static func eventUIDs(inDatabase path: String) throws -> [String] {
        try Database(path: path).rows("SELECT uid FROM events ORDER BY uid").map { row in
            if case .text(let uid) = row[0] { return uid }
            return "?"
        }
    }
}
