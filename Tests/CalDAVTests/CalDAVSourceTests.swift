import CalSQLite
import Foundation
import XCTest

/// The `caldav` source against a real Radicale: discovery, calendars by name and href with their colours, a
/// series with an override, a window that cuts a series, incremental runs, a refused login.
final class CalDAVSourceTests: CalDAVTestCase {
    let december = ["from": "2026-12-01", "to": "2027-01-01"]

    /// Two event calendars and a task list, one event in each event calendar.
    func fillTwoCalendars() throws {
        try server.makeCalendar("work", displayName: "Work", color: "#3366CCFF")
        try server.makeCalendar("family", displayName: "Family", color: "#FF8800")
        try server.makeCalendar("tasks", displayName: "Tasks", components: ["VTODO"])
        try server.put("work", "standup.ics", Radicale.calendar("""
            UID:standup@test
            DTSTAMP:20261101T000000Z
            DTSTART;TZID=Europe/Berlin:20261202T093000
            DTEND;TZID=Europe/Berlin:20261202T094500
            SUMMARY:Standup
            """))
        try server.put("family", "dinner.ics", Radicale.calendar("""
            UID:dinner@test
            DTSTAMP:20261101T000000Z
            DTSTART:20261203T180000Z
            DTEND:20261203T200000Z
            SUMMARY:Dinner
            COLOR:teal
            """))
    }

    func daysPipeline(_ source: [String: Any]) -> [String: Any] {
        ["name": "dav", "timezone": "Europe/Berlin", "window": december, "sources": [source],
         "stages": [["type": "expand"], ["type": "split"]],
         "sinks": [["type": "json", "path": "days.json", "shape": "days", "empty_days": false]]]
    }

    func testDiscoveryFromTheServerRootFindsTheEventCalendarsWithNamesAndColours() throws {
        try fillTwoCalendars()
        let result = try run("discover", daysPipeline(source()))
        XCTAssertEqual(result.code, 0, result.stderr)
        // The task list holds no events and is not read; each entry carries its calendar's name, and the calendar's
        // colour unless the event has its own (the dinner's COLOR).
        XCTAssertEqual(try entries("days.json"), [
            ["day": "2026-12-02", "title": "Standup", "calendar": "Work", "color": "#3366cc", "start": "09:30"],
            ["day": "2026-12-03", "title": "Dinner", "calendar": "Family", "color": "teal", "start": "19:00"],
        ])
    }

    func testDiscoveryThroughWellKnownFromAnAddressThatIsNoAccount() throws {
        try fillTwoCalendars()
        // /.well-known/caldav redirects to the root, where the principal is found.
        let result = try run("wellknown", daysPipeline(source(["calendars": ["Work"]], url: server.base + "/.well-known/caldav")))
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try entries("days.json").map { $0["title"] }, ["Standup"])
    }

    func testTwoCalendarsChosenByNameAndByHref() throws {
        try fillTwoCalendars()
        var result = try run("two", daysPipeline(source(["calendars": ["Family", "/\(server.user)/work/"]])))
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try entries("days.json").map { $0["calendar"] }, ["Work", "Family"])
        // A name the server does not have: one line with the names it has and the closest one.
        result = try run("typo", daysPipeline(source(["calendars": ["Famly"]])))
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.stderr.contains(#"no calendar "Famly" on the server (it has "Family", "Tasks", "Work"); did you mean "Family"?"#), result.stderr)
    }

    func testRecurringSeriesWithAnOverrideIsExpandedByCalpipe() throws {
        try server.makeCalendar("work", displayName: "Work")
        try server.put("work", "weekly.ics", Radicale.calendar(Radicale.weekly, Radicale.weeklyOverride))
        let result = try run("series", daysPipeline(source()))
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try entries("days.json").map { "\($0["day"]!) \($0["start"]!) \($0["title"]!)" }, [
            "2026-12-07 10:00 Planning", "2026-12-15 14:00 Planning (moved)", "2026-12-21 10:00 Planning", "2026-12-28 10:00 Planning",
        ])
    }

    func testTheWindowCutsASeriesAndLeavesOutEventsOutsideIt() throws {
        try server.makeCalendar("work", displayName: "Work")
        // Daily from November into January: the window keeps December's instances only.
        try server.put("work", "daily.ics", Radicale.calendar("""
            UID:daily@test
            DTSTAMP:20261101T000000Z
            DTSTART:20261125T080000Z
            DTEND:20261125T083000Z
            RRULE:FREQ=DAILY;UNTIL=20270110T080000Z
            SUMMARY:Daily
            """))
        try server.put("work", "march.ics", Radicale.calendar("""
            UID:march@test
            DTSTAMP:20261101T000000Z
            DTSTART:20270315T080000Z
            SUMMARY:Far away
            """))
        var pipeline = daysPipeline(source())
        pipeline["sinks"] = [["type": "sqlite", "path": "agenda.db"]]
        let result = try run("cut", pipeline)
        XCTAssertEqual(result.code, 0, result.stderr)
        let db = try database("agenda.db")
        // The server's calendar-query left out the March event: it was never fetched.
        XCTAssertEqual(try db.rows("SELECT uid FROM events ORDER BY uid").map { $0[0].text }, ["daily@test"])
        let instances = try db.rows("SELECT min(start_utc), max(start_utc), count(*) FROM occurrences")[0]
        XCTAssertEqual(instances[0].int64, 1_796_112_000)  // 2026-12-01 08:00 UTC
        XCTAssertEqual(instances[1].int64, 1_798_704_000)  // 2026-12-31 08:00 UTC
        XCTAssertEqual(instances[2].int64, 31)
    }

    func testIncrementalRunSendsOnlyWhatChangedOnTheServer() throws {
        try server.makeCalendar("work", displayName: "Work", color: "#112233")
        for (name, day) in [("a", "02"), ("b", "03"), ("c", "04")] {
            try server.put("work", "\(name).ics", Radicale.calendar("""
                UID:\(name)@test
                DTSTAMP:20261101T000000Z
                DTSTART:202612\(day)T100000Z
                DTEND:202612\(day)T110000Z
                SUMMARY:Event \(name)
                """))
        }
        var pipeline = daysPipeline(source(["sync": true]))
        pipeline["sinks"] = [["type": "sqlite", "path": "agenda.db"]]
        var result = try run("sync", pipeline)
        XCTAssertEqual(result.code, 0, result.stderr)
        let first = try rows()
        XCTAssertEqual(first.map(\.uid), ["a@test", "b@test", "c@test"])

        // One PUT (b changes) and one DELETE (c) on the server.
        try server.put("work", "b.ics", Radicale.calendar("""
            UID:b@test
            DTSTAMP:20261102T000000Z
            DTSTART:20261205T100000Z
            DTEND:20261205T110000Z
            SUMMARY:Event b (moved)
            """))
        XCTAssertEqual(try server.delete("work", "c.ics"), 200)
        result = try run("sync", pipeline)
        XCTAssertEqual(result.code, 0, result.stderr)
        let second = try rows()
        XCTAssertEqual(second.map(\.uid), ["a@test", "b@test"])
        // a was not sent again: its row is the first run's; b was changed by the second run.
        XCTAssertEqual(second[0], first[0])
        XCTAssertEqual(second[1].title, "Event b (moved)")
        XCTAssertEqual(second[1].updatedRun, second[1].createdRun + 1)
        let db = try database("agenda.db")
        XCTAssertEqual(try db.rows("SELECT count(*) FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = 'b@test'")[0][0].int64, 1)
        XCTAssertEqual(try db.scalar("SELECT o.start_utc FROM occurrences o JOIN events e ON e.id = o.event_id WHERE e.uid = 'b@test'")?.int64, 1_796_464_800)  // 2026-12-05 10:00 UTC
        // The sync token is in the state, kept in the database with the rows.
        let state = try XCTUnwrap(try db.scalarText("SELECT state FROM plugin_state WHERE plugin = 'dav'"))
        XCTAssertTrue(state.contains("\"sync_token\":\"http://radicale.org/ns/sync/"), state)

        // A third run with nothing changed sends nothing.
        result = try run("sync", pipeline)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try rows(), second)
    }

    func testAForgottenSyncTokenFallsBackToAFullRead() throws {
        try server.makeCalendar("work", displayName: "Work")
        try server.put("work", "a.ics", Radicale.calendar("UID:a@test\nDTSTAMP:20261101T000000Z\nDTSTART:20261202T100000Z\nSUMMARY:A"))
        try server.put("work", "b.ics", Radicale.calendar("UID:b@test\nDTSTAMP:20261101T000000Z\nDTSTART:20261203T100000Z\nSUMMARY:B"))
        var pipeline = daysPipeline(source(["sync": true]))
        pipeline["sinks"] = [["type": "sqlite", "path": "agenda.db"]]
        XCTAssertEqual(try run("fallback", pipeline).code, 0)
        // The stored token is one the server never gave (403 valid-sync-token), and b is gone meanwhile.
        let db = try database("agenda.db")
        let state = try XCTUnwrap(try db.scalarText("SELECT state FROM plugin_state WHERE plugin = 'dav'"))
        let forged = state.replacingOccurrences(of: #""sync_token":"http://radicale.org/ns/sync/[0-9a-f]+""#, with: #""sync_token":"http://radicale.org/ns/sync/0000""#, options: .regularExpression)
        XCTAssertNotEqual(forged, state)
        try db.execute("UPDATE plugin_state SET state = ? WHERE plugin = 'dav'", arguments: [.text(forged)])
        XCTAssertEqual(try server.delete("work", "b.ics"), 200)
        let result = try run("fallback", pipeline)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the server no longer knows the sync token; reading the calendar again"), result.stderr)
        XCTAssertEqual(try rows().map(\.uid), ["a@test"])
    }

    func testAWrongPasswordFailsAtOnceWithoutRetries() throws {
        try server.makeCalendar("work", displayName: "Work")
        let result = try run("login", daysPipeline(source()), password: "wrong")
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(server.base)/: the server refused the login (401 Unauthorized); check the username and password (or bearer_token)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("wrong"), "the password is never printed")
        // One refused request, not a retry schedule (the first retry alone would wait a second).
        XCTAssertLessThan(result.seconds, 5)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("days.json").path))
    }

    struct Row: Equatable {
        var uid: String
        var title: String
        var createdRun: Int64
        var updatedRun: Int64
        var etag: String
    }

    func rows() throws -> [Row] {
        try database("agenda.db").rows("SELECT uid, title, created_run, updated_run, json_extract(metadata, '$.etag') FROM events ORDER BY uid").map {
            Row(uid: $0[0].text ?? "", title: $0[1].text ?? "", createdRun: $0[2].int64 ?? -1, updatedRun: $0[3].int64 ?? -1, etag: $0[4].text ?? "")
        }
    }
}
