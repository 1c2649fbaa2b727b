import Fetch
import Foundation
import Pipeline
import XCTest

/// Which requests are sent again after a failure, against the recorded-response server: idempotent methods on
/// 5xx and timeouts; POST and PATCH only when the server asks with Retry-After.
final class HTTPRetryTests: XCTestCase {
    var server: RecordedServer!

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    func settings(connectTimeout: Double = 3) -> HTTPSettings {
        HTTPSettings(userAgent: "calpipe-tests/1.0", connectTimeout: connectTimeout, requestTimeout: 5, retryBudget: 4, backoffBase: 0.05,
                     maximumBackoff: 0.2, maximumAttempts: 4, requestsPerSecond: 0)
    }

    func testAPostThatGets503WithoutRetryAfterIsSentOnce() throws {
        try server.route("/api/events", method: "POST", [.init(status: 503, body: "busy"), .init(status: 201, body: "{\"id\": 7}")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        XCTAssertThrowsError(try fetcher.send(.json("POST", server.base + "/api/events", body: Array("{}".utf8)))) { error in
            XCTAssertEqual(error as? FetchError, .notRetried(.status(url: server.base + "/api/events", code: 503, message: "busy"), method: "POST"))
            XCTAssertEqual("\(error)", "\(server.base)/api/events: HTTP 503 (busy); not retried: a POST is sent again only when the server asks with Retry-After")
            XCTAssertEqual(CalpipeError(error).message, "\(server.base)/api/events: HTTP 503 (busy); not retried: a POST is sent again only when the server asks with Retry-After")
        }
        XCTAssertEqual(try server.log().map(\.method), ["POST"])
    }

    func testAPostThatGets503WithRetryAfterIsSentAgain() throws {
        try server.route("/api/events", method: "POST", [.init(status: 503, headers: ["Retry-After": "1"], body: "busy"), .init(status: 201, body: "{\"id\": 7}")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let started = Date()
        let created = try fetcher.send(.json("POST", server.base + "/api/events", body: Array("{\"title\": \"Stand-up\"}".utf8)))
        XCTAssertEqual(created.response.status, 201)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.0, "waited as Retry-After asked")
        let log = try server.log()
        XCTAssertEqual(log.map(\.method), ["POST", "POST"])
        XCTAssertEqual(log[1].body, "{\"title\": \"Stand-up\"}", "the same body the second time")
    }

    func testAPatchThat429sWithoutRetryAfterIsSentOnce() throws {
        try server.route("/api/events/7", method: "PATCH", [.init(status: 429, body: "slow down"), .init(status: 200)])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        XCTAssertThrowsError(try fetcher.send(.json("PATCH", server.base + "/api/events/7", body: Array("{}".utf8)))) { error in
            XCTAssertEqual(error as? FetchError, .notRetried(.status(url: server.base + "/api/events/7", code: 429, message: "slow down"), method: "PATCH"))
        }
        XCTAssertEqual(try server.log().count, 1)
    }

    func testAPostThatTimesOutIsNotSentAgain() throws {
        try server.route("/api/events", method: "POST", [.init(status: 201, body: "late", delay: 2)])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings(connectTimeout: 0.4))
        XCTAssertThrowsError(try fetcher.send(.json("POST", server.base + "/api/events", body: Array("{}".utf8)))) { error in
            XCTAssertEqual("\(error)", "\(server.base)/api/events: no answer within 0.4 s (connect timeout); not retried: a POST is sent again only when the server asks with Retry-After")
        }
        XCTAssertEqual(try server.log().count, 1)
    }

    func testAGetThatGets503IsRetried() throws {
        try server.route("/feed.ics", [.init(status: 503, body: "busy"), .init(status: 502, body: "bad gateway"), .init(body: "BEGIN:VCALENDAR")])
        let result = try HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings()).get(server.base + "/feed.ics")
        XCTAssertEqual(result.response.text, "BEGIN:VCALENDAR")
        XCTAssertEqual(try server.log().map(\.method), ["GET", "GET", "GET"])
    }

    func testAPutThatGets500IsRetried() throws {
        try server.route("/api/events/7", method: "PUT", [.init(status: 500, body: "oops"), .init(status: 200, body: "{\"ok\": true}")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let updated = try fetcher.send(HTTPRequest(method: "PUT", url: server.base + "/api/events/7", body: Array("{}".utf8)))
        XCTAssertEqual(updated.response.status, 200)
        XCTAssertEqual(try server.log().map(\.method), ["PUT", "PUT"])
    }

    func testOnlySafeMethodsAreIdempotent() {
        for method in ["GET", "head", "PUT", "DELETE", "OPTIONS", "PROPFIND", "REPORT"] {
            XCTAssertTrue(HTTPRequest(method: method, url: "https://example.com/").isIdempotent, method)
        }
        for method in ["POST", "PATCH", "MKCALENDAR"] {
            XCTAssertFalse(HTTPRequest(method: method, url: "https://example.com/").isIdempotent, method)
        }
    }
}
