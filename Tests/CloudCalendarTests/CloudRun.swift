import CalSQLite
import CalpipeKit
import Foundation
import XCTest

/// A pipeline with one cloud source and a sqlite sink, run in this process by the standard loader and runner as
/// `calpipe run` does, in a folder of its own; and what its database holds afterwards. The source's answers come
/// from the recorded server (RecordedServer.swift, the forecast tests' file: one server script for every HTTP test).
struct CloudRun {
    let folder: URL
    let server: RecordedServer
    /// The source's object in the pipeline file, without `base_url` (set to the server).
    let source: [String: Any]
    /// The path the service's API starts at on the server ("/calendar/v3").
    let apiPath: String

    init(source: [String: Any], apiPath: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-cloud-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try RecordedServer()
        self.source = source
        self.apiPath = apiPath
    }

    var database: String { folder.appendingPathComponent("agenda.sqlite").path }
    static let token = "ya29.a0AfB_test-token"

    /// Runs the pipeline (window 2026-11-02 to 2026-11-09 in Europe/Berlin); throws what the run throws.
    @discardableResult
    func run(full: Bool = false) throws -> RunReport {
        var source = self.source
        source["base_url"] = server.base + apiPath
        source["bearer_token"] = "${CLOUD_TOKEN}"
        source["max_requests_per_second"] = 0
        source["backoff"] = 0.05
        let pipeline: [String: Any] = [
            "name": "cloud-test", "timezone": "Europe/Berlin", "window": ["from": "2026-11-02", "to": "2026-11-09"],
            "sources": [source], "stages": [["type": "expand"], ["type": "split"]],
            "sinks": [["type": "sqlite", "path": "agenda.sqlite"]],
        ]
        let file = folder.appendingPathComponent("pipeline.json")
        try JSONSerialization.data(withJSONObject: pipeline, options: [.sortedKeys]).write(to: file)
        let environment = ["CLOUD_TOKEN": Self.token, "HOME": folder.path, "TZ": "UTC",
                           "CALPIPE_CACHE": folder.appendingPathComponent("cache.sqlite").path,
                           "CALPIPE_STATE": folder.appendingPathComponent("state").path]
        let loader = PipelineLoader.standard(environment: environment, now: Date(timeIntervalSince1970: 1_793_520_000))
        let loaded = try loader.load(file: file.path)
        let context = RunContext(environment: loaded.environment)
        try Runner(incremental: !full).run(loaded, context: context)
        return context.report
    }

    /// Runs, expecting the source to fail at its next request, at once and without a retry: the run ends with
    /// exit 1 and `message` (the source's error), and the database keeps what it had.
    func assertFailsAtOnce(_ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try requests().count
        let rows = FileManager.default.fileExists(atPath: database) ? try events() : []
        let report = try run()
        XCTAssertEqual(ExitStatus.of(report).code, 1, file: file, line: line)
        XCTAssertEqual(report.keptSources, [message + "; the rows of sources[0] are kept"], file: file, line: line)
        XCTAssertEqual(try requests().count, before + 1, "no retry", file: file, line: line)
        if !rows.isEmpty { XCTAssertEqual(try events(), rows, file: file, line: line) }
    }

    /// The events the database holds, one line each, by start: "uid|recurrence_id|title|all_day|dtstart|dtstart_tzid|color".
    func events() throws -> [String] {
        try rows("""
            SELECT uid, recurrence_id, title, all_day, dtstart, dtstart_tzid, color FROM events WHERE removed_run IS NULL
            ORDER BY start_utc, uid, recurrence_id
            """)
    }

    /// Each row of `sql` as its values joined by "|" (NULL as "-").
    func rows(_ sql: String) throws -> [String] {
        let db = try Database(path: database, configuration: Database.Configuration(readOnly: true, create: false))
        return try db.rows(sql).map { row in
            row.map { value in value.text ?? value.int64.map(String.init) ?? "-" }.joined(separator: "|")
        }
    }

    /// The state the source kept ("scope" and "cursor"), from the database.
    func state() throws -> [String: String] {
        guard let text = try rows("SELECT state FROM plugin_state").first else { return [:] }
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        return object ?? [:]
    }

    /// Requests the server got for the API (control requests left out), in order.
    func requests() throws -> [RecordedServer.LoggedRequest] {
        try server.log().filter { $0.path.hasPrefix(apiPath) }
    }

    /// A reply with a fixture of `folder` (Tests/Fixtures/google, .../graph).
    static func reply(_ folder: String, _ file: String, status: Int = 200, headers: [String: String] = [:],
                      query: [String: String?]? = nil, expectHeaders: [String: String]? = nil) -> RecordedServer.Reply {
        var reply = RecordedServer.Reply(status: status, headers: ["Content-Type": "application/json; charset=UTF-8"].merging(headers) { $1 },
                                         bodyFile: "../\(folder)/\(file)")
        reply.expectQuery = query
        reply.expectHeaders = expectHeaders
        return reply
    }

    /// A pipeline of pipelines/, loaded (not run) with `environment`.
    static func bundled(_ name: String, environment: [String: String]) throws -> PipelineDefinition {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let loader = PipelineLoader.standard(environment: environment.merging(["HOME": NSTemporaryDirectory()]) { a, _ in a })
        return try loader.load(file: root.appendingPathComponent("pipelines/" + name).path)
    }

    func remove() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
