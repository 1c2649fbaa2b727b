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
                options: Options.self,
                make: { options, context in
                    let settings = HTTPSettings(options.client, base: HTTPSettings(userAgent: "api-plugin/1.0 (ops@example.com)"))
                    // One client for this plugin, sharing the pipeline's cache file and host turns.
                    let client = context.environment.httpClient(settings: settings)
                    seen.client = client
                    return APISource(client: client, base: options.baseURL, access: options.auth.access, queryFile: options.queryFile.resolved)
                })
        }

        /// The options: its own, then the shared log-in and client groups.
        struct Options: OptionConfig {
            var baseURL = ""
            var queryFile = OptionPath()
            var auth = HTTPAuthOptions()
            var client = HTTPClientOptions()

            static let options = OptionSpec<Options> {
                Key("base_url", \.baseURL, .url, required: true, "the API's address")
                Key("query_file", \.queryFile, .path, required: true, "the search, sent as the POST body")
                Include(\.auth)
                Include(\.client)
            }
        }

        let client: HTTPFetcher
        let base: String
        let credentials: RemoteCredentials
        let queryFile: String

        init(client: HTTPFetcher, base: String, access: RemoteAccess, queryFile: String) {
            self.client = client
            self.base = base
            credentials = access.credentials
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
        let loader = PipelineLoader.standard(registry: registry, environment: ["HOME": NSTemporaryDirectory(), "CALPIPE_CACHE": Harness.temporaryCache(), "API_TOKEN": "tok-secret"],
                                             now: Harness.now)
        var pipeline = try loader.load(json: try JSONParser.parse("""
            {"name": "api", "timezone": "Europe/Berlin", "window": {"from": "2026-12-01", "to": "2026-12-08"},
             "sources": [{"type": "api-events", "base_url": "\(server.base)", "query_file": "query.json", "bearer_token": "${API_TOKEN}",
                          "netrc": false, "timeout": 7, "connect_timeout": 2, "max_requests_per_second": 0}],
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
        XCTAssertEqual(client.settings.requestTimeout, 7, "the client option group")
        XCTAssertEqual(client.settings.connectTimeout, 2)
        XCTAssertEqual(client.settings.retryBudget, 60, "a default where the pipeline says nothing")
        XCTAssertEqual(client.settings.userAgent, "api-plugin/1.0 (ops@example.com)", "the plugin's own default")
        XCTAssertEqual(client.cachePath, (pipeline.environment.fetcher as? HTTPFetcher)?.cachePath, "the pipeline's cache file")
        XCTAssertTrue(client.gate === (pipeline.environment.fetcher as? HTTPFetcher)?.gate, "the pipeline's turns at each host")
    }

    func testAMissingBodyFileIsSaidInOneLine() throws {
        let client = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestsPerSecond: 0))
        XCTAssertThrowsError(try client.send(HTTPRequest(method: "POST", url: "http://127.0.0.1:9/api", bodyFile: "/nonexistent/query.json"))) { error in
            XCTAssertEqual("\(error)", "http://127.0.0.1:9/api: cannot read the request body /nonexistent/query.json (no such file)")
        }
    }

    func testTheOptionGroupsProblemsAreSaidOnTheirOptions() throws {
        let seen = APISource.Seen()
        var registry = PluginRegistry.standard
        registry.register(APISource.descriptor(seen))
        let loader = PipelineLoader(registry: registry, environment: ["HOME": "/nonexistent"], now: Harness.now)
        let json = try JSONParser.parse("""
            {"sources": [{"type": "api-events", "base_url": "https://api.example.com", "query_file": "q.json", "password": "pw",
                          "max_stale": "soon", "timeout": 0, "max_attempts": 0, "user_agent": " ", "bearer_tokn": "x"}],
             "stages": [{"type": "split"}], "sinks": [{"type": "json", "path": "-"}]}
            """)
        XCTAssertThrowsError(try loader.load(json: json, file: "api.json", baseDirectory: URL(fileURLWithPath: "/tmp"))) { error in
            XCTAssertEqual("\(error)", """
                api.json: sources[0].bearer_tokn: unknown option (expected one of: base_url, query_file, headers, bearer_token, username, password, netrc, max_stale, user_agent, timeout, connect_timeout, retry_budget, backoff, max_attempts, max_requests_per_second, name, color); did you mean "bearer_token"?
                api.json: sources[0].username: missing ("password" needs a "username")
                api.json: sources[0].max_stale: expected a duration such as "30s", "15m", "6h" or "2d", got "soon"
                api.json: sources[0].user_agent: expected a User-Agent text, got an empty string
                api.json: sources[0].timeout: 0 is out of range (expected 0.01 to 3600)
                api.json: sources[0].max_attempts: 0 is out of range (expected 1 to 100)
                """)
        }
        XCTAssertNil(seen.client, "not made")
    }

    func testTheFileSourcesAndTheForecastDeclareTheGroupsOnce() {
        let registry = PluginRegistry.standard
        for type in ["ics", "json", "xcal", "jcal", "caldav-xml", "xml"] {
            let names = registry.source(type)?.options.map(\.name) ?? []
            XCTAssertEqual(names.filter { HTTPAuthOptions.options.keys.contains($0) }, HTTPAuthOptions.options.keys, type)
        }
        let forecast = registry.stage("forecast")?.options.map(\.name) ?? []
        XCTAssertEqual(forecast.filter { HTTPClientOptions.options.keys.contains($0) }, HTTPClientOptions.options.keys)
    }
}
