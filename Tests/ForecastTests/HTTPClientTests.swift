import CalHash
import CalSQLite
import Fetch
import Foundation
import Pipeline
import XCTest

/// The API side of the client (methods, bodies, headers, credentials), its answers to refused logins, and a
/// cache that repairs itself, against the recorded-response server.
final class HTTPClientTests: XCTestCase {
    var server: RecordedServer!

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    func settings(clock: TestClock? = nil) -> HTTPSettings {
        var s = HTTPSettings(userAgent: "calpipe-tests/1.0", connectTimeout: 3, requestTimeout: 5, retryBudget: 2, backoffBase: 0.05,
                             maximumBackoff: 0.2, maximumAttempts: 4, requestsPerSecond: 0)
        if let clock { s.clock = { clock.now } }
        return s
    }

    func testPostPutDeleteCarryTheirBodiesAndHeadersAndAreNeverCached() throws {
        try server.route("/api/events", method: "POST", [.init(status: 201, headers: ["Content-Type": "application/json"], body: "{\"id\": 7}")])
        try server.route("/api/events/7", method: "PUT", [.init(status: 200, body: "{\"ok\": true}")])
        try server.route("/api/events/7", method: "DELETE", [.init(status: 204)])
        try server.route("/api/events/7", method: "HEAD", [.init(headers: ["ETag": "\"e7\""], body: "whatever")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let token = RemoteCredentials(bearerToken: "tok-123", useNetrc: false)
        for _ in 0..<2 {
            let created = try fetcher.send(.json("POST", server.base + "/api/events", body: Array("{\"title\": \"Stand-up\"}".utf8), credentials: token))
            XCTAssertEqual(created.response.status, 201)
            XCTAssertEqual(created.response.text, "{\"id\": 7}")
            XCTAssertEqual(created.origin, .network)
        }
        let updated = try fetcher.send(HTTPRequest(method: "put", url: server.base + "/api/events/7", headers: ["If-Match": "\"e6\""], body: Array("{}".utf8)))
        XCTAssertEqual(updated.response.text, "{\"ok\": true}")
        XCTAssertEqual(try fetcher.send(HTTPRequest(method: "DELETE", url: server.base + "/api/events/7")).response.status, 204)
        let head = try fetcher.send(HTTPRequest(method: "HEAD", url: server.base + "/api/events/7"))
        XCTAssertEqual(head.response.header("etag"), "\"e7\"")
        XCTAssertEqual(head.response.body, [])

        let log = try server.log()
        XCTAssertEqual(log.map(\.method), ["POST", "POST", "PUT", "DELETE", "HEAD"], "POSTs are sent every time, never from the cache")
        XCTAssertEqual(log[0].body, "{\"title\": \"Stand-up\"}")
        XCTAssertEqual(log[0].headers["content-type"], "application/json")
        XCTAssertEqual(log[0].headers["authorization"], "Bearer tok-123")
        XCTAssertEqual(log[0].headers["user-agent"], "calpipe-tests/1.0")
        XCTAssertEqual(log[2].headers["if-match"], "\"e6\"")
        XCTAssertEqual(log[2].body, "{}")
    }

    func testWebDAVMethodsForCalDAV() throws {
        let multistatus = "<?xml version=\"1.0\"?><d:multistatus xmlns:d=\"DAV:\"/>"
        try server.route("/dav/cal/", method: "REPORT", [.init(status: 207, headers: ["Content-Type": "application/xml"], body: multistatus)])
        try server.route("/dav/cal/", method: "PROPFIND", [.init(status: 207, body: multistatus)])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let query = "<c:calendar-query xmlns:c=\"urn:ietf:params:xml:ns:caldav\"/>"
        let report = try fetcher.send(HTTPRequest(method: "REPORT", url: server.base + "/dav/cal/", headers: ["Depth": "1", "Content-Type": "application/xml"],
                                                  body: Array(query.utf8), credentials: RemoteCredentials(username: "ada", password: "pw", useNetrc: false)))
        XCTAssertEqual(report.response.status, 207)
        XCTAssertEqual(report.response.text, multistatus)
        XCTAssertEqual(try fetcher.send(HTTPRequest(method: "PROPFIND", url: server.base + "/dav/cal/", headers: ["Depth": "0"])).response.status, 207)
        let log = try server.log()
        XCTAssertEqual(log.map(\.method), ["REPORT", "PROPFIND"])
        XCTAssertEqual(log[0].body, query)
        XCTAssertEqual(log[0].headers["depth"], "1")
        XCTAssertEqual(log[0].headers["authorization"], "Basic " + Data("ada:pw".utf8).base64EncodedString())
    }

    func testBodyToFileStreamsWithLengthAndDigest() throws {
        let text = String(repeating: "BEGIN:VEVENT\r\nEND:VEVENT\r\n", count: 5_000)
        try server.route("/feed.ics", [.init(body: text)])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let result = try fetcher.send(.get(server.base + "/feed.ics"), into: .file)
        XCTAssertEqual(result.response.body, [], "the body is in the file, not in memory")
        XCTAssertEqual(try String(contentsOfFile: try XCTUnwrap(result.bodyPath), encoding: .utf8), text)
        XCTAssertEqual(result.bodyLength, Int64(text.utf8.count))
        XCTAssertEqual(result.bodySHA256, SHA256.hex(of: Array(text.utf8)))
    }

    func testUnauthorizedWithAChallengeIsAnsweredAtOnceWithoutRetries() throws {
        try server.route("/private.ics", [.init(body: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", require: ["Authorization": "Bearer right"])])
        try server.route("/forbidden.ics", [.init(status: 403, body: "no")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let refused = try fetcher.send(.get(server.base + "/private.ics", credentials: RemoteCredentials(bearerToken: "wrong", useNetrc: false)))
        XCTAssertEqual(refused.response.status, 401, "URLSession's challenge is turned into the answer (it used to wait for the timeout)")
        XCTAssertEqual(try fetcher.send(.get(server.base + "/forbidden.ics")).response.status, 403)
        XCTAssertEqual(try server.requests(to: "/private.ics").count, 1)
        XCTAssertEqual(try server.requests(to: "/forbidden.ics").count, 1)
        let allowed = try fetcher.send(.get(server.base + "/private.ics", credentials: RemoteCredentials(bearerToken: "right", useNetrc: false)))
        XCTAssertEqual(allowed.response.status, 200)
    }

    func testCredentialsAreDroppedOnARedirectToAnotherHost() throws {
        // 127.0.0.1 redirects to localhost: same server, another origin.
        let elsewhere = "http://localhost:\(server.port)/landing.ics"
        try server.route("/moved.ics", [.init(status: 302, headers: ["Location": elsewhere])])
        try server.route("/landing.ics", [.init(body: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")])
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: settings())
        let credentials = RemoteCredentials(headers: ["X-Api-Key": "k-1"], bearerToken: "tok", useNetrc: false)
        let result = try fetcher.send(.get(server.base + "/moved.ics", credentials: credentials))
        XCTAssertEqual(result.response.status, 200)
        let log = try server.log()
        XCTAssertEqual(log.map(\.path), ["/moved.ics", "/landing.ics"])
        XCTAssertEqual(log[0].headers["authorization"], "Bearer tok")
        XCTAssertEqual(log[0].headers["x-api-key"], "k-1")
        XCTAssertNil(log[1].headers["authorization"])
        XCTAssertNil(log[1].headers["x-api-key"])
    }

    func testCacheKeysAndStoredURLsHoldNoSecretsButTellLoginsApart() throws {
        try server.route("/cal.ics", [.init(body: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")])
        let cache = Harness.temporaryCache()
        let fetcher = HTTPFetcher(cachePath: cache, settings: settings())
        _ = try fetcher.send(.get(server.base + "/cal.ics?token=alice-secret-1"))
        _ = try fetcher.send(.get(server.base + "/cal.ics?token=bob-secret-22"))
        XCTAssertEqual(try fetcher.send(.get(server.base + "/cal.ics?token=alice-secret-1")).origin, .cache, "alice's own entry")
        XCTAssertEqual(try server.log().count, 2, "bob's token did not get alice's copy")
        let database = try Database(path: cache, configuration: .init(readOnly: true))
        let rows = try database.rows("SELECT key, url FROM http_cache ORDER BY key").map { $0.compactMap(\.text) }
        XCTAssertEqual(rows.count, 2, "two tokens, two entries")
        for row in rows {
            XCTAssertTrue(row[0].hasPrefix(server.base + "/cal.ics?token=*** auth:"), row[0])
            XCTAssertEqual(row[1], server.base + "/cal.ics?token=***")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: cache)) + ((try? Data(contentsOf: URL(fileURLWithPath: cache + "-wal"))) ?? Data())
        XCTAssertNil(bytes.range(of: Data("alice-secret-1".utf8)))
        XCTAssertNil(bytes.range(of: Data("bob-secret-22".utf8)))
    }

    func testACorruptCacheIsMovedAsideAndRebuilt() throws {
        try server.route("/doc", [.init(body: "fresh")])
        let cache = Harness.temporaryCache()
        try FileManager.default.createDirectory(atPath: (cache as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(String(repeating: "this is not a database ", count: 200).utf8).write(to: URL(fileURLWithPath: cache))
        let fetcher = HTTPFetcher(cachePath: cache, settings: settings())
        XCTAssertEqual(try fetcher.get(server.base + "/doc").response.text, "fresh")
        let note = try XCTUnwrap(fetcher.cacheProblem)
        XCTAssertTrue(note.hasPrefix("the HTTP cache \(cache) was damaged (the file is damaged or is not a SQLite database); moved it to \(cache).corrupt-"), note)
        XCTAssertTrue(note.hasSuffix(" and started a new one"), note)
        let folder = (cache as NSString).deletingLastPathComponent
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }
        XCTAssertEqual(aside.count, 1, "the damaged file is kept for inspection")
        // The next run uses the rebuilt cache without a word.
        let next = HTTPFetcher(cachePath: cache, settings: settings())
        XCTAssertEqual(try next.get(server.base + "/doc").origin, .cache)
        XCTAssertNil(next.cacheProblem)
        XCTAssertEqual(try server.log().count, 1)
    }

    func testATruncatedCachedBodyIsDownloadedAgainNotRevalidated() throws {
        try server.route("/team.ics", [.init(bodyFile: "feed.ics", etag: "\"v1\"")])
        let cache = Harness.temporaryCache()
        let expected = try Data(contentsOf: RecordedServer.fixtures.appendingPathComponent("feed.ics"))
        let url = server.base + "/team.ics"
        _ = try HTTPFetcher(cachePath: cache, settings: settings()).download(url, policy: CachePolicy(defaultTTL: 0))
        // Cut the stored body short, as a full disk or a killed copy would.
        let entry = try XCTUnwrap(try HTTPCache(path: cache).entry(forKey: NormalizedURL(url)!.text))
        let body = URL(fileURLWithPath: cache + ".bodies").appendingPathComponent(try XCTUnwrap(entry.bodyFile))
        try expected.prefix(40).write(to: body)

        let fetcher = HTTPFetcher(cachePath: cache, settings: settings())
        let again = try fetcher.download(url, policy: CachePolicy(defaultTTL: 0))
        XCTAssertEqual(again.result.origin, .network, "downloaded again")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again.path)), expected)
        XCTAssertEqual(fetcher.takeNotes(), ["\(url): the cached body has 40 bytes, \(expected.count) were stored; downloading it again"])
        let log = try server.log()
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log[1].headers["if-none-match"], "a damaged copy is never revalidated (a 304 would keep it)")

        // Same length, other bytes: the digest catches it.
        let stored = try XCTUnwrap(try HTTPCache(path: cache).entry(forKey: NormalizedURL(url)!.text))
        var flipped = expected
        flipped[10] ^= 0x20
        try flipped.write(to: URL(fileURLWithPath: cache + ".bodies").appendingPathComponent(try XCTUnwrap(stored.bodyFile)))
        let third = HTTPFetcher(cachePath: cache, settings: settings())
        XCTAssertEqual(try third.download(url, policy: CachePolicy(defaultTTL: 0)).result.origin, .network)
        XCTAssertEqual(third.takeNotes(), ["\(url): the cached body's SHA-256 differs from the stored one; downloading it again"])
        XCTAssertNil(try server.log()[2].headers["if-none-match"])
    }

    func testAnOlderCacheLayoutIsRebuilt() throws {
        // A cache file from before bodies carried their digest: user_version 0, no body_sha256 column.
        let cache = Harness.temporaryCache()
        try FileManager.default.createDirectory(atPath: (cache as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let old = try Database(path: cache)
        try old.execute("CREATE TABLE http_cache (key TEXT PRIMARY KEY NOT NULL, url TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL, body_file TEXT, content_type TEXT, etag TEXT, last_modified TEXT, stored_at REAL NOT NULL, fresh_until REAL NOT NULL)")
        try old.execute("INSERT INTO http_cache VALUES ('k', 'u', 200, x'00', NULL, NULL, NULL, NULL, 0, 1e300)")
        let reopened = try HTTPCache(path: cache)
        XCTAssertEqual(try reopened.count(), 0)
        XCTAssertNil(reopened.repairNote)
    }
}

/// Two runs sharing one cache file: a run that holds the write lock for a while delays the other's store, it
/// does not make it give up (the busy timeout is 30 s by default, configurable).
final class HTTPCacheLockTests: XCTestCase {
    func testAWriteLockHeldByAnotherRunIsWaitedFor() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/doc", [.init(body: "fresh")])
        let cache = Harness.temporaryCache()
        _ = try HTTPCache(path: cache)  // create it
        let other = try Database(path: cache)
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("INSERT INTO http_cache (key, url, status, body, body_length, body_sha256, stored_at, fresh_until) VALUES ('x', 'x', 200, x'', 0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 0, 1e300)")
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let box = UncheckedBox(other)
        Thread.detachNewThread {
            release.wait()
            try? box.value.execute("COMMIT")
            released.signal()
        }
        // Longer than the 5 s busy timeout of before gave in practice (it gave up after about 3.8 s).
        DispatchQueue.global().asyncAfter(deadline: .now() + 4.5) { release.signal() }
        let fetcher = HTTPFetcher(cachePath: cache, settings: HTTPSettings(requestsPerSecond: 0))
        XCTAssertEqual(try fetcher.get(server.base + "/doc").response.text, "fresh")
        released.wait()
        XCTAssertNil(fetcher.cacheProblem)
        XCTAssertEqual(try HTTPCache(path: cache).count(), 2, "stored once the other run let go")
    }

    func testALockHeldLongerThanTheBusyTimeoutIsSaid() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/doc", [.init(body: "fresh")])
        let cache = Harness.temporaryCache()
        _ = try HTTPCache(path: cache)
        let other = try Database(path: cache)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        var settings = HTTPSettings(requestsPerSecond: 0)
        settings.cacheBusyTimeout = 0.3
        let fetcher = HTTPFetcher(cachePath: cache, settings: settings)
        XCTAssertEqual(try fetcher.get(server.base + "/doc").response.text, "fresh", "fetched without the cache")
        XCTAssertEqual(fetcher.cacheProblem, "cannot use the HTTP cache \(cache): locked by another run for more than 0.3 s; continuing without it")
    }
}

final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
