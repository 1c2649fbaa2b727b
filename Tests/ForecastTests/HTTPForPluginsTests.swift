import CalpipeKit
import Foundation
import XCTest

/// A plugin from another package, written against `import CalpipeKit` only (docs/architecture.md, "HTTP for
/// plugins"): a source that asks an API with a POST whose body streams from a file and with a bearer token, and
/// downloads a list to a file, through the pipeline's HTTP client (its cache and its turns at each host), against
/// the recorded-response server.
final class HTTPForPluginsTests: XCTestCase {
    final class APISource: EventSource {
        final class Seen: @unchecked Sendable { var client: HTTPFetcher? }

        static func descriptor(_ seen: Seen) -> SourceDescriptor {
            SourceDescriptor(
                type: "api-events", kind: .source, summary: "events from a JSON API",
                options: [
                    OptionDoc("base_url", "url", required: true, "the API's address"),
                    OptionDoc("token", "string", required: true, "the API's bearer token"),
                    OptionDoc("query_file", "path", required: true, "the search, sent as the POST body"),
                ],
                make: { options in
                    let base = options.string("base_url") ?? ""
                    let token = options.string("token") ?? ""
                    let queryFile = options.path("query_file") ?? ""
                    try options.finish()
                    // One client for this plugin, sharing the pipeline's cache file and host turns.
                    let client = options.environment.httpClient(settings: HTTPSettings(userAgent: "api-plugin/1.0 (ops@example.com)", requestsPerSecond: 0))
                    seen.client = client
                    return APISource(client: client, base: base, token: token, queryFile: queryFile)
                })
        }

        let client: HTTPFetcher
        let base: String
        let credentials: RemoteCredentials
        let queryFile: String

        init(client: HTTPFetcher, base: String, token: String, queryFile: String) {
            self.client = client
            self.base = base
            credentials = RemoteCredentials(bearerToken: token, useNetrc: false)
            self.queryFile = queryFile
        }

        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            let search = HTTPRequest(method: "POST", url: base + "/api/search", headers: ["Content-Type": "application/json"],
                                     bodyFile: queryFile, credentials: credentials)
            let found = try client.send(search)
            guard found.response.isSuccess, let titles = try JSONSerialization.jsonObject(with: Data(found.response.body)) as? [String] else {
                throw CalpipeError("\(found.url): HTTP \(found.response.status)")
            }
            let list = try client.send(.get(base + "/api/rooms.txt", credentials: credentials), into: .file)
            let room = try String(contentsOfFile: list.bodyPath ?? "", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            var events: [Event] = []
            for (i, title) in titles.enumerated() {
                let day = CivilDate(daysSinceEpoch: CivilDate(year: 2026, month: 12, day: 1).daysSinceEpoch + i)
                var event = Event(uid: "api-\(i)", start: .zoned(CivilDateTime(date: day, hour: 9), context.zone),
                                  endSpec: .duration(CalDuration(seconds: 3600)), title: title)
                event.location = room
                events.append(event)
            }
            try emit(Batch(events: events))
        }
    }

    func testAPluginPostsAFileBodyAndDownloadsThroughThePipelinesClient() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/api/search", method: "POST", [.init(headers: ["Content-Type": "application/json"], body: "[\"Stand-up\", \"Review\"]")])
        try server.route("/api/rooms.txt", [.init(body: "Room 4\n")])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-plugin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let query = "{\"team\": \"platform\", \"from\": \"2026-12-01\"}"
        try Data(query.utf8).write(to: folder.appendingPathComponent("query.json"))

        let seen = APISource.Seen()
        var registry = PluginRegistry.standard
        registry.register(APISource.descriptor(seen))
        let loader = PipelineLoader.standard(registry: registry, environment: ["HOME": NSTemporaryDirectory(), "CALPIPE_CACHE": Harness.temporaryCache()],
                                             now: Harness.now)
        var pipeline = try loader.load(json: try JSONParser.parse("""
            {"name": "api", "timezone": "Europe/Berlin", "window": {"from": "2026-12-01", "to": "2026-12-08"},
             "sources": [{"type": "api-events", "base_url": "\(server.base)", "token": "tok-secret", "query_file": "query.json"}],
             "stages": [{"type": "split"}], "sinks": [{"type": "json", "path": "-"}]}
            """), file: "api.json", baseDirectory: folder)
        let collected = Collected()
        pipeline.sinks = [CollectSink(collected)]
        try Runner().run(pipeline, context: RunContext(environment: pipeline.environment, quiet: true))

        XCTAssertEqual(collected.days.map(\.event.title), ["Stand-up", "Review"])
        XCTAssertEqual(collected.days.map(\.event.location), ["Room 4", "Room 4"])
        let log = try server.log()
        XCTAssertEqual(log.map(\.method), ["POST", "GET"])
        XCTAssertEqual(log[0].body, query, "the body streamed from the file")
        XCTAssertEqual(log[0].headers["content-type"], "application/json")
        XCTAssertEqual(log[0].headers["authorization"], "Bearer tok-secret")
        XCTAssertEqual(log[0].headers["user-agent"], "api-plugin/1.0 (ops@example.com)")
        XCTAssertEqual(log[1].headers["authorization"], "Bearer tok-secret")
        let client = try XCTUnwrap(seen.client)
        XCTAssertEqual(client.cachePath, (pipeline.environment.fetcher as? HTTPFetcher)?.cachePath, "the pipeline's cache file")
        XCTAssertTrue(client.gate === (pipeline.environment.fetcher as? HTTPFetcher)?.gate, "the pipeline's turns at each host")
    }

    func testAMissingBodyFileIsSaidInOneLine() throws {
        let client = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestsPerSecond: 0))
        XCTAssertThrowsError(try client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:9/api", bodyFile: "/nonexistent/query.json"))) { error in
            XCTAssertEqual("\(error)", "http://127.0.0.1:9/api: cannot read the request body /nonexistent/query.json (no such file)")
        }
    }
}
