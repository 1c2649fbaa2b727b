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

    var registry: PluginRegistry { .standard }

    func testLivePipelineIsValid() throws {
        let loader = PipelineLoader(registry: registry, environment: ["HOME": NSTemporaryDirectory(), "CALPIPE_FEED_URL": "webcal://calendar.example.org/team.ics"], now: Harness.now)
        let pipeline = try loader.load(file: Self.root.appendingPathComponent("pipelines/forecast-live.json").path)
        XCTAssertEqual(pipeline.stages.count, 2)
        XCTAssertEqual((pipeline.stages[1] as? ForecastStage)?.providerName, "open-meteo")
        XCTAssertEqual((pipeline.stages[1] as? ForecastStage)?.fetcher?.settings.userAgent, "calpipe/0.1 (forecast-live pipeline)")
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
        // Every place of the sample agenda is within reach of the sample's four places; the pipeline's location
        // covers events without one; so every day entry has a forecast from the file.
        let missing = days.filter { if case .missing? = $0.forecast { return true }; return $0.forecast == nil }
        XCTAssertEqual(missing.map { "\($0.event.uid) \($0.day.iso8601)" }, [])
        XCTAssertEqual(context.report.counter("forecasts from file"), days.count)
        XCTAssertEqual(context.report.warnings, [])
        XCTAssertEqual(DailyForecast.attributions(for: days), [
            "Weather data by Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
        ])
    }
}
