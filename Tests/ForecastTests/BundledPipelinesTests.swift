import Enrichers
import Exporters
import Fetch
import Foundation
import CalpipeKit
import Importers
import Pipeline
import XCTest

/// The bundled pipelines and data: the live pipeline's options are valid, and the demo agenda enriched with
/// the bundled sample answer works offline.
final class BundledPipelinesTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    var registry: PluginRegistry { Self.registry }

    static var registry: PluginRegistry { .standard }

    func testLivePipelineIsValid() throws {
        let loader = PipelineLoader(registry: registry, environment: ["HOME": NSTemporaryDirectory(), "CALPIPE_FEED_URL": "webcal://calendar.example.org/team.ics"], now: Harness.now)
        let pipeline = try loader.load(file: Self.root.appendingPathComponent("pipelines/forecast-live.json").path)
        XCTAssertEqual(pipeline.stageTypes, ["expand", "split", "forecast"])
        XCTAssertEqual(pipeline.notes, [], "the bundled pipeline expands its recurring events itself")
        XCTAssertEqual((pipeline.stages[2] as? ForecastStage)?.providerName, "open-meteo")
        XCTAssertEqual((pipeline.stages[2] as? ForecastStage)?.fetcher?.settings.userAgent, "calpipe/0.1 (forecast-live pipeline)")
    }

    func testDemoAgendaWithTheBundledSampleOffline() throws {
        let json = try JSONParser.parse("""
            {"name": "demo", "timezone": "Europe/Berlin", "window": {"from": "2026-10-12", "to": "2026-11-23"},
             "location": {"latitude": 52.52, "longitude": 13.41},
             "sources": [{"type": "json", "path": "../data/agenda.json"}],
             "stages": [{"type": "split"}, {"type": "forecast", "provider": "file", "path": "../data/forecast-sample.json"}],
             "sinks": [{"type": "json", "path": "-"}]}
            """)
        let loader = PipelineLoader(registry: registry, environment: ["HOME": "/nonexistent"], now: Harness.now)
        var pipeline = try loader.load(json: json, file: "pipelines/demo.json", baseDirectory: Self.root.appendingPathComponent("pipelines"))
        let collected = Collected()
        pipeline.sinks = [CollectSink(collected)]
        let context = RunContext(environment: pipeline.environment, quiet: true)
        try Runner().run(pipeline, context: context)
        let days = collected.days
        XCTAssertFalse(days.isEmpty)
        // Every day of the window (42, empty ones included) has the weather of the pipeline's location from
        // the file; entries share it unless their place is more than 25 km away, and then have their own.
        let headers = collected.headers
        XCTAssertEqual(headers.count, 42)
        XCTAssertEqual(headers.filter { $0.weather?.isAvailable != true }.map(\.date.iso8601), [])
        XCTAssertEqual(Set(headers.compactMap(\.weather?.place)), [Coordinate(latitude: 52.52, longitude: 13.41)])
        let own = days.filter { $0.forecast != nil }
        XCTAssertEqual(own.filter { if case .missing? = $0.forecast { return true }; return false }.map { "\($0.event.uid) \($0.day.iso8601)" }, [])
        XCTAssertEqual(context.report.counter("forecasts from file"), headers.count + own.count)
        XCTAssertEqual(context.report.warnings, [])
        XCTAssertEqual(DailyForecast.attributions(for: headers), [
            "Weather data by Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
        ])
    }
}
