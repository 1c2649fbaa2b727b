import CalpipeKit
import Foundation
import XCTest

/// docs/architecture.md, "A sink that writes to a server": `EventsStoreSink`, built through `import CalpipeKit` only,
/// fed by `EventsAPISource` (the section before), against the calendar service of Tests/Fixtures/api on 127.0.0.1.
/// No database: the states are in the state file.
final class APISinkTests: XCTestCase {
    private var bench: APITestBench!
    private var server: CalendarAPIServer { bench.server }
    private var stateFile: String { bench.dir.appendingPathComponent("sync.state.json").path }
    private var sink: String { bench.storeLabel }

    override func setUpWithError() throws {
        bench = try APITestBench()
    }

    override func tearDown() {
        bench = nil
    }

    /// The service's events to the store of the same service.
    private func sync() throws -> RunReport {
        try bench.run(#"{"name": "sync", "timezone": "UTC", "sources": [\#(bench.source)], "sinks": [\#(bench.store)]}"#,
                      name: "sync.json", stateFile: stateFile)
    }

    /// The stored state of `plugin` (nil: none).
    private func state(_ plugin: String) throws -> [String: Any]? {
        let file = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any]
        return (file?["plugins"] as? [String: Any])?[plugin] as? [String: Any]
    }

    /// The ETags the sink keeps, by UID.
    private func etags() throws -> [String: String] {
        (try state(sink) ?? [:]).compactMapValues { ($0 as? [String: String])?["etag"] }
    }

    private func storeRequests(since count: inout Int) throws -> [String] {
        try bench.newRequests(since: &count).filter { $0.contains("/v1/store/") }
    }

    func testPutsWithPreconditionsAndA412IsAConflictThatFailsTheRunAndKeepsItsETag() throws {
        var seen = 0
        let first = try sync()
        XCTAssertEqual(try storeRequests(since: &seen), [
            "PUT /v1/store/demo if-none-match: *", "PUT /v1/store/planning if-none-match: *", "PUT /v1/store/retro if-none-match: *",
            "PUT /v1/store/review if-none-match: *", "PUT /v1/store/standup if-none-match: *",
        ])
        XCTAssertEqual("\(first.outcomes(of: sink))", "5 created")
        XCTAssertEqual(ExitStatus.of(first).code, 0)
        XCTAssertEqual(try server.stored()["review"], #"{"end":"2026-12-02T11:00:00Z","start":"2026-12-02T10:00:00Z","title":"Review","uid":"review"}"#)
        XCTAssertEqual(try etags(), ["demo": #""v1""#, "planning": #""v2""#, "retro": #""v3""#, "review": #""v4""#, "standup": #""v5""#])

        // On the service: review changed, offsite new, retro deleted, planning changed; and someone else changed
        // planning in the store since calpipe wrote it.
        try server.setEvent("review", "Review (moved)", day: "2026-12-09", hour: 11)
        try server.setEvent("offsite", "Offsite", day: "2026-12-10", hour: 9)
        try server.deleteEvent("retro")
        try server.setEvent("planning", "Planning (long)", day: "2026-12-04", hour: 9)
        try server.editStored("planning", body: "edited by hand")
        let second = try sync()
        XCTAssertEqual(try storeRequests(since: &seen), [
            #"PUT /v1/store/review if-match: "v4""#, "PUT /v1/store/offsite if-none-match: *",
            #"DELETE /v1/store/retro if-match: "v3""#, #"PUT /v1/store/planning if-match: "v2""#,
        ])
        XCTAssertEqual("\(second.outcomes(of: sink))", "1 created, 1 updated, 1 deleted, 1 conflict")
        XCTAssertEqual(second.failedRecords, [#"\#(sink): UID "planning": the store's copy changed since it was written (412 Precondition Failed); it was left as it is"#])
        XCTAssertEqual(ExitStatus.of(second).code, 1)
        let store = try server.stored()
        XCTAssertEqual(store.keys.sorted(), ["demo", "offsite", "planning", "review", "standup"])
        XCTAssertEqual(store["planning"], "edited by hand")
        XCTAssertTrue(store["review"]?.contains("Review (moved)") == true)

        // The sink's state advanced for what it wrote and not for planning; the source's token did not advance.
        XCTAssertEqual(try etags(), ["demo": #""v1""#, "offsite": #""v8""#, "planning": #""v2""#, "review": #""v7""#, "standup": #""v5""#])
        XCTAssertEqual(try state("team") as? [String: String], ["sync_token": "s5"])

        // The next run gets the same changes: what was written is unchanged (not sent), planning is still a conflict.
        let third = try sync()
        XCTAssertEqual(try storeRequests(since: &seen), [#"PUT /v1/store/planning if-match: "v2""#])
        XCTAssertEqual("\(third.outcomes(of: sink))", "2 unchanged, 1 conflict")
        XCTAssertEqual(ExitStatus.of(third).code, 1)
    }
}
