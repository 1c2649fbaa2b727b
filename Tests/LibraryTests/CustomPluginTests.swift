import CalpipeKit
import Foundation
import XCTest

/// calpipe used as a library, through `import CalpipeKit` only: a source and a sink of the program's own,
/// registered beside the standard plugins and run by a pipeline file (docs/architecture.md shows the same).
final class CustomPluginTests: XCTestCase {
    /// A source that makes one hour-long event per `"titles"` entry, a day apart from `"first_day"`.
    final class CountingSource: EventSource {
        static let descriptor = SourceDescriptor(
            type: "counting", kind: .source, summary: "one event a day, titled from a list",
            options: Options.self,
            make: { options, _ in CountingSource(titles: options.titles, first: options.firstDay) })

        /// The options, declared once: decoded (and every problem reported) before `make` runs.
        struct Options: OptionConfig {
            var titles: [String] = []
            var firstDay = CivilDate(year: 2026, month: 12, day: 1)

            static let options = OptionSpec<Options> {
                Key("titles", \.titles, .strings, required: true, "the events' titles, one a day")
                Key("first_day", \.firstDay, day, "the first event's day (YYYY-MM-DD)")
            }

            /// A day as YYYY-MM-DD: a kind of the plugin's own.
            static let day = OptionType<String>.string.map({ text, input -> CivilDate? in
                guard let day = ISODate.parseDate(text) else { input.report("invalid date \"\(text)\" (expected YYYY-MM-DD)"); return nil }
                return day
            }, encode: { $0.iso8601 })
        }

        let titles: [String]
        let first: CivilDate
        init(titles: [String], first: CivilDate) { self.titles = titles; self.first = first }

        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            var events: [Event] = []
            for (i, title) in titles.enumerated() {
                let day = CivilDate(daysSinceEpoch: first.daysSinceEpoch + i)
                let start = EventTime.zoned(CivilDateTime(date: day, hour: 9), context.zone)
                events.append(Event(uid: "count-\(i)", start: start, endSpec: .duration(CalDuration(seconds: 3600)), title: title))
            }
            try emit(Batch(events: events))
        }
    }

    /// A sink that keeps the day entries it is given, and publishes them only on commit.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class CollectingSink: Sink, @unchecked Sendable {
        static func descriptor(_ box: Box) -> SinkDescriptor {
            SinkDescriptor(type: "collect", kind: .sink, summary: "keeps day entries in memory", make: { _ in CollectingSink(box) })
        }
        final class Box: @unchecked Sendable { var committed: [DayEntry] = [] }

        let box: Box
        var pending: [DayEntry] = []
        init(_ box: Box) { self.box = box }
        var needs: BatchContent { .days }
        var label: String { "collect" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws { pending += batch.days }
        func commit(context: RunContext) throws -> Int { box.committed = pending; return pending.count }
        func abort(context: RunContext) { pending = [] }
    }

    private func loader(_ box: CollectingSink.Box) -> PipelineLoader {
        var registry = PluginRegistry.standard
        registry.register(CountingSource.descriptor)
        registry.register(CollectingSink.descriptor(box))
        return PipelineLoader(registry: registry, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
    }

    private func pipeline(_ source: String) -> JSONValue {
        try! JSONParser.parse("""
        {"name": "lib", "timezone": "Europe/Berlin", "window": {"from": "2026-12-01", "to": "2026-12-08"},
         "sources": [\(source)], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "collect"}]}
        """)
    }

    func testCustomSourceAndSinkRunThroughTheStandardStages() throws {
        let box = CollectingSink.Box()
        let definition = try loader(box).load(json: pipeline(#"{"type": "counting", "name": "team", "titles": ["Stand-up", "Review", "Retro"]}"#),
                                              file: "lib.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
        let context = RunContext(environment: definition.environment, quiet: true)
        try Runner().run(definition, context: context)
        XCTAssertEqual(box.committed.map(\.event.title), ["Stand-up", "Review", "Retro"])
        XCTAssertEqual(box.committed.map(\.day.iso8601), ["2026-12-01", "2026-12-02", "2026-12-03"])
        XCTAssertEqual(box.committed.map(\.start.shortTimeText), ["09:00", "09:00", "09:00"])
        XCTAssertEqual(box.committed.first?.event.metadata["source"], "team")
        XCTAssertEqual(context.report.eventsRead, 3)
    }

    func testCustomOptionsAreCheckedFromTheirDeclaration() {
        let box = CollectingSink.Box()
        XCTAssertThrowsError(try loader(box).load(json: pipeline(#"{"type": "counting", "title": ["x"], "first_day": 3}"#),
                                                  file: "lib.json", baseDirectory: URL(fileURLWithPath: "/tmp"))) { error in
            XCTAssertEqual((error as? ConfigErrors)?.issues.map(\.description), [
                #"lib.json: sources[0].title: unknown option (expected one of: titles, first_day, name, color); did you mean "titles"?"#,
                "lib.json: sources[0].titles: missing required option (expected an array)",
                "lib.json: sources[0].first_day: expected a string, got a number 3",
            ])
        }
    }

    /// A source that sends only what changed (`SourceFeed.delta`).
    final class DeltaSource: EventSource {
        static let descriptor = SourceDescriptor(type: "delta", kind: .source, summary: "changes only", make: { _ in DeltaSource() })
        var feed: SourceFeed { .delta }
        func read(context: RunContext, emit: (Batch) throws -> Void) throws {}
    }

    /// A delta source goes to sinks that apply deletions only: a whole-file sink is refused at load, in these words.
    func testDeltaSourceWithAWholeFileSinkIsRefusedAtLoad() throws {
        var registry = PluginRegistry.standard
        registry.register(DeltaSource.descriptor)
        let loader = PipelineLoader(registry: registry, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
        func load(_ sinks: String) throws -> PipelineDefinition {
            try loader.load(json: try JSONParser.parse("""
                {"name": "lib", "timezone": "Europe/Berlin", "sources": [{"type": "delta", "name": "changes"}],
                 "stages": [{"type": "split"}], "sinks": [\(sinks)]}
                """), file: "lib.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
        }
        XCTAssertThrowsError(try load(#"{"type": "sqlite", "path": "agenda.db"}, {"type": "json", "path": "agenda.json"}"#)) { error in
            XCTAssertEqual("\(error)", "lib.json: sources[0]: changes sends only changes and deletions (a delta feed), but sinks[1] (json agenda.json) "
                + "writes whole files and needs the whole feed; write a delta source to a sqlite sink")
        }
        let definition = try load(#"{"type": "sqlite", "path": "agenda.db"}"#)
        XCTAssertEqual(definition.sources.first?.feed, .delta)
        XCTAssertEqual(definition.sinks.first?.appliesDeletions, true)
    }
}
