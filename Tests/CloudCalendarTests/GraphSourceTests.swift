import CalpipeKit
import Foundation
import XCTest

/// The `graph` source against answer pages written from Microsoft Graph's documentation (Tests/Fixtures/graph/README.md),
/// replayed by the recorded server on 127.0.0.1, which checks each request's query, Authorization and Prefer headers.
/// Each run is a real pipeline (graph -> expand -> sqlite).
final class GraphSourceTests: XCTestCase {
    private var run: CloudRun!
    private let calendar = "/v1.0/me/calendars/AAMkAGI2TGuLAAA=/"
    private let auth = ["Authorization": "Bearer \(CloudRun.token)"]
    private let prefer = "outlook.timezone=\"W. Europe Standard Time\", odata.maxpagesize=2"

    override func setUpWithError() throws {
        run = try CloudRun(source: ["type": "graph", "calendar": "AAMkAGI2TGuLAAA=", "time_zone": "W. Europe Standard Time", "page_size": 2],
                           apiPath: "/v1.0")
    }

    override func tearDown() {
        run.remove()
    }

    private func reply(_ file: String, status: Int = 200, headers: [String: String] = [:], query: [String: String?]? = nil,
                       prefer: String? = nil) -> RecordedServer.Reply {
        CloudRun.reply("graph", file, status: status, headers: headers, query: query,
                       expectHeaders: auth.merging(prefer.map { ["Prefer": $0] } ?? [:]) { $1 })
    }

    /// The calendar, and the two pages of the first delta round over the window.
    private func routeWholeRead() throws {
        try run.server.route(String(calendar.dropLast()), [reply("calendar.json")])
        try run.server.route(calendar + "calendarView/delta", [reply("delta-page1.json", query: [
            "startDateTime": "2026-11-01T23:00:00Z", "endDateTime": "2026-11-08T23:00:00Z", "$deltatoken": nil, "$skiptoken": nil,
        ], prefer: prefer)])
        try run.server.route(calendar + "calendarView/delta", queryContains: "$skiptoken=", [reply("delta-page2.json", query: [
            "$skiptoken": "R0usmcCM996atia_s", "startDateTime": nil,
        ], prefer: prefer)])
    }

    /// Times in the Windows zone the request asked for, read as Europe/Berlin; the all-day event as dates; each
    /// occurrence of the weekly series an event of its own (its Graph id), expanded once.
    private let wholeRead = [
        "AAMkAGI2TGuLAAB1rCbXAAA=||Design review|0|2026-11-02T13:00:00+01:00|Europe/Berlin",
        "AAMkAGI2TG93AAABEgAQAMjAHkB2xAAB2gfsYdlpN9A=||Weekly sync|0|2026-11-03T10:00:00+01:00|Europe/Berlin",
        "AAMkAGI2TGuLAAB1rCbYAAA=||Team day|1|2026-11-04|-",
        "AAMkAGI2TG93AAABEgAQAMjAHkB2xkAB2gfsYdlpN9A=||Weekly sync|0|2026-11-06T10:00:00+01:00|Europe/Berlin",
    ]

    private func events() throws -> [String] {
        try run.events().map { $0.split(separator: "|", omittingEmptySubsequences: false).dropLast().joined(separator: "|") }
    }

    func testAWholeReadFollowsNextLinksThenTheDeltaLinkBringsOnlyTheChanges() throws {
        try routeWholeRead()
        try run.run()
        XCTAssertEqual(try events(), wholeRead)
        XCTAssertEqual(try run.rows("SELECT count(*) FROM occurrences"), ["4"])
        XCTAssertEqual(try run.rows("""
            SELECT json_extract(metadata, '$.calendar'), json_extract(metadata, '$.calendar_color'), json_extract(metadata, '$.series_master_id')
            FROM events WHERE title = 'Weekly sync'
            """), ["Project Falcon|#86c06b|AAMkAGI2TG93AAA=", "Project Falcon|#86c06b|AAMkAGI2TG93AAA="])
        XCTAssertEqual(try run.rows("SELECT location, categories, organizer_email, description FROM events WHERE title = 'Design review'"),
                       ["Conference Room Falcon|[\"Blue category\",\"Falcon\"]|MeganB@contoso.com|Walk through the new design before it ships."])
        XCTAssertEqual(try run.rows("""
            SELECT a.name, a.role, a.status FROM attendees a JOIN events e ON e.id = a.event_id WHERE e.title = 'Design review' ORDER BY a.position
            """), ["Alex Wilber|REQ-PARTICIPANT|ACCEPTED", "Lynne Robbins|OPT-PARTICIPANT|TENTATIVE", "Conference Room Falcon|NON-PARTICIPANT|ACCEPTED"])
        XCTAssertEqual(try run.rows("SELECT end_utc - start_utc FROM events WHERE title = 'Team day'"), ["86400"])
        let link = "http://127.0.0.1:\(run.server.port)/v1.0/me/calendars/AAMkAGI2TGuLAAA=/calendarView/delta?$deltatoken=R0usmci39OQxqJrxK4"
        XCTAssertEqual(try run.state()["cursor"], link)
        XCTAssertEqual(try run.requests().map(\.path), [String(calendar.dropLast()), calendar + "calendarView/delta", calendar + "calendarView/delta"])

        // The next run asks the delta link: one event moved, one occurrence removed.
        try run.server.route(calendar + "calendarView/delta", queryContains: "$deltatoken=R0usmci39OQxqJrxK4", [reply("delta-changes.json", query: [
            "$deltatoken": "R0usmci39OQxqJrxK4", "startDateTime": nil,
        ], prefer: prefer)])
        try run.run()
        XCTAssertEqual(try events(), [
            "AAMkAGI2TGuLAAB1rCbXAAA=||Design review (moved)|0|2026-11-02T15:00:00+01:00|Europe/Berlin",
            "AAMkAGI2TG93AAABEgAQAMjAHkB2xAAB2gfsYdlpN9A=||Weekly sync|0|2026-11-03T10:00:00+01:00|Europe/Berlin",
            "AAMkAGI2TGuLAAB1rCbYAAA=||Team day|1|2026-11-04|-",
        ])
        XCTAssertEqual(try run.rows("SELECT count(*) FROM occurrences"), ["3"])
        XCTAssertTrue(try run.state()["cursor"]?.hasSuffix("$deltatoken=R0usmcMDNGg0J1E64ydcT") == true)
    }

    func testTheDefaultCalendarWithoutIncrementalRunsReadsTheCalendarViewInUTC() throws {
        run.remove()
        run = try CloudRun(source: ["type": "graph", "incremental": false, "page_size": 50], apiPath: "/v1.0")
        try run.server.route("/v1.0/me/calendar", [reply("default-calendar.json")])
        try run.server.route("/v1.0/me/calendar/calendarView", [reply("calendarview.json", query: [
            "startDateTime": "2026-11-01T23:00:00Z", "endDateTime": "2026-11-08T23:00:00Z", "$top": "50",
        ], prefer: "outlook.timezone=\"UTC\"")])
        try run.run()
        try run.run()
        XCTAssertEqual(try run.events(), ["AAMkAGI2TGuDAAB2hLqMAAA=||Dentist|0|2026-11-05T07:30:00Z|-|-"])
        XCTAssertEqual(try run.requests().count, 4, "every run reads the calendar and the view")
        XCTAssertEqual(try run.state(), [:])
    }

    func testATooManyRequestsAnswerIsWaitedOutThenRead() throws {
        try run.server.route(String(calendar.dropLast()), [
            reply("error-429.json", status: 429, headers: ["Retry-After": "1"]),
            reply("calendar.json"),
        ])
        try run.server.route(calendar + "calendarView/delta", [reply("delta-page2.json", prefer: prefer)])
        try run.run()
        XCTAssertEqual(try events().count, 2)
        let requests = try run.requests()
        XCTAssertEqual(requests.count, 3)
        XCTAssertGreaterThanOrEqual(requests[1].at - requests[0].at, 0.95, "Retry-After: 1 was waited")
    }

    func testARefusedTokenFailsAtOnceWithoutRetries() throws {
        try run.server.route(String(calendar.dropLast()), [reply("error-401.json", status: 401)])
        try run.assertFailsAtOnce("http://127.0.0.1:\(run.server.port)/v1.0/me/calendars/AAMkAGI2TGuLAAA=: Microsoft Graph refused the access token "
                                  + "(HTTP 401: Lifetime validation failed, the token is expired.); get a new one (docs/sources.md, \"Microsoft 365 (Graph)\")")
    }

    func testTheBundledPipelineReadsTheTokenFromTheEnvironment() throws {
        let pipeline = try CloudRun.bundled("microsoft-graph.json", environment: ["GRAPH_TOKEN": "eyJ0eXAiOiJKV1Qi.bundled"])
        XCTAssertEqual(pipeline.sourceTypes, ["graph"])
        XCTAssertEqual(pipeline.sources[0].feed, .delta)
        XCTAssertEqual(pipeline.sinkTypes, ["sqlite"])
    }

    func testAnUnknownZoneNameIsRefusedWithTheOption() throws {
        run.remove()
        run = try CloudRun(source: ["type": "graph", "time_zone": "Middle Earth Standard Time"], apiPath: "/v1.0")
        XCTAssertThrowsError(try run.run()) { error in
            XCTAssertEqual(CalpipeError(error).exitCode, 2)
            XCTAssertTrue("\(error)".hasSuffix("pipeline.json: sources[0].time_zone: unknown time zone \"Middle Earth Standard Time\" (expected an IANA "
                                               + "name such as \"Europe/Berlin\" or a Windows name such as \"W. Europe Standard Time\")"), "\(error)")
        }
        XCTAssertEqual(try run.requests().count, 0)
    }
}
