import CalSQLite
import Fetch
import Foundation
import Pipeline
import XCTest

/// Feeds behind a login, read by real `calpipe run` processes against the loopback server: bearer token,
/// Basic from `user:password@` in the URL, a custom header, `.netrc`, and a token in the query. The secrets
/// must reach the server and nothing else: not the outputs, the database rows, the cache, the log or the
/// summary (all grepped below).
final class FeedLoginTests: XCTestCase {
    static let bearer = "BEARER-s3cr3t-8f2d1c"
    static let password = "PASSWORD-s3cr3t-77aa"
    static let apiKey = "APIKEY-s3cr3t-4e4e"
    static let netrcPassword = "NETRC-s3cr3t-9b9b"
    static let queryToken = "QUERY-s3cr3t-1c1c"
    static var secrets: [String] { [bearer, password, apiKey, netrcPassword, queryToken] }

    static func calendar(_ uid: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe tests//login//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)@example.com\r\n"
            + "DTSTAMP:20261120T090000Z\r\nDTSTART:20261124T090000Z\r\nDTEND:20261124T100000Z\r\nSUMMARY:Private \(uid)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
    }

    /// A folder with the pipeline, a `.netrc` and room for outputs and the cache.
    func setUpRun(server: RecordedServer, bearerToken: String = "${FEED_TOKEN}") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-login-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: true)
        let host = "127.0.0.1:\(server.port)"
        let pipeline = """
            {
              "name": "private",
              "timezone": "Europe/Berlin",
              "window": { "from": "2026-11-01", "to": "2026-12-01" },
              "sources": [
                { "type": "ics", "url": "http://\(host)/bearer.ics?access_token=${QUERY_TOKEN}&team=7", "bearer_token": "\(bearerToken)" },
                { "type": "ics", "url": "http://ada:${FEED_PASSWORD}@\(host)/basic.ics" },
                { "type": "ics", "url": "http://\(host)/header.ics", "headers": { "X-Api-Key": "${API_KEY}" } },
                { "type": "ics", "url": "http://\(host)/netrc.ics" }
              ],
              "stages": [ { "type": "split" } ],
              "sinks": [
                { "type": "json", "path": "out/events.json", "shape": "events" },
                { "type": "json", "path": "out/days.json", "shape": "days" },
                { "type": "ics", "path": "out/agenda.ics" },
                { "type": "sqlite", "path": "out/agenda.sqlite" }
              ]
            }
            """
        try pipeline.write(to: dir.appendingPathComponent("private.json"), atomically: true, encoding: .utf8)
        try "machine 127.0.0.1\n  login bob\n  password \(Self.netrcPassword)\n".write(to: dir.appendingPathComponent("netrc"), atomically: true, encoding: .utf8)
        return dir
    }

    func environment(_ dir: URL) -> [String: String] {
        ["FEED_TOKEN": Self.bearer, "FEED_PASSWORD": Self.password, "API_KEY": Self.apiKey, "QUERY_TOKEN": Self.queryToken,
         "NETRC": dir.appendingPathComponent("netrc").path, "CALPIPE_CACHE": dir.appendingPathComponent("cache/http.sqlite").path]
    }

    func routeAll(_ server: RecordedServer) throws {
        try server.route("/bearer.ics", [.init(body: Self.calendar("bearer"), etag: "\"b1\"", require: ["Authorization": "Bearer " + Self.bearer])])
        try server.route("/basic.ics", [.init(body: Self.calendar("basic"), etag: "\"b2\"", require: ["Authorization": Self.basic("ada", Self.password)])])
        try server.route("/header.ics", [.init(body: Self.calendar("header"), etag: "\"b3\"", require: ["X-Api-Key": Self.apiKey])])
        try server.route("/netrc.ics", [.init(body: Self.calendar("netrc"), etag: "\"b4\"", require: ["Authorization": Self.basic("bob", Self.netrcPassword)])])
    }

    /// Every file under the folder, and the texts, must be free of every secret.
    func assertNoSecrets(in dir: URL, texts: [String], files minimum: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        var checked = 0
        let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let url as URL in files where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            if url.lastPathComponent == "netrc" || url.lastPathComponent == "private.json" { continue }
            let bytes = try Data(contentsOf: url)
            for secret in Self.secrets {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(secret) found in \(url.path)", file: file, line: line)
                // Base64 of a Basic credential would hide a password from a plain grep.
                XCTAssertNil(bytes.range(of: Data(Data(secret.utf8).base64EncodedString().utf8)), "base64 of \(secret) in \(url.path)", file: file, line: line)
            }
            checked += 1
        }
        for text in texts {
            for secret in Self.secrets { XCTAssertFalse(text.contains(secret), "\(secret) in the output:\n\(text)", file: file, line: line) }
        }
        XCTAssertGreaterThanOrEqual(checked, minimum, "outputs, database and cache files were checked", file: file, line: line)
    }

    func testSecretsReachTheServerAndNothingElse() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try routeAll(server)
        let dir = try setUpRun(server: server)
        defer { try? FileManager.default.removeItem(at: dir) }

        let first = try CalpipeProcess.run(["run", "private.json"], in: dir, environment: environment(dir))
        XCTAssertEqual(first.code, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("4 events read"), first.stderr)
        let database = try Database(path: dir.appendingPathComponent("out/agenda.sqlite").path, configuration: .init(readOnly: true))
        let sources = try database.rows("SELECT DISTINCT source FROM events ORDER BY source").compactMap { $0.first?.text }
        let host = "127.0.0.1:\(server.port)"
        XCTAssertEqual(sources, ["http://\(host)/bearer.ics?access_token=***&team=7", "http://\(host)/header.ics", "http://\(host)/netrc.ics",
                                 "http://ada:***@\(host)/basic.ics"], "rows keyed by the redacted URL")

        // Second run: revalidated with the same credentials (304), summary shows the cached copies' ages.
        let second = try CalpipeProcess.run(["run", "private.json"], in: dir, environment: environment(dir))
        XCTAssertEqual(second.code, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("calpipe:   cached copy of http://ada:***@127.0.0.1:\(server.port)/basic.ics: 0 s old (revalidated)"), second.stderr)
        let log = try server.log()
        XCTAssertEqual(log.count, 8)
        XCTAssertEqual(log.filter { $0.headers["if-none-match"] != nil }.count, 4, "the second run revalidated every feed")

        // Third run: the server is down; the stale copies are used and named, redacted.
        server.stop()
        let third = try CalpipeProcess.run(["run", "private.json", "--summary-json", "out/summary.json", "--log-format", "json"], in: dir, environment: environment(dir))
        XCTAssertEqual(third.code, 0, third.stderr)
        XCTAssertTrue(third.stderr.contains("http://127.0.0.1:\(server.port)/bearer.ics?access_token=***&team=7: cannot connect to the server; using the cached copy from"), third.stderr)
        let summary = try String(contentsOf: dir.appendingPathComponent("out/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("\"cached_copies\""), summary)
        XCTAssertTrue(summary.contains("\"origin\": \"stale\""), summary)

        try assertNoSecrets(in: dir, texts: [first.stdout, first.stderr, second.stdout, second.stderr, third.stdout, third.stderr], files: 7)
    }

    func testWrongTokenFailsAtOnceWithTheStatusAndOneRequest() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try routeAll(server)
        let dir = try setUpRun(server: server, bearerToken: "WRONG-${FEED_TOKEN}")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CalpipeProcess.run(["run", "private.json"], in: dir, environment: environment(dir))
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: error: http://127.0.0.1:\(server.port)/bearer.ics?access_token=***&team=7: HTTP 401 (unauthorized: "), result.stderr)
        XCTAssertEqual(try server.requests(to: "/bearer.ics").count, 1, "no retry after a 401")
        // Loose bound (a loaded machine); before, the 401 waited for the 30-60 s timeout.
        XCTAssertLessThan(result.seconds, 15)
        try assertNoSecrets(in: dir, texts: [result.stdout, result.stderr], files: 1)
    }
}
