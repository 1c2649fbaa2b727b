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

    /// One zone database for all tests: building a zone from the system database is slow in debug builds.
    static let zones = ZoneDatabase()

    static func context(zone: Zone = .utc) -> RunContext {
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: fixtures, name: "test", zone: zone, window: nil,
            environment: [:], zones: zones, today: CivilDate(year: 2026, month: 11, day: 22))
        return RunContext(environment: environment, quiet: true)
    }

    /// Every event a source reads, and the context it ran with.
    static func read(_ source: EventSource, context: RunContext = context()) throws -> [Event] {
        var events: [Event] = []
        try source.read(context: context) { events += $0.events }
        return events
    }

    static func eastern() -> Zone { zones.zone(named: "US/Eastern")! }
}

extension TestSupport {
    /// The fields in which two event lists differ, for readable failures ("[0].otherProperties: ... vs ...").
    static func differences(_ a: [Event], _ b: [Event]) -> [String] {
        if a.count != b.count { return ["count: \(a.count) vs \(b.count)"] }
        var out: [String] = []
        for (i, (x, y)) in zip(a, b).enumerated() where x != y {
            let mx = Mirror(reflecting: x).children, my = Mirror(reflecting: y).children
            for (cx, cy) in zip(mx, my) where "\(cx.value)" != "\(cy.value)" {
                out.append("[\(i)] \(x.uid) .\(cx.label ?? "?"): \(cx.value) vs \(cy.value)")
            }
            if out.isEmpty { out.append("[\(i)] \(x.uid): differs in zone data") }
        }
        return out
    }
}

extension Event {
    /// The event as xCal and jCal can carry it: they give a value's type by its element or JSON type, not as a
    /// VALUE parameter, so a VALUE that repeats the property's default type is dropped and VALUE comes first.
    var withTypedValues: Event {
        var copy = self
        copy.otherProperties = otherProperties.map(Self.typed)
        copy.components = components.map(Self.typed)
        return copy
    }

    static func typed(_ p: RawProperty) -> RawProperty {
        var copy = p
        let value = p.parameters.filter { $0.name == "VALUE" }
        let others = p.parameters.filter { $0.name != "VALUE" }
        let redundant = value.first?.values.first?.lowercased() == ICalValueTypes.defaultType(of: p.name)
        copy.parameters = (redundant ? [] : value) + others
        return copy
    }

    static func typed(_ c: RawComponent) -> RawComponent {
        RawComponent(name: c.name, properties: c.properties.map(typed), components: c.components.map(typed))
    }
}
