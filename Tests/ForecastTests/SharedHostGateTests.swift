import CalpipeKit
import Enrichers
import Fetch
import Foundation
import Pipeline
import XCTest

/// One politeness gate per pipeline: the feeds' client and the forecast stage's take turns at a host they both
/// ask, against the recorded-response server (its log says when each request arrived); and one open cache file.
final class SharedHostGateTests: XCTestCase {
    var server: RecordedServer!

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    func testSiblingsAreSpacedByTheAskingClientsRate() throws {
        try server.route("/a", [.init(body: "a")])
        try server.route("/b", [.init(body: "b")])
        let feeds = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestsPerSecond: 0))
        let forecast = feeds.sibling(settings: HTTPSettings(requestsPerSecond: 2))
        XCTAssertTrue(forecast.gate === feeds.gate)
        XCTAssertEqual(forecast.cachePath, feeds.cachePath)
        _ = try feeds.get(server.base + "/a")
        _ = try forecast.get(server.base + "/b")
        let log = try server.log()
        XCTAssertEqual(log.map(\.path), ["/a", "/b"])
        XCTAssertGreaterThanOrEqual(log[1].at - log[0].at, 0.35, "the forecast's client waited its 0.5 s after the feeds' request")
    }

    func testTheFeedAndTheForecastOfOnePipelineShareOneGate() throws {
        try server.route("/team.ics", [.init(headers: ["Content-Type": "text/calendar"], bodyFile: "feed.ics")])
        try server.route("/v1/forecast", [.init(headers: ["Content-Type": "application/json"], bodyFile: "openmeteo-berlin.json")])
        let cache = Harness.temporaryCache()
        let json = try JSONParser.parse("""
            {"name": "shared-gate", "timezone": "Europe/Berlin", "window": {"from": "2026-11-23", "to": "2026-11-26"},
             "location": {"latitude": 52.52, "longitude": 13.41},
             "sources": [{"type": "ics", "url": "\(server.base)/team.ics"}],
             "stages": [{"type": "split"}, {"type": "forecast", "base_url": "\(server.base)", "geocode": false, "historical": false,
                         "max_requests_per_second": 1, "retry_budget": 0.5, "backoff": 0.05}],
             "sinks": [{"type": "json", "path": "-"}]}
            """)
        let loader = PipelineLoader.standard(environment: ["HOME": NSTemporaryDirectory(), "CALPIPE_CACHE": cache], now: Harness.now)
        var pipeline = try loader.load(json: json, file: "pipelines/shared-gate.json", baseDirectory: RecordedServer.fixtures)
        let feeds = try XCTUnwrap(pipeline.environment.fetcher as? HTTPFetcher)
        let stage = try XCTUnwrap(pipeline.stages.compactMap { $0 as? ForecastStage }.first)
        XCTAssertTrue(stage.fetcher?.gate === feeds.gate, "one gate for the feeds and the forecast")
        XCTAssertEqual(stage.fetcher?.cachePath, cache)

        let collected = Collected()
        pipeline.sinks = [CollectSink(collected)]
        let context = RunContext(environment: pipeline.environment, quiet: true)
        try Runner().run(pipeline, context: context)
        XCTAssertEqual(context.report.counter("forecasts fetched") > 0, true)
        let log = try server.log()
        XCTAssertEqual(log.map(\.path), ["/team.ics", "/v1/forecast"])
        XCTAssertGreaterThanOrEqual(log[1].at - log[0].at, 0.8, "the forecast waited its turn at the host after the feed's request (1 a second)")
    }

    func testSiblingsWithOneCacheFileShareItsConnection() throws {
        try server.route("/doc", [.init(headers: ["Cache-Control": "max-age=600"], body: "fresh")])
        let cache = Harness.temporaryCache()
        try FileManager.default.createDirectory(atPath: (cache as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(String(repeating: "this is not a database ", count: 200).utf8).write(to: URL(fileURLWithPath: cache))
        let feeds = HTTPFetcher(cachePath: cache, settings: HTTPSettings(requestsPerSecond: 0))
        let forecast = feeds.sibling(cachePath: cache, settings: HTTPSettings(requestsPerSecond: 0))
        let other = feeds.sibling(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestsPerSecond: 0))
        XCTAssertEqual(try feeds.get(server.base + "/doc").origin, .network)
        XCTAssertEqual(feeds.takeNotes().count, 1, "the damaged file rebuilt, said once")
        XCTAssertEqual(try forecast.get(server.base + "/doc").origin, .cache, "what the feeds' client stored")
        XCTAssertEqual(forecast.takeNotes(), [], "not said twice")
        XCTAssertEqual(forecast.cacheProblem, feeds.cacheProblem, "the one connection that found the file damaged")
        XCTAssertEqual(try other.get(server.base + "/doc").origin, .network, "another file is another cache")
        XCTAssertNil(other.cacheProblem)
        XCTAssertEqual(try server.log().count, 2)
    }
}
