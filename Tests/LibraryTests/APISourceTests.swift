import CalpipeKit
import Foundation
import XCTest

/// docs/architecture.md, "A source that talks to an API": `EventsAPISource`, built through `import CalpipeKit` only,
/// against the calendar service of Tests/Fixtures/api on 127.0.0.1, into the `sqlite` sink.
final class APISourceTests: XCTestCase {
    private var bench: APITestBench!
    private var server: CalendarAPIServer { bench.server }
    private var database: String { bench.dir.appendingPathComponent("agenda.sqlite").path }

    override func setUpWithError() throws {
        bench = try APITestBench()
    }

    override func tearDown() {
        bench = nil
    }

    /// Runs the pipeline: the service's events into the database (and the sink `extra` after it).
    @discardableResult
    private func sync(sinks extra: String = "") throws -> RunReport {
        let text = """
            {"name": "api", "timezone": "UTC", "window": {"from": "2026-11-30", "to": "2026-12-14"},
             "sources": [\(bench.source)], "stages": [{"type": "expand"}, {"type": "split"}],
             "sinks": [{"type": "sqlite", "path": "agenda.sqlite"}\(extra.isEmpty ? "" : ", " + extra)]}
            """
        return try bench.run(text, name: "api.json", stateFile: bench.dir.appendingPathComponent("api.state.json").path)
    }

    private func events() throws -> [String] {
        try SQLiteRows.query(database, "SELECT uid, title FROM events ORDER BY uid")
    }

    private func dayEntries() throws -> [String] {
        try SQLiteRows.query(database, "SELECT e.uid, d.day FROM day_entries d JOIN events e ON e.id = d.event_id ORDER BY d.day")
    }

    private func storedState() throws -> [String] {
        try SQLiteRows.query(database, "SELECT pipeline, plugin, state FROM plugin_state")
    }

    /// The source's stored state.
    private func token() throws -> [String] {
        try SQLiteRows.query(database, "SELECT state FROM plugin_state WHERE plugin = 'team'")
    }

    private func newRequests(since count: inout Int) throws -> [String] {
        try bench.newRequests(since: &count)
    }

    func testTheFirstRunReadsEveryPageAndTheNextOnlyTheChangesSinceItsToken() throws {
        var seen = 0
        let first = try sync()
        XCTAssertEqual(try newRequests(since: &seen), [
            "GET /v1/events?page_size=2",
            "GET /v1/events?page_size=2&page_token=-:5:2:2",
            "GET /v1/events?page_size=2&page_token=-:5:4:2",
        ])
        XCTAssertEqual(first.eventsRead, 5)
        XCTAssertEqual(try events(), ["demo | Demo", "planning | Planning", "retro | Retro", "review | Review", "standup | Stand-up"])
        XCTAssertEqual(try storedState(), [#"api | team | {"sync_token":"s5"}"#])

        // On the service: one event changed, one new, one deleted.
        try server.setEvent("review", "Review (moved)", day: "2026-12-09", hour: 11)
        try server.setEvent("offsite", "Offsite", day: "2026-12-10", hour: 9)
        try server.deleteEvent("retro")
        let second = try sync()
        XCTAssertEqual(try newRequests(since: &seen), [
            "GET /v1/events?page_size=2&sync_token=s5",
            "GET /v1/events?page_size=2&page_token=5:8:2:2",
        ])
        XCTAssertEqual(second.eventsRead, 2)
        // The deleted event left the database with its day; the changed one moved; the others were kept as they were.
        XCTAssertEqual(try events(), ["demo | Demo", "offsite | Offsite", "planning | Planning", "review | Review (moved)", "standup | Stand-up"])
        XCTAssertEqual(try dayEntries(), ["standup | 2026-12-01", "planning | 2026-12-04", "demo | 2026-12-05", "review | 2026-12-09", "offsite | 2026-12-10"])
        XCTAssertEqual(try storedState(), [#"api | team | {"sync_token":"s8"}"#])

        // Nothing changed: one request, an empty delta, and nothing removed for being absent.
        try sync()
        XCTAssertEqual(try newRequests(since: &seen), ["GET /v1/events?page_size=2&sync_token=s8"])
        XCTAssertEqual(try events().count, 5)
    }

    /// A run whose remote sink could not write a record stores no source state: the next run asks with the old
    /// token and gets the same changes again. The database committed them all the same (the state may lag behind
    /// the data, never get ahead of it).
    func testARunWhoseSinkFailedLeavesTheTokenWhereItWas() throws {
        let store = bench.store
        var seen = 0
        try sync(sinks: store)
        XCTAssertEqual(try token(), [#"{"sync_token":"s5"}"#])

        try server.setEvent("review", "Review (moved)", day: "2026-12-09", hour: 11)
        try server.fail("PUT", status: 503)
        _ = try newRequests(since: &seen)
        let failed = try sync(sinks: store)
        XCTAssertEqual(try newRequests(since: &seen), ["GET /v1/events?page_size=2&sync_token=s5", #"PUT /v1/store/review if-match: "v4""#])
        XCTAssertEqual("\(failed.outcomes(of: bench.storeLabel))", "1 failed")
        XCTAssertEqual(failed.failedRecords, [#"\#(bench.storeLabel): UID "review": \#(server.base)/v1/store/review: HTTP 503 (the service is unavailable)"#])
        XCTAssertEqual(ExitStatus.of(failed).code, 1)
        XCTAssertTrue(try events().contains("review | Review (moved)"))
        XCTAssertEqual(try token(), [#"{"sync_token":"s5"}"#])

        try server.fail(nil)
        let next = try sync(sinks: store)
        XCTAssertEqual(try newRequests(since: &seen), ["GET /v1/events?page_size=2&sync_token=s5", #"PUT /v1/store/review if-match: "v4""#])
        XCTAssertEqual("\(next.outcomes(of: bench.storeLabel))", "1 updated")
        XCTAssertEqual(ExitStatus.of(next).code, 0)
        XCTAssertEqual(try token(), [#"{"sync_token":"s6"}"#])
    }

    /// The service forgot the token (410 Gone): the source says so and reads everything again.
    func testATokenTheServiceForgotReadsEverythingAgain() throws {
        var seen = 0
        try sync()
        _ = try newRequests(since: &seen)
        // A token from another life of the service.
        _ = try SQLiteRows.query(database, #"UPDATE plugin_state SET state = '{"sync_token":"s99"}'"#)
        let report = try sync()
        XCTAssertEqual(try newRequests(since: &seen), [
            "GET /v1/events?page_size=2&sync_token=s99",
            "GET /v1/events?page_size=2",
            "GET /v1/events?page_size=2&page_token=-:5:2:2",
            "GET /v1/events?page_size=2&page_token=-:5:4:2",
        ])
        XCTAssertEqual(report.warnings, ["team: the service no longer knows the sync token; reading every event again"])
        XCTAssertEqual(try storedState(), [#"api | team | {"sync_token":"s5"}"#])
    }

    /// The source keeps its token under its name, so it asks for one, in the loader's words.
    func testTheSourceAsksForAName() throws {
        let text = #"{"sources": [{"type": "events-api", "url": "\#(server.base)/v1/events", "page_size": 0}], "stages": [{"type": "split"}], "sinks": [{"type": "sqlite", "path": "a.sqlite"}]}"#
        XCTAssertThrowsError(try bench.run(text, name: "api.json", stateFile: bench.dir.appendingPathComponent("api.state.json").path)) { error in
            XCTAssertEqual((error as? ConfigErrors)?.issues.map(\.description), [
                "api.json: sources[0].name: missing required option (expected a string)",
                "api.json: sources[0].page_size: 0 is out of range (expected 1 to 1000)",
            ])
        }
    }
}
