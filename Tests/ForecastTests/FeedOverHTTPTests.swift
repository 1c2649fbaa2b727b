import Fetch
import Foundation
import Pipeline
import XCTest

/// `"url"` inputs of sources go through the same client and cache: fetched once, revalidated with 304,
/// served from the cache when the server is down.
final class FeedOverHTTPTests: XCTestCase {
    func context(fetcher: HTTPFetcher) -> RunContext {
        var environment = PipelineEnvironment(pipelineFile: "pipelines/feed.json", baseDirectory: RecordedServer.fixtures, name: "feed", zone: Harness.berlin,
                                              window: nil, environment: [:], zones: ZoneDatabase(), today: ISODate.parseDate("2026-11-23")!)
        environment.fetcher = fetcher
        return RunContext(environment: environment, quiet: true)
    }

    /// Short timeouts for tests of failures; `requestTimeout` longer where a test moves many bytes (a loaded
    /// machine streams and hashes 40 MB in more than 2 s).
    func fetcher(_ cache: String, requestTimeout: Double = 2) -> HTTPFetcher {
        HTTPFetcher(cachePath: cache, settings: HTTPSettings(userAgent: "calpipe-tests/1.0", connectTimeout: 2, requestTimeout: requestTimeout, retryBudget: 0.3,
                                                             backoffBase: 0.05, maximumAttempts: 3, requestsPerSecond: 0))
    }

    func testFeedFetchedOnceRevalidatedThenServedFromCacheWhenTheServerIsDown() throws {
        let server = try RecordedServer()
        try server.route("/team.ics", [.init(headers: ["Content-Type": "text/calendar; charset=utf-8"], bodyFile: "feed.ics", etag: "W/\"feed-7\"")])
        let expected = try Data(contentsOf: RecordedServer.fixtures.appendingPathComponent("feed.ics"))
        let cache = Harness.temporaryCache()
        // webcal:// is read as https://; here the test server speaks plain http.
        let spec = InputSpec(location: .url(server.base + "/team.ics"))

        let first = context(fetcher: fetcher(cache))
        let inputs = try spec.inputs(context: first)
        XCTAssertEqual(inputs.count, 1)
        XCTAssertEqual(inputs[0].label, server.base + "/team.ics")
        XCTAssertTrue(inputs[0].path.hasSuffix(".ics"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: inputs[0].path)), expected)
        XCTAssertEqual(first.report.counter("feeds downloaded"), 1)

        let second = context(fetcher: fetcher(cache))
        let again = try spec.inputs(context: second)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again[0].path)), expected)
        XCTAssertEqual(second.report.counter("feeds from cache"), 1)
        let requests = try server.log()
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[1].headers["if-none-match"], "W/\"feed-7\"")

        server.stop()
        let third = context(fetcher: fetcher(cache))
        let offline = try spec.inputs(context: third)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: offline[0].path)), expected)
        XCTAssertEqual(third.report.counter("feeds from cache"), 1)
        XCTAssertEqual(third.report.warnings, ["\(server.base)/team.ics: cannot connect to the server; using the cached copy from 0 s ago"])
        XCTAssertEqual(third.report.cachedCopies.map(\.label), ["\(server.base)/team.ics"])
        XCTAssertEqual(third.report.cachedCopies.map(\.origin), ["stale"])
    }

    func testFeedBodyIsKeptAsAFileAndReplacedWhenTheFeedChanges() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let cache = Harness.temporaryCache()
        let spec = InputSpec(location: .url(server.base + "/team.ics"))
        let bodies = URL(fileURLWithPath: cache + ".bodies")
        func bodyFiles() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: bodies.path) }

        _ = try spec.inputs(context: context(fetcher: fetcher(cache)))
        let key = NormalizedURL(server.base + "/team.ics")!.text
        let entry = try XCTUnwrap(try HTTPCache(path: cache).entry(forKey: key))
        XCTAssertEqual(entry.body, [], "the body is not in the database")
        XCTAssertEqual(try bodyFiles(), [entry.bodyFile!])

        _ = try spec.inputs(context: context(fetcher: fetcher(cache)))  // 304: same file
        XCTAssertEqual(try bodyFiles(), [entry.bodyFile!])

        try server.route("/team.ics", [.init(body: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", etag: "\"v2\"")])
        let third = context(fetcher: fetcher(cache))  // owns the body file while it lives
        let changed = try spec.inputs(context: third)
        XCTAssertEqual(try String(contentsOfFile: changed[0].path, encoding: .utf8), "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
        let files = try bodyFiles()
        XCTAssertEqual(files.count, 1, "the old body file is gone")
        XCTAssertNotEqual(files, [entry.bodyFile!])
        XCTAssertEqual(try server.log().map { $0.headers["if-none-match"] }, [nil, "\"v1\"", "\"v1\""])
    }

    func testLargeFeedIsStreamedToDisk() throws {
        // 40 MB of VEVENTs: downloaded to a file and handed over by path; the bytes arrive intact.
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-big-\(getpid()).ics")
        let event = "BEGIN:VEVENT\r\nUID:x@example.com\r\nDTSTART:20261124T090000Z\r\nSUMMARY:Stand-up\r\nEND:VEVENT\r\n"
        var text = "BEGIN:VCALENDAR\r\n"
        text += String(repeating: event, count: 40_000_000 / event.utf8.count)
        text += "END:VCALENDAR\r\n"
        try text.write(to: big, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: big) }
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/big.ics", [.init(bodyFile: big.path)])
        let run = context(fetcher: fetcher(Harness.temporaryCache(), requestTimeout: 120))  // owns the body file while it lives
        let inputs = try InputSpec(location: .url(server.base + "/big.ics")).inputs(context: run)
        let size = try FileManager.default.attributesOfItem(atPath: inputs[0].path)[.size] as? Int
        XCTAssertEqual(size, text.utf8.count)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: inputs[0].path)), try Data(contentsOf: big))
    }

    func testFeedThatWasNeverFetchedFailsClearlyWhenTheServerIsDown() throws {
        let server = try RecordedServer()
        let url = server.base + "/team.ics"
        server.stop()
        XCTAssertThrowsError(try InputSpec(location: .url(url)).inputs(context: context(fetcher: fetcher(Harness.temporaryCache())))) { error in
            XCTAssertEqual(error as? FetchError, .unavailable(.transport(url: url, message: "cannot connect to the server", connectFailure: true),
                                                              cache: "no cached copy to fall back on"))
            XCTAssertEqual("\(error)", "\(url): cannot connect to the server; no cached copy to fall back on")
        }
    }

    func testMissingFeedIsAnError() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        XCTAssertThrowsError(try InputSpec(location: .url(server.base + "/nope.ics")).inputs(context: context(fetcher: fetcher(Harness.temporaryCache())))) { error in
            XCTAssertEqual(error as? FetchError, .status(url: server.base + "/nope.ics", code: 404, message: "{\"error\": true, \"reason\": \"no recorded response for /nope.ics\"}"))
        }
    }
}
