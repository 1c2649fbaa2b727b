import Fetch
import Foundation
import Pipeline
import XCTest

/// A settable clock for freshness tests (expiry without waiting).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.lock(); defer { lock.unlock() }; return current }
    func advance(_ seconds: Double) { lock.lock(); current += seconds; lock.unlock() }
}

/// The HTTP client and its cache against the recorded-response server.
final class HTTPFetcherTests: XCTestCase {
    var server: RecordedServer!

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    func settings(clock: TestClock? = nil, budget: Double = 2, timeout: Double = 5, attempts: Int = 5) -> HTTPSettings {
        var s = HTTPSettings(userAgent: "calpipe-tests/1.0 (tests@example.com)", connectTimeout: timeout, requestTimeout: timeout,
                             retryBudget: budget, backoffBase: 0.05, maximumBackoff: 0.2, maximumAttempts: attempts, requestsPerSecond: 0)
        if let clock { s.clock = { clock.now } }
        return s
    }

    func testMaxAgeKeepsTheAnswerFreshThenExpires() throws {
        try server.route("/v1/forecast", [.init(headers: ["Cache-Control": "public, max-age=600"], bodyFile: "openmeteo-berlin.json")])
        let clock = TestClock(Harness.now)
        let cache = Harness.temporaryCache()
        let url = server.base + "/v1/forecast?latitude=52.52&longitude=13.41"
        let first = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(url)
        XCTAssertEqual(first.origin, .network)
        clock.advance(300)
        let second = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(url)
        XCTAssertEqual(second.origin, .cache)
        XCTAssertEqual(second.response.body, first.response.body)
        XCTAssertEqual(try server.log().count, 1)
        clock.advance(301)
        let third = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(url)
        XCTAssertEqual(third.origin, .network)
        XCTAssertEqual(try server.log().count, 2)
    }

    func testNoStoreIsNeverCached() throws {
        try server.route("/feed.ics", [.init(headers: ["Cache-Control": "no-store"], bodyFile: "feed.ics")])
        let cache = Harness.temporaryCache()
        let fetcher = HTTPFetcher(cachePath: cache, settings: settings())
        _ = try fetcher.get(server.base + "/feed.ics", policy: CachePolicy(defaultTTL: 3600))
        let again = try fetcher.get(server.base + "/feed.ics", policy: CachePolicy(defaultTTL: 3600))
        XCTAssertEqual(again.origin, .network)
        XCTAssertEqual(try server.log().count, 2)
        XCTAssertEqual(try HTTPCache(path: cache).count(), 0)
    }

    func testExpiresRelativeToTheServersDate() throws {
        // Date and Expires one hour apart: fresh for an hour by our clock, whatever the server's clock says.
        try server.route("/doc", [.init(headers: ["Date": "Mon, 23 Nov 2026 07:00:00 GMT", "Expires": "Mon, 23 Nov 2026 08:00:00 GMT"], body: "x")])
        let clock = TestClock(Harness.now)
        let cache = Harness.temporaryCache()
        _ = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(server.base + "/doc", policy: CachePolicy(defaultTTL: 0))
        clock.advance(3599)
        XCTAssertEqual(try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(server.base + "/doc", policy: CachePolicy(defaultTTL: 0)).origin, .cache)
        clock.advance(2)
        XCTAssertEqual(try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(server.base + "/doc", policy: CachePolicy(defaultTTL: 0)).origin, .network)
    }

    func testLastModifiedRevalidation() throws {
        let stamp = "Mon, 23 Nov 2026 06:58:12 GMT"
        // Expires equal to Date: stale at once, so the next use revalidates.
        try server.route("/doc", [.init(headers: ["Date": "Mon, 23 Nov 2026 07:30:00 GMT", "Expires": "Mon, 23 Nov 2026 07:30:00 GMT"], body: "{\"v\":1}", lastModified: stamp)])
        let cache = Harness.temporaryCache()
        let first = try HTTPFetcher(cachePath: cache, settings: settings()).get(server.base + "/doc")
        XCTAssertEqual(first.origin, .network)
        let second = try HTTPFetcher(cachePath: cache, settings: settings()).get(server.base + "/doc")
        XCTAssertEqual(second.origin, .revalidated)
        XCTAssertEqual(second.response.text, "{\"v\":1}")
        let requests = try server.log()
        guard requests.count == 2 else { return XCTFail("expected two requests, got \(requests.count)") }
        XCTAssertNil(requests[0].headers["if-modified-since"])
        XCTAssertEqual(requests[1].headers["if-modified-since"], stamp)
    }

    func testRetryAfterIsHonouredThenSuccess() throws {
        try server.route("/v1/forecast", [
            .init(status: 429, headers: ["Retry-After": "1", "Content-Type": "application/json"],
                  body: "{\"error\":true,\"reason\":\"Minutely API request limit exceeded. Please try again in one minute.\"}"),
            .init(bodyFile: "openmeteo-berlin.json"),
        ])
        let started = Date()
        let result = try HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings(budget: 5)).get(server.base + "/v1/forecast?x=1")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.origin, .network)
        XCTAssertEqual(result.response.status, 200)
        XCTAssertEqual(try server.log().count, 2)
        XCTAssertGreaterThanOrEqual(elapsed, 1.0, "waited as Retry-After asked")
        XCTAssertLessThan(elapsed, 5.0)
    }

    func testRetryAfterBeyondTheBudgetStopsTheHostForTheRun() throws {
        try server.route("/a", [.init(status: 503, headers: ["Retry-After": "120"], body: "down for maintenance")])
        try server.route("/b", [.init(body: "ok")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings(budget: 2))
        XCTAssertThrowsError(try fetcher.get(server.base + "/a")) { error in
            XCTAssertEqual(error as? FetchError, .limitReached(host: "127.0.0.1:\(server.port)", message: "asked to retry after 120 s, beyond the retry budget"))
        }
        XCTAssertThrowsError(try fetcher.get(server.base + "/b"))
        XCTAssertEqual(try server.log().count, 1)
    }

    func testInterruptionStopsALongRetryWait() throws {
        try server.route("/busy", [.init(status: 429, headers: ["Retry-After": "30"], body: "busy")])
        let cancellation = Cancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel(reason: "interrupted (SIGINT)") }
        let started = Date()
        let policy = CachePolicy(isCancelled: { cancellation.cancelledReason != nil })
        XCTAssertThrowsError(try HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings(budget: 60)).get(server.base + "/busy", policy: policy)) { error in
            XCTAssertEqual(error as? FetchError, .interrupted(url: server.base + "/busy"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "far less than the 30 s Retry-After")
    }

    func testTimeoutOnAServerThatStallsMidAnswer() throws {
        // The answer starts at once (no connect timeout), then stops half-way: the whole-request timeout strikes.
        try server.route("/slow", [.init(body: String(repeating: "late ", count: 1_000), stall: 8)])
        var s = settings(budget: 0, timeout: 0.6, attempts: 1)
        s.connectTimeout = 3
        let started = Date()
        XCTAssertThrowsError(try HTTPFetcher(cachePath: Harness.temporaryCache(), settings: s).get(server.base + "/slow")) { error in
            XCTAssertEqual(error as? FetchError, .timeout(url: server.base + "/slow", seconds: 0.6))
        }
        // Generous: the machine may be loaded; what matters is that it does not wait for the answer at 8 s.
        XCTAssertLessThan(Date().timeIntervalSince(started), 6, "before the server's answer at 8 s")
    }

    func testSilentServerHitsTheConnectTimeoutBeforeTheWholeRequestTimeout() throws {
        try server.route("/silent", [.init(body: "late", delay: 9)])
        var s = settings(budget: 0, timeout: 10, attempts: 1)
        s.connectTimeout = 0.5
        let started = Date()
        XCTAssertThrowsError(try HTTPFetcher(cachePath: Harness.temporaryCache(), settings: s).get(server.base + "/silent")) { error in
            XCTAssertEqual(error as? FetchError, .connectTimeout(url: server.base + "/silent", seconds: 0.5))
            XCTAssertEqual((error as? FetchError)?.description, "\(server.base)/silent: no answer within 0.5 s (connect timeout)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 7, "long before the 10 s request timeout and the answer at 9 s")
    }

    func testGeocodingAnswersAreKeptForGood() throws {
        try server.route("/v1/search", [.init(headers: ["Cache-Control": "max-age=60"], bodyFile: "geocoding-muenchen.json")])
        let clock = TestClock(Harness.now)
        let cache = Harness.temporaryCache()
        let url = server.base + "/v1/search?name=M%C3%BCnchen&count=5&language=en&format=json"
        _ = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(url, policy: CachePolicy(keepForever: true))
        clock.advance(10 * 365 * 86_400)
        XCTAssertEqual(try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(url, policy: CachePolicy(keepForever: true)).origin, .cache)
        XCTAssertEqual(try server.log().count, 1)
    }

    func testOldExpiredEntriesArePrunedButGeocodingIsKept() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        try server.route("/v1/search", [.init(bodyFile: "geocoding-muenchen.json")])
        let clock = TestClock(Harness.now)
        let cache = Harness.temporaryCache()
        let first = HTTPFetcher(cachePath: cache, settings: settings(clock: clock))
        _ = try first.get(server.base + "/v1/forecast?day=1", policy: CachePolicy(defaultTTL: 3600))
        _ = try first.get(server.base + "/v1/search?name=x", policy: CachePolicy(keepForever: true))
        XCTAssertEqual(try HTTPCache(path: cache).count(), 2)
        clock.advance(29 * 86_400)
        _ = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(server.base + "/v1/search?name=x", policy: CachePolicy(keepForever: true))
        XCTAssertEqual(try HTTPCache(path: cache).count(), 2, "expired, but not yet 30 days old")
        clock.advance(2 * 86_400)
        _ = try HTTPFetcher(cachePath: cache, settings: settings(clock: clock)).get(server.base + "/v1/search?name=x", policy: CachePolicy(keepForever: true))
        XCTAssertEqual(try HTTPCache(path: cache).count(), 1)
        XCTAssertEqual(try server.log().count, 2)
    }

    func testUnwritableCacheStillFetches() throws {
        try server.route("/doc", [.init(body: "fresh")])
        let fetcher = HTTPFetcher(cachePath: "/proc/calpipe-no-such-dir/cache.sqlite", settings: settings())
        XCTAssertEqual(try fetcher.get(server.base + "/doc").response.text, "fresh")
        XCTAssertTrue(fetcher.cacheProblem?.hasPrefix("cannot use the HTTP cache /proc/calpipe-no-such-dir/cache.sqlite: ") ?? false, fetcher.cacheProblem ?? "nil")
        XCTAssertTrue(fetcher.cacheProblem?.hasSuffix("; continuing without it") ?? false, fetcher.cacheProblem ?? "nil")
    }

    func testDefaultCachePath() {
        XCTAssertEqual(HTTPCache.defaultPath(environment: ["HOME": "/home/ada"]), "/home/ada/.cache/calpipe/http-cache.sqlite")
        XCTAssertEqual(HTTPCache.defaultPath(environment: ["HOME": "/home/ada", "XDG_CACHE_HOME": "/var/cache/ada"]), "/var/cache/ada/calpipe/http-cache.sqlite")
        XCTAssertEqual(HTTPCache.defaultPath(environment: ["HOME": "/home/ada", "XDG_CACHE_HOME": "relative"]), "/home/ada/.cache/calpipe/http-cache.sqlite",
                       "XDG requires an absolute path")
        XCTAssertEqual(HTTPCache.defaultPath(environment: ["HOME": "/home/ada", "XDG_CACHE_HOME": "/x", "CALPIPE_CACHE": "/tmp/c.sqlite"]), "/tmp/c.sqlite")
        XCTAssertEqual(HTTPFetcher(environment: ["HOME": "/home/ada"]).cachePath, "/home/ada/.cache/calpipe/http-cache.sqlite")
    }

    func testCacheKeyIsTheNormalisedURL() throws {
        XCTAssertEqual(NormalizedURL("HTTPS://API.Example.COM:443/v1/x?b=2&a=1#frag")?.text, "https://api.example.com/v1/x?a=1&b=2")
        XCTAssertEqual(NormalizedURL("http://127.0.0.1:8080")?.text, "http://127.0.0.1:8080/")
        XCTAssertEqual(NormalizedURL("http://127.0.0.1:8080")?.authority, "127.0.0.1:8080")
        XCTAssertNil(NormalizedURL("ftp://example.com/x"))
    }

    func testRequestsToOneHostGoOneAtATime() throws {
        try server.route("/slow", [.init(body: "ok", delay: 0.3)])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let base = server.base
        let answers = Collected()
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            answers.add(log: (try? fetcher.get(base + "/slow?i=\(i)", policy: CachePolicy(defaultTTL: 0)).response.text) ?? "failed")
        }
        XCTAssertEqual(answers.log, ["ok", "ok", "ok"])
        // Three 0.3 s answers one after another, not side by side.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.9)
        XCTAssertEqual(try server.log().count, 3)
    }

    func testRequestsToOneHostAreSpacedByTheRateLimit() throws {
        try server.route("/r", [.init(body: "ok")])
        var s = settings()
        s.requestsPerSecond = 5
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: s)
        let started = Date()
        for i in 0..<4 { _ = try fetcher.get(server.base + "/r?i=\(i)", policy: CachePolicy(defaultTTL: 0)) }
        // Four requests at five per second: at least three gaps of 0.2 s.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.6)
    }
}

/// Header parsing, checked against the examples of RFC 9110 and RFC 9111.
final class HTTPHeaderTests: XCTestCase {
    func testHTTPDateForms() {
        // RFC 9110 5.6.7: the three forms of one instant, 1994-11-06T08:49:37Z = 784111777.
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), 784_111_777)
        XCTAssertNil(HTTPDate.parse("0"))
        XCTAssertNil(HTTPDate.parse("Sun, 31 Feb 1994 08:49:37 GMT"))
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    func testFreshnessRules() {
        let now = 1_000_000.0
        func fresh(_ headers: [String: String]) -> Freshness { Freshness.of(HTTPResponse(status: 200, headers: headers), defaultTTL: 3600, now: now) }
        XCTAssertEqual(fresh([:]), Freshness(storable: true, freshUntil: now + 3600))
        XCTAssertEqual(fresh(["Cache-Control": "max-age=60", "Expires": "Sun, 06 Nov 1994 08:49:37 GMT"]), Freshness(storable: true, freshUntil: now + 60))
        XCTAssertEqual(fresh(["Cache-Control": "max-age=60", "Age": "20"]), Freshness(storable: true, freshUntil: now + 40))
        XCTAssertEqual(fresh(["Cache-Control": "no-store, max-age=60"]), Freshness(storable: false, freshUntil: now))
        XCTAssertEqual(fresh(["Cache-Control": "no-cache"]), Freshness(storable: true, freshUntil: now))
        XCTAssertEqual(fresh(["Expires": "0"]), Freshness(storable: true, freshUntil: now))
        XCTAssertEqual(fresh(["Expires": "Sun, 06 Nov 1994 08:49:37 GMT"]), Freshness(storable: true, freshUntil: 784_111_777))
    }
}

/// Retry waits: Retry-After in both forms, and the jittered exponential backoff's bounds.
final class RetryTimingTests: XCTestCase {
    func testRetryAfterSecondsAndDate() {
        let now = 784_111_777.0  // Sun, 06 Nov 1994 08:49:37 GMT
        XCTAssertEqual(RetryAfterText.seconds("120", now: now), 120)
        XCTAssertEqual(RetryAfterText.seconds("Sun, 06 Nov 1994 08:50:07 GMT", now: now), 30)
        XCTAssertEqual(RetryAfterText.seconds("Sun, 06 Nov 1994 08:49:00 GMT", now: now), 0, "a date in the past means now")
        XCTAssertNil(RetryAfterText.seconds("soon", now: now))
        XCTAssertNil(RetryAfterText.seconds(nil, now: now))
    }

    func testBackoffDoublesWithJitterAndIsCapped() {
        let backoff = BackoffSchedule(base: 1, maximum: 8)
        XCTAssertEqual(backoff.wait(forRetry: 0, random: 0), 0.5)
        XCTAssertEqual(backoff.wait(forRetry: 0, random: 1), 1)
        XCTAssertEqual(backoff.wait(forRetry: 2, random: 0), 2)
        XCTAssertEqual(backoff.wait(forRetry: 2, random: 1), 4)
        XCTAssertEqual(backoff.wait(forRetry: 10, random: 1), 8)
        XCTAssertEqual(backoff.wait(forRetry: 10, random: 0), 4)
    }
}
