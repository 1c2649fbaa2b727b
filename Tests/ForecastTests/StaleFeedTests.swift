import Fetch
import Foundation
import Pipeline
import XCTest

/// Feeds when the server cannot be reached: the cached copy's age is said, `max_stale` bounds it, a feed
/// never fetched fails at once saying there is no copy, and `--offline` uses only the cache.
final class StaleFeedTests: XCTestCase {
    func context(_ fetcher: HTTPFetcher) -> RunContext {
        var environment = PipelineEnvironment(pipelineFile: "pipelines/feed.json", baseDirectory: RecordedServer.fixtures, name: "feed", zone: Harness.berlin,
                                              window: nil, environment: [:], zones: ZoneDatabase(), today: ISODate.parseDate("2026-11-23")!)
        environment.fetcher = fetcher
        return RunContext(environment: environment, quiet: true)
    }

    func fetcher(_ cache: String, clock: TestClock) -> HTTPFetcher {
        var settings = HTTPSettings(userAgent: "calpipe-tests/1.0", connectTimeout: 2, requestTimeout: 2, retryBudget: 0.3, backoffBase: 0.05,
                                    maximumAttempts: 3, requestsPerSecond: 0)
        settings.clock = { clock.now }
        return HTTPFetcher(cachePath: cache, settings: settings)
    }

    func testMaxStaleBoundsTheAgeOfTheCopyUsedWhenTheServerIsDown() throws {
        let server = try RecordedServer()
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let url = server.base + "/team.ics"
        let cache = Harness.temporaryCache()
        let clock = TestClock(Harness.now)
        _ = try InputSpec(location: .url(url)).inputs(context: context(fetcher(cache, clock: clock)))
        server.stop()
        clock.advance(3 * 3600 + 120)

        let young = context(fetcher(cache, clock: clock))
        let inputs = try InputSpec(location: .url(url), access: RemoteAccess(maxStale: 6 * 3600)).inputs(context: young)
        XCTAssertEqual(inputs.count, 1)
        XCTAssertEqual(young.report.warnings, ["\(url): cannot connect to the server; using the cached copy from 3 h 2 min ago"])
        XCTAssertEqual(young.report.cachedCopies.first?.age ?? 0, 3 * 3600 + 120, accuracy: 1)

        XCTAssertThrowsError(try InputSpec(location: .url(url), access: RemoteAccess(maxStale: 2 * 3600)).inputs(context: context(fetcher(cache, clock: clock)))) { error in
            XCTAssertEqual("\(error)", "\(url): cannot connect to the server; the cached copy is 3 h 2 min old, more than max_stale (2 h)")
        }
    }

    func testAServerThatIsDownIsNotRetriedForTheWholeBudget() throws {
        let server = try RecordedServer()
        let url = server.base + "/team.ics"
        server.stop()
        // Default settings: a 60 s retry budget and 5 attempts, which used to mean ~12 s of backoff.
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestsPerSecond: 0))
        let started = Date()
        XCTAssertThrowsError(try InputSpec(location: .url(url)).inputs(context: context(fetcher))) { error in
            XCTAssertEqual("\(error)", "\(url): cannot connect to the server; no cached copy to fall back on")
        }
        // One retry after about a second; loose bound for a loaded machine.
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
    }

    func pipeline(_ dir: URL, source: String) throws {
        let text = """
            { "name": "feed", "timezone": "Europe/Berlin", "window": { "from": "2026-11-01", "to": "2026-12-01" },
              "sources": [ \(source) ],
              "sinks": [ { "type": "json", "path": "out/events.json", "shape": "events" } ] }
            """
        try text.write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
    }

    func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-stale-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func testOfflineRunUsesOnlyTheCacheAndFailsClearlyWithoutIt() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try pipeline(dir, source: "{ \"type\": \"ics\", \"url\": \"\(server.base)/team.ics\", \"max_stale\": \"2d\" }")
        let environment = ["CALPIPE_CACHE": dir.appendingPathComponent("cache.sqlite").path]

        let nothing = try CalpipeProcess.run(["run", "feed.json", "--offline"], in: dir, environment: environment)
        XCTAssertEqual(nothing.code, 1, nothing.stderr)
        XCTAssertEqual(nothing.stderr, "calpipe: error: \(server.base)/team.ics: not in the HTTP cache, and --offline allows no download\n")
        XCTAssertEqual(try server.log().count, 0)

        let online = try CalpipeProcess.run(["run", "feed.json"], in: dir, environment: environment)
        XCTAssertEqual(online.code, 0, online.stderr)
        XCTAssertTrue(online.stderr.contains("calpipe:   feeds downloaded: 1"), online.stderr)

        let offline = try CalpipeProcess.run(["run", "feed.json", "--offline"], in: dir, environment: environment)
        XCTAssertEqual(offline.code, 0, offline.stderr)
        XCTAssertTrue(offline.stderr.contains("warning: \(server.base)/team.ics: not asked (--offline); using the cached copy from 0 s ago"), offline.stderr)
        XCTAssertTrue(offline.stderr.contains("calpipe:   cached copy of \(server.base)/team.ics: 0 s old (stale)"), offline.stderr)
        XCTAssertEqual(try server.log().count, 1, "the offline run made no request")
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("out/events.json")).isEmpty, false)
    }

    func testACorruptCacheIsRebuiltWithAWarningInARun() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try pipeline(dir, source: "{ \"type\": \"ics\", \"url\": \"\(server.base)/team.ics\" }")
        let cache = dir.appendingPathComponent("cache.sqlite").path
        try Data(String(repeating: "garbage ", count: 1_000).utf8).write(to: URL(fileURLWithPath: cache))
        let result = try CalpipeProcess.run(["run", "feed.json"], in: dir, environment: ["CALPIPE_CACHE": cache])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: warning: the HTTP cache \(cache) was damaged (the file is damaged or is not a SQLite database); moved it to \(cache).corrupt-"), result.stderr)
        let again = try CalpipeProcess.run(["run", "feed.json"], in: dir, environment: ["CALPIPE_CACHE": cache])
        XCTAssertFalse(again.stderr.contains("calpipe: warning:"), again.stderr)
        XCTAssertTrue(again.stderr.contains("feeds from cache: 1"), again.stderr)
    }

    func testLoginAndStalenessOptionsAreChecked() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try pipeline(dir, source: """
            { "type": "ics", "url": "https://ada:pw@example.com/x.ics?token=t0k", "max_stale": "2 days", "password": "x", "headers": { "Bad Name": "v" } }
            """)
        let result = try CalpipeProcess.run(["validate", "feed.json"], in: dir, environment: [:])
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("sources[0].max_stale: expected a duration such as \"30s\", \"15m\", \"6h\" or \"2d\", got \"2 days\""), result.stderr)
        XCTAssertTrue(result.stderr.contains("sources[0].username: missing (\"password\" needs a \"username\")"), result.stderr)
        XCTAssertTrue(result.stderr.contains("sources[0].headers: \"Bad Name\" is not a valid header name"), result.stderr)
        XCTAssertFalse(result.stderr.contains("t0k"), result.stderr)

        try pipeline(dir, source: """
            { "type": "json", "url": "https://example.com/x.json", "bearer_token": "t", "netrc": false, "max_stale": "15m", "headers": { "X-Key": "v" } }
            """)
        let ok = try CalpipeProcess.run(["validate", "feed.json"], in: dir, environment: [:])
        XCTAssertEqual(ok.code, 0, ok.stderr)

        try pipeline(dir, source: "{ \"type\": \"ics\", \"path\": \"team.ics\", \"bearer_token\": \"t\" }")
        let local = try CalpipeProcess.run(["validate", "feed.json"], in: dir, environment: [:])
        XCTAssertEqual(local.code, 2, local.stderr)
        XCTAssertTrue(local.stderr.contains("sources[0].bearer_token: only read with \"url\" (this source reads \"path\")"), local.stderr)
    }
}

/// `--offline` reaches the forecast stage's client too: no request at all, days without a cached forecast are
/// `unavailable`.
final class OfflineForecastTests: XCTestCase {
    func testOfflineForecastMakesNoRequest() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-offline-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // An all-day event tomorrow: inside the forecast horizon whatever today is.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
        formatter.dateFormat = "yyyyMMdd"
        let tomorrow = formatter.string(from: Date().addingTimeInterval(86_400))
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:t@example.com\r\nDTSTAMP:20261120T090000Z\r\n"
            + "DTSTART;VALUE=DATE:\(tomorrow)\r\nSUMMARY:Offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        try ics.write(to: dir.appendingPathComponent("feed.ics"), atomically: true, encoding: .utf8)
        let pipeline = """
            { "name": "weather", "timezone": "Europe/Berlin", "window": { "from": "today-1d", "to": "today+3d" },
              "location": { "latitude": 52.52, "longitude": 13.41 },
              "sources": [ { "type": "ics", "path": "feed.ics" } ],
              "stages": [ { "type": "split" }, { "type": "forecast", "base_url": "\(server.base)", "geocode": false } ],
              "sinks": [ { "type": "json", "path": "out/days.json", "shape": "days" } ] }
            """
        try pipeline.write(to: dir.appendingPathComponent("weather.json"), atomically: true, encoding: .utf8)
        let environment = ["CALPIPE_CACHE": dir.appendingPathComponent("cache.sqlite").path]
        let offline = try CalpipeProcess.run(["run", "weather.json", "--offline"], in: dir, environment: environment)
        XCTAssertEqual(offline.code, 0, offline.stderr)
        XCTAssertTrue(offline.stderr.contains("not in the HTTP cache, and --offline allows no download"), offline.stderr)
        XCTAssertEqual(try server.log().count, 0, "no request with --offline")

        let online = try CalpipeProcess.run(["run", "weather.json"], in: dir, environment: environment)
        XCTAssertEqual(online.code, 0, online.stderr)
        let requests = try server.log().count
        XCTAssertEqual(requests, 1, online.stderr)

        let cached = try CalpipeProcess.run(["run", "weather.json", "--offline"], in: dir, environment: environment)
        XCTAssertEqual(cached.code, 0, cached.stderr)
        XCTAssertFalse(cached.stderr.contains("--offline allows no download"), cached.stderr)
        XCTAssertEqual(try server.log().count, requests, "the cached answer served the offline run")
    }
}

extension StaleFeedTests {
    func testOfflineUsesAnExpiredCopyWithinMaxStaleAndRefusesAnOlderOne() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let url = server.base + "/team.ics"
        let cache = Harness.temporaryCache()
        let clock = TestClock(Harness.now)
        _ = try InputSpec(location: .url(url)).inputs(context: context(fetcher(cache, clock: clock)))
        clock.advance(3 * 86_400)
        func offline() -> HTTPFetcher {
            var settings = HTTPSettings(requestsPerSecond: 0)
            settings.offline = true
            settings.clock = { clock.now }
            return HTTPFetcher(cachePath: cache, settings: settings)
        }
        let run = context(offline())
        XCTAssertEqual(try InputSpec(location: .url(url), access: RemoteAccess(maxStale: 4 * 86_400)).inputs(context: run).count, 1)
        XCTAssertEqual(run.report.warnings, ["\(url): not asked (--offline); using the cached copy from 3 d ago"])
        XCTAssertThrowsError(try InputSpec(location: .url(url), access: RemoteAccess(maxStale: 2 * 86_400)).inputs(context: context(offline()))) { error in
            XCTAssertEqual("\(error)", "\(url): not asked (--offline); the cached copy is 3 d old, more than max_stale (2 d)")
        }
        XCTAssertEqual(try server.log().count, 1)
    }
}
