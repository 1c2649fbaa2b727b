import CalpipeKit
import Foundation
import XCTest

/// The `google` source against answer pages written from Google's Calendar API v3 documentation
/// (Tests/Fixtures/google/README.md), replayed by the recorded server on 127.0.0.1, which checks each request's
/// query and Authorization header. Each run is a real pipeline (google -> expand -> sqlite).
final class GoogleSourceTests: XCTestCase {
    private var run: CloudRun!
    private let events = "/calendar/v3/calendars/primary/events"
    private let auth = ["Authorization": "Bearer \(CloudRun.token)"]
    /// The window 2026-11-02 to 2026-11-09 in Europe/Berlin, as Google wants it.
    private let window: [String: String?] = ["timeMin": "2026-11-01T23:00:00Z", "timeMax": "2026-11-08T23:00:00Z", "syncToken": nil]

    override func setUpWithError() throws {
        run = try CloudRun(source: ["type": "google", "page_size": 3], apiPath: "/calendar/v3")
    }

    override func tearDown() {
        run.remove()
    }

    private func reply(_ file: String, status: Int = 200, headers: [String: String] = [:], query: [String: String?]? = nil) -> RecordedServer.Reply {
        CloudRun.reply("google", file, status: status, headers: headers, query: query, expectHeaders: auth)
    }

    /// Routes the two pages of a whole read of the window.
    private func routeWholeRead() throws {
        var first = window
        first["pageToken"] = .some(nil)
        first["singleEvents"] = "true"
        first["maxResults"] = "3"
        try run.server.route(events, [reply("events-page1.json", query: first)])
        var second = window
        second["pageToken"] = "CigKGjVqYmZzOGpsNXBzdjQ2dDBpN2l0NTk5bWRlGAEggIDA2oXs8wIaDwgAEgAYqMfJ5oWo9QIgASIHCAEQ+ZtR"
        second["singleEvents"] = "true"
        try run.server.route(events, queryContains: "pageToken=", [reply("events-page2.json", query: second)])
    }

    /// The whole read of the fixtures: the timed event in its zone with its colour (colorId 11, Tomato), the all-day
    /// offsite (end exclusive), the standup series' two instances (one moved) as overrides of one UID, and the call
    /// kept in New York time.
    private let wholeRead = [
        "5jbfs8jl5psv46t0i7it599mde||Planning|0|2026-11-02T09:00:00+01:00|Europe/Berlin|#dc2127",
        "4d2bq9kq3qd1ahr6ct7l0gp7tl|2026-11-03T09:00:00+01:00|Standup|0|2026-11-03T09:00:00+01:00|Europe/Berlin|#7ae7bf",
        "1ut3e7i0eqq8q2hsl1a1pcp8gk||Company offsite|1|2026-11-04|-|-",
        "4d2bq9kq3qd1ahr6ct7l0gp7tl|2026-11-05T09:00:00+01:00|Standup (late)|0|2026-11-05T11:00:00+01:00|Europe/Berlin|#7ae7bf",
        "0n6g3cfmfg7kq7c2d9o9ibs1ce||Call with the New York office|0|2026-11-06T10:00:00-05:00|America/New_York|-",
    ]

    func testAWholeReadFollowsThePagesAndTheSyncTokenThenBringsOnlyTheChanges() throws {
        try routeWholeRead()
        let first = try run.run()
        XCTAssertEqual(try run.events(), wholeRead)
        XCTAssertEqual(first.rejections.count, 0)
        let requests = try run.requests()
        XCTAssertEqual(requests.count, 2, "two pages")
        XCTAssertTrue(requests[1].query.contains("pageToken=CigKGjVq"), requests[1].query)
        // Google expanded the series: each instance is one occurrence, none expanded again.
        XCTAssertEqual(try run.rows("SELECT count(*) FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = '4d2bq9kq3qd1ahr6ct7l0gp7tl'"), ["2"])
        XCTAssertEqual(try run.rows("SELECT count(*) FROM occurrences"), ["5"])
        XCTAssertEqual(try run.rows("""
            SELECT a.name, a.email, a.role, a.status FROM attendees a JOIN events e ON e.id = a.event_id
            WHERE e.title = 'Planning' ORDER BY a.position
            """), ["Ana Lopez|ana@example.com|REQ-PARTICIPANT|ACCEPTED", "Ben Okafor|ben@example.com|OPT-PARTICIPANT|NEEDS-ACTION",
                   "Room 4.12|c_1887room412@resource.calendar.google.com|REQ-PARTICIPANT|ACCEPTED"])
        XCTAssertEqual(try run.rows("SELECT location, organizer_email, status FROM events WHERE title = 'Planning'"),
                       ["Room 4.12, Alexanderplatz 1, Berlin|ana@example.com|CONFIRMED"])
        XCTAssertEqual(try run.rows("SELECT json_extract(metadata, '$.calendar'), json_extract(metadata, '$.ical_uid') FROM events WHERE title = 'Planning'"),
                       ["Team|5jbfs8jl5psv46t0i7it599mde@google.com"])
        XCTAssertEqual(try run.state()["cursor"], "CPDAlvWDx70CEPDAlvWDx70CGAU=")

        // The next run sends the token alone (Google refuses the window with it) and gets one changed event, a
        // deleted one and one cancelled instance of the series.
        try run.server.route(events, queryContains: "syncToken=", [reply("events-sync.json", query: [
            "syncToken": "CPDAlvWDx70CEPDAlvWDx70CGAU=", "timeMin": nil, "timeMax": nil, "pageToken": nil, "singleEvents": "true",
        ])])
        try run.run()
        XCTAssertEqual(try run.events(), [
            "5jbfs8jl5psv46t0i7it599mde||Planning (moved)|0|2026-11-02T14:00:00+01:00|Europe/Berlin|#dc2127",
            "1ut3e7i0eqq8q2hsl1a1pcp8gk||Company offsite|1|2026-11-04|-|-",
            "4d2bq9kq3qd1ahr6ct7l0gp7tl|2026-11-05T09:00:00+01:00|Standup (late)|0|2026-11-05T11:00:00+01:00|Europe/Berlin|#7ae7bf",
        ])
        XCTAssertEqual(try run.rows("SELECT count(*) FROM occurrences"), ["3"])
        XCTAssertEqual(try run.state()["cursor"], "CPDAlvWDx70CEPDAlvWDx70CGAc=")
        XCTAssertEqual(try run.requests().count, 3, "one request for the changes")
    }

    func testAnExpiredSyncTokenStartsAWholeReadThatRemovesWhatIsGone() throws {
        try routeWholeRead()
        try run.run()
        // Google forgot the token (410 Gone): the source reads the window again, and that read is the whole feed,
        // so what it no longer lists leaves the database.
        try run.server.route(events, queryContains: "syncToken=", [reply("error-410.json", status: 410)])
        var whole = window
        whole["pageToken"] = .some(nil)
        try run.server.route(events, queryContains: "timeMin=", [reply("events-after-410.json", query: whole)])
        let report = try run.run()
        XCTAssertEqual(try run.events(), ["5jbfs8jl5psv46t0i7it599mde||Planning|0|2026-11-02T09:00:00+01:00|Europe/Berlin|#dc2127"])
        XCTAssertEqual(try run.state()["cursor"], "CKjm4aiEx70CEKjm4aiEx70CGAU=")
        let requests = try run.requests()
        XCTAssertEqual(requests.count, 4)
        XCTAssertTrue(requests[2].query.contains("syncToken=CPDAlvWDx70CEPDAlvWDx70CGAU="), requests[2].query)
        XCTAssertTrue(requests[3].query.contains("timeMin=2026-11-01T23:00:00Z"), requests[3].query)
        XCTAssertEqual(report.rejections.count, 0)
    }

    func testATooManyRequestsAnswerIsWaitedOutThenRead() throws {
        try run.server.route(events, [
            reply("error-429.json", status: 429, headers: ["Retry-After": "1"]),
            reply("events-after-410.json", query: window),
        ])
        try run.run()
        XCTAssertEqual(try run.events(), ["5jbfs8jl5psv46t0i7it599mde||Planning|0|2026-11-02T09:00:00+01:00|Europe/Berlin|#dc2127"])
        let requests = try run.requests()
        XCTAssertEqual(requests.count, 2)
        XCTAssertGreaterThanOrEqual(requests[1].at - requests[0].at, 0.95, "Retry-After: 1 was waited")
    }

    func testARefusedTokenFailsAtOnceWithoutRetriesAndKeepsTheRows() throws {
        try routeWholeRead()
        try run.run()
        try run.server.route(events, queryContains: "syncToken=", [
            reply("error-401.json", status: 401, headers: ["WWW-Authenticate": "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""]),
        ])
        try run.assertFailsAtOnce("http://127.0.0.1:\(run.server.port)/calendar/v3/calendars/primary/events?maxResults=3&singleEvents=true"
                                  + "&syncToken=CPDAlvWDx70CEPDAlvWDx70CGAU%3D: Google Calendar refused the access token (HTTP 401: Invalid Credentials); "
                                  + "get a new one (docs/sources.md, \"Google Calendar\")")
        XCTAssertEqual(try run.events(), wholeRead)
        XCTAssertEqual(try run.state()["cursor"], "CPDAlvWDx70CEPDAlvWDx70CGAU=", "the state does not advance")
    }

    func testTheBundledPipelineReadsTheTokenFromTheEnvironment() throws {
        let pipeline = try CloudRun.bundled("google-calendar.json", environment: ["GOOGLE_TOKEN": "ya29.a0Af-bundled"])
        XCTAssertEqual(pipeline.sourceTypes, ["google"])
        XCTAssertEqual(pipeline.sources[0].feed, .delta)
        XCTAssertEqual(pipeline.sinkTypes, ["sqlite"])
        // Without the variable, the loader names it (nothing is asked of Google).
        XCTAssertThrowsError(try CloudRun.bundled("google-calendar.json", environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("GOOGLE_TOKEN"), "\(error)")
        }
    }

    func testALogInWithoutATokenIsRefusedWhenThePipelineIsLoaded() throws {
        let json = try JSONParser.parse("""
            {"sources": [{"type": "google"}, {"type": "google", "username": "ana", "password": "secret"}, {"type": "google", "bearer_token": ""}],
             "stages": [{"type": "split"}], "sinks": [{"type": "sqlite", "path": "agenda.sqlite"}]}
            """)
        XCTAssertThrowsError(try PipelineLoader.standard(environment: ["HOME": run.folder.path]).load(json: json, file: "google.json", baseDirectory: run.folder)) { error in
            XCTAssertEqual("\(error)", """
                google.json: sources[0].bearer_token: missing: Google Calendar needs an OAuth access token ("bearer_token": "${TOKEN}"); \
                get a new one (docs/sources.md, "Google Calendar")
                google.json: sources[1].username: Google Calendar takes an OAuth access token in "bearer_token", not a user name and password
                google.json: sources[1].bearer_token: missing: Google Calendar needs an OAuth access token ("bearer_token": "${TOKEN}"); \
                get a new one (docs/sources.md, "Google Calendar")
                google.json: sources[2].bearer_token: empty (is the variable it names set?); get a new one (docs/sources.md, "Google Calendar")
                """)
        }
    }
}
