import Foundation
import XCTest

/// `calpipe serve` as subscribers and apps meet it (issue 27): two upstream feeds served by recorded servers on
/// loopback, merged by a pipeline, published with a token, revalidated, compressed, kept when an upstream goes
/// down; the days API read from the pipeline's database; SIGTERM.
final class ServeTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/serve")
    static let token = "s3cret-feed-token"

    var folder: URL!
    var team: RecordedServer!
    var oncall: RecordedServer!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // One server per upstream: a host of its own each, so one can go down while the other stays up.
        team = try RecordedServer()
        oncall = try RecordedServer()
        try team.route("/team.ics", [RecordedServer.Reply(headers: ["Content-Type": "text/calendar"], bodyFile: "../serve/team.ics", etag: "\"team-1\"")])
        try oncall.route("/oncall.ics", [RecordedServer.Reply(headers: ["Content-Type": "text/calendar"], bodyFile: "../serve/oncall.ics", etag: "\"oncall-1\"")])
    }

    override func tearDownWithError() throws {
        team?.stop()
        oncall?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The pipeline: both feeds merged (the offsite both hold kept once), "Canceled:" events dropped, titles prefixed by
    /// their feed, expanded and split over December 2026, to an ics file, a days document and a database.
    func writePipeline(serve: String = "{\"refresh\": \"1s\", \"token\": \"\(token)\"}", name: String = "merged.json") throws -> String {
        let text = """
            {
              "name": "team",
              "timezone": "UTC",
              "window": { "from": "2026-12-01", "to": "2027-01-01" },
              "sources": [
                { "type": "ics", "name": "Team", "url": "\(team.base)/team.ics" },
                { "type": "ics", "name": "Rota", "url": "\(oncall.base)/oncall.ics" }
              ],
              "stages": [
                { "type": "dedupe" },
                { "type": "transform", "rules": [
                  { "match": { "title": { "prefix": "canceled:", "ignore_case": true } }, "remove": true },
                  { "match": { "source": "Team" }, "title": { "prefix": "Team: " } },
                  { "match": { "source": "Rota" }, "title": { "prefix": "Rota: " } }
                ] },
                { "type": "expand" },
                { "type": "split" }
              ],
              "sinks": [
                { "type": "ics", "path": "out/team.ics" },
                { "type": "json", "path": "out/team-days.json", "shape": "days" },
                { "type": "sqlite", "path": "out/team.sqlite" }
              ],
              "serve": \(serve)
            }
            """
        try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        return name
    }

    /// Waits for the first run to publish `/team.ics` and returns it.
    func firstFeed(_ server: ServeProcess) throws -> LoopbackHTTP.Answer {
        var answer: LoopbackHTTP.Answer?
        let published = try ServeProcess.wait {
            answer = try server.http.get("/team.ics?token=\(Self.token)")
            return answer?.status == 200
        }
        XCTAssertTrue(published, "not published: \(answer?.status ?? 0) \(answer?.text ?? ""); \(server.stderr)")
        return try XCTUnwrap(answer)
    }

    /// [uid, summary] of every VEVENT, as python icalendar reads them.
    func eventsByICalendar(_ body: Data) throws -> [[String]] {
        let file = folder.appendingPathComponent("feed-\(UUID().uuidString).ics")
        try body.write(to: file)
        let result = try Self.run(["python3", Self.fixtures.appendingPathComponent("feed_events.py").path, file.path])
        if result.code != 0, result.stderr.contains("No module named 'icalendar'") {
            if ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] == "1" { XCTFail("python icalendar is missing (scripts/test installs it)") }
            throw XCTSkip("python icalendar is missing: run scripts/test, which installs scripts/test-requirements.txt")
        }
        XCTAssertEqual(result.code, 0, result.stderr)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String]] ?? []
    }

    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil, in directory: URL? = nil)
        throws -> (code: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box(), done = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread { errBox.data = errHandle.readDataToEndOfFile(); done.signal() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errBox.data, as: UTF8.self))
    }

    func testMergedFeedIsPublishedWithTokenRevalidationAndGzip() throws {
        let server = try ServeProcess([try writePipeline()], in: folder)
        let feed = try firstFeed(server)
        XCTAssertEqual(feed.headers["content-type"], "text/calendar; charset=utf-8")
        // Both upstreams' events, as a peer reads the published calendar: the offsite both feeds hold once (the team's, the
        // first source), the cancelled retro gone, every title prefixed by its feed.
        XCTAssertEqual(try eventsByICalendar(feed.body), [
            ["offsite-2026@example.com", "Team: Offsite"],
            ["oncall-2026-w49@example.com", "Rota: On call: Ana"],
            ["oncall-2026-w50@example.com", "Rota: On call: Ben"],
            ["team-review@example.com", "Team: Sprint review"],
            ["team-standup@example.com", "Team: Standup"],
        ])
        XCTAssertTrue(server.stderr.contains("team: 7 events read"), server.stderr)
        // The bytes served are the file the sink published.
        XCTAssertEqual(feed.body, try Data(contentsOf: folder.appendingPathComponent("out/team.ics")))

        // The token: required, as a query parameter or a bearer token.
        let anonymous = try server.http.get("/team.ics")
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertEqual(anonymous.headers["www-authenticate"], "Bearer realm=\"calpipe\"")
        XCTAssertEqual(try server.http.get("/team.ics?token=wrong").status, 401)
        XCTAssertEqual(try server.http.get("/team.ics", headers: ["Authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try server.http.get("/team.ics", headers: ["Authorization": "Bearer \(Self.token)"]).body, feed.body)
        XCTAssertEqual(try server.http.get("/team/days?from=2026-12-01&to=2026-12-02").status, 401)

        // Revalidation: the ETag and Last-Modified it sent answer 304, without a body.
        let etag = try XCTUnwrap(feed.headers["etag"])
        let lastModified = try XCTUnwrap(feed.headers["last-modified"])
        let revalidated = try server.http.get("/team.ics?token=\(Self.token)", headers: ["If-None-Match": etag])
        XCTAssertEqual(revalidated.status, 304)
        XCTAssertEqual(revalidated.body.count, 0)
        XCTAssertEqual(revalidated.headers["etag"], etag)
        XCTAssertEqual(try server.http.get("/team.ics?token=\(Self.token)", headers: ["If-Modified-Since": lastModified]).status, 304)
        XCTAssertEqual(try server.http.get("/team.ics?token=\(Self.token)", headers: ["If-None-Match": "\"other\""]).status, 200)

        // gzip when asked: another ETag for the other representation, the same bytes once decompressed.
        let packed = try server.http.get("/team.ics?token=\(Self.token)", headers: ["Accept-Encoding": "gzip, deflate"])
        XCTAssertEqual(packed.status, 200)
        XCTAssertEqual(packed.headers["content-encoding"], "gzip")
        XCTAssertEqual(packed.headers["vary"], "Accept-Encoding")
        XCTAssertNotEqual(packed.headers["etag"], etag)
        XCTAssertLessThan(packed.body.count, feed.body.count)
        let unpacked = try Self.run(["python3", "-c", "import gzip, sys; sys.stdout.write(gzip.decompress(sys.stdin.buffer.read()).decode())"], stdin: packed.body)
        XCTAssertEqual(unpacked.stdout, feed.text)
        XCTAssertEqual(try server.http.get("/team.ics?token=\(Self.token)", headers: ["Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]!]).status, 304)

        // The days document sink's file, and the health and metrics pages.
        let days = try server.http.get("/team.json?token=\(Self.token)")
        XCTAssertEqual(days.headers["content-type"], "application/json")
        XCTAssertEqual(days.body, try Data(contentsOf: folder.appendingPathComponent("out/team-days.json")))
        XCTAssertEqual(try server.http.get("/team.html?token=\(Self.token)").status, 404)
        let health = try server.http.get("/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertTrue(health.text.contains("\"team\":{"), health.text)
        let metrics = try server.http.get("/metrics")
        XCTAssertTrue(metrics.text.contains("calpipe_pipeline_runs_total{pipeline=\"team\"}"), metrics.text)
        XCTAssertTrue(metrics.text.contains("calpipe_pipeline_last_success_timestamp_seconds{pipeline=\"team\"}"), metrics.text)
        XCTAssertEqual(server.terminate(), 0)
    }

    func testDaysAPIAnswersWhatQueryPrints() throws {
        let server = try ServeProcess([try writePipeline()], in: folder)
        _ = try firstFeed(server)
        let answer = try server.http.get("/team/days?from=2026-12-01&to=2026-12-08&token=\(Self.token)")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.headers["content-type"], "application/json")
        // The same bytes as `calpipe query --json` for the range, from the same database.
        let query = try Self.run([ServeProcess.binary.path, "query", "out/team.sqlite", "--from", "2026-12-01", "--to", "2026-12-08", "--json"],
                                 environment: ServeProcess.environment(folder: folder), in: folder)
        XCTAssertEqual(query.code, 0, query.stderr)
        XCTAssertEqual(answer.text, query.stdout)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        let dayList = try XCTUnwrap(document["days"] as? [[String: Any]])
        XCTAssertEqual(dayList.count, 7)
        XCTAssertTrue(answer.text.contains("Team: Sprint review") && answer.text.contains("Rota: On call: Ana"), answer.text)

        // day=today&days=7: today is SOURCE_DATE_EPOCH's day, 2026-12-01: the same week.
        let week = try server.http.get("/team/days?day=today&days=7", headers: ["Authorization": "Bearer \(Self.token)"])
        XCTAssertEqual(week.text, answer.text)

        // Revalidation and gzip.
        let etag = try XCTUnwrap(answer.headers["etag"])
        XCTAssertEqual(try server.http.get("/team/days?from=2026-12-01&to=2026-12-08&token=\(Self.token)", headers: ["If-None-Match": etag]).status, 304)
        let packed = try server.http.get("/team/days?from=2026-12-01&to=2026-12-08&token=\(Self.token)", headers: ["Accept-Encoding": "gzip"])
        XCTAssertEqual(packed.headers["content-encoding"], "gzip")
        let unpacked = try Self.run(["python3", "-c", "import gzip, sys; sys.stdout.write(gzip.decompress(sys.stdin.buffer.read()).decode())"], stdin: packed.body)
        XCTAssertEqual(unpacked.stdout, answer.text)

        // Bad parameters: 400, one line of JSON naming the parameter.
        let bad = try server.http.get("/team/days?from=yesterdayish&to=2026-12-08&token=\(Self.token)")
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.headers["content-type"], "application/json")
        XCTAssertEqual(bad.text.filter { $0 == "\n" }.count, 1)
        let error = try XCTUnwrap(JSONSerialization.jsonObject(with: bad.body) as? [String: String])
        XCTAssertEqual(error["parameter"], "from")
        XCTAssertEqual(error["error"], "from: invalid day \"yesterdayish\" (expected YYYY-MM-DD, today, tomorrow, yesterday, +N, -N, "
                       + "a weekday such as monday, today+Nd or today-Nw)")
        let backwards = try server.http.get("/team/days?from=2026-12-08&to=2026-12-01&token=\(Self.token)")
        XCTAssertEqual(backwards.status, 400)
        XCTAssertTrue(backwards.text.contains("\"parameter\":\"to\""), backwards.text)
        let unknown = try server.http.get("/team/days?form=2026-12-01&token=\(Self.token)")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(unknown.text.contains("did you mean \\\"from\\\"?"), unknown.text)
        XCTAssertEqual(try server.http.get("/team/days?days=many&token=\(Self.token)").status, 400)
        XCTAssertEqual(server.terminate(), 0)
    }

    func testUpstreamDownKeepsTheLastGoodFeedServedWithItsAge() throws {
        let server = try ServeProcess([try writePipeline()], in: folder)
        let good = try firstFeed(server)
        XCTAssertNil(good.headers["x-calpipe-age"])
        let before = try eventsByICalendar(good.body)
        oncall.stop()
        // The next runs find the on-call feed's server gone: its cached copy keeps the feed whole, and says its age.
        var stale: LoopbackHTTP.Answer?
        let marked = try ServeProcess.wait {
            stale = try server.http.get("/team.ics?token=\(Self.token)")
            return stale?.headers["x-calpipe-age"] != nil
        }
        XCTAssertTrue(marked, "no age header: \(stale?.headers ?? [:]); \(server.stderr)")
        let answer = try XCTUnwrap(stale)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers["warning"], "110 calpipe \"Response is Stale\"")
        XCTAssertNotNil(Int(answer.headers["x-calpipe-age"] ?? ""))
        XCTAssertEqual(try eventsByICalendar(answer.body), before)
        XCTAssertTrue(server.stderr.contains("cached copy"), server.stderr)
        let metrics = try server.http.get("/metrics").text
        XCTAssertTrue(metrics.contains("calpipe_upstream_age_seconds{pipeline=\"team\",upstream=\"\(oncall.base)/oncall.ics\"}"), metrics)
        XCTAssertEqual(server.terminate(), 0)
    }

    func testSIGTERMStopsPromptlyWithExitZero() throws {
        let server = try ServeProcess([try writePipeline()], in: folder)
        _ = try firstFeed(server)
        let started = Date()
        XCTAssertEqual(server.terminate(within: 10), 0, server.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "SIGTERM took too long")
        XCTAssertTrue(server.stderr.contains("calpipe serve: stopped"), server.stderr)
        // Nothing half-written left behind.
        let outputs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
        XCTAssertEqual(outputs.filter { $0.contains(".calpipe-") }, [])
    }

    /// SIGTERM while a refresh waits for an upstream that stalls mid-answer (headers and half the body, then a
    /// minute of nothing: longer than the HTTP client's 30 s request timeout): the refresh is cancelled through its
    /// task, its request abandoned, nothing written, and the process ends within a few seconds.
    func testSIGTERMDuringASlowRefreshEndsItCleanly() throws {
        let body = try String(contentsOf: Self.fixtures.appendingPathComponent("team.ics"), encoding: .utf8)
        try team.route("/team.ics", [
            RecordedServer.Reply(headers: ["Content-Type": "text/calendar"], body: body),
            RecordedServer.Reply(headers: ["Content-Type": "text/calendar"], body: body, stall: 60),
        ])
        let server = try ServeProcess([try writePipeline()], in: folder)
        let first = try firstFeed(server)
        // The second run's request has reached the upstream, which is now stalling.
        XCTAssertTrue(try ServeProcess.wait { try team.requests(to: "/team.ics").count >= 2 }, server.stderr)
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        XCTAssertEqual(server.terminate(within: 20), 0, server.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "SIGTERM during a slow refresh took too long: \(server.stderr)")
        XCTAssertTrue(server.stderr.contains("calpipe serve: team: run stopped by the shutdown; its outputs are as they were\n"), server.stderr)
        XCTAssertTrue(server.stderr.hasSuffix("calpipe serve: stopped\n"), server.stderr)
        XCTAssertFalse(server.stderr.contains("run failed"), server.stderr)
        // The outputs are the first run's, whole; no temporary file left behind.
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("out/team.ics")), first.body)
        let outputs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
        XCTAssertEqual(outputs.filter { $0.contains(".calpipe-") }, [])
    }

    func testAPipelineWithoutTokenIsRefusedBeforeListening() throws {
        let file = try writePipeline(serve: "{\"refresh\": \"1h\"}")
        let result = try Self.run([ServeProcess.binary.path, "serve", file, "--listen", "127.0.0.1:0"],
                                  environment: ServeProcess.environment(folder: folder), in: folder)
        if result.stderr.contains("built without the server") { throw XCTSkip("calpipe was built without the Server trait") }
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "merged.json: serve: no token (add \"serve\": {\"token\": \"${FEED_TOKEN}\"} to give subscribers one, "
                       + "or \"public\": true to serve it to anyone)\n")
        let bad = try Self.run([ServeProcess.binary.path, "serve", try writePipeline(serve: "{\"refresh\": \"soon\", \"public\": true}")],
                               environment: ServeProcess.environment(folder: folder), in: folder)
        XCTAssertEqual(bad.code, 2)
        XCTAssertTrue(bad.stderr.contains("serve.refresh: invalid interval \"soon\""), bad.stderr)
    }
}
