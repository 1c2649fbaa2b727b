import CalHash
import Foundation
import XCTest

/// The `caldav` sink against a real Radicale: publish, read back with the source (the same events), publish
/// again (nothing sent), conflicts with changes made on the server, deletions of what left the feed.
final class CalDAVSinkTests: CalDAVTestCase {
    /// The series of `Radicale.weekly` with a location, an all-day party, the series' override and a concert whose
    /// UID a path cannot hold, in one VCALENDAR.
    static let feed = Radicale.calendar([Radicale.weekly + "\nLOCATION:Room 1", """
        UID:party@test
        DTSTAMP:20261101T000000Z
        DTSTART;VALUE=DATE:20261218
        DTEND;VALUE=DATE:20261219
        SUMMARY:Party
        CATEGORIES:fun,team
        """, Radicale.weeklyOverride, """
        UID:odd/uid with space@test
        DTSTAMP:20261101T000000Z
        DTSTART:20261220T170000Z
        DURATION:PT2H
        SUMMARY:Concert
        DESCRIPTION:Bring tickets\\, and a coat
        """])

    func writeFeed(_ text: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent("feed.ics"))
    }

    var collection: String { server.home + "published/" }
    /// The resource of the UID "odd/uid with space@test".
    var odd: String { "/\(server.user)/published/" + SHA256.hex(of: Array("odd/uid with space@test".utf8)) + ".ics" }
    var sinkLabel: String { "caldav " + collection }

    func publishPipeline(_ extra: [String: Any] = [:]) -> [String: Any] {
        var sink: [String: Any] = ["type": "caldav", "url": collection, "username": server.user, "password": "${CALDAV_PASSWORD}"]
        for (k, v) in extra { sink[k] = v }
        return ["name": "publish", "timezone": "Europe/Berlin", "window": ["from": "2026-12-01", "to": "2027-01-01"],
                "sources": [["type": "ics", "name": "feed", "path": "feed.ics"]], "sinks": [sink]]
    }

    /// The events a pipeline reads, as the json sink writes them, without what tells where they came from.
    func events(_ name: String, source: [String: Any]) throws -> [[String: AnyHashable]] {
        let result = try run(name, ["name": name, "timezone": "Europe/Berlin", "sources": [source],
                                    "sinks": [["type": "json", "path": name + ".json", "shape": "events"]]])
        XCTAssertEqual(result.code, 0, result.stderr)
        let document = try json(name + ".json")
        let list = (document as? [[String: Any]]) ?? ((document as? [String: Any])?["events"] as? [[String: Any]]) ?? []
        return list.map { event in
            var kept: [String: AnyHashable] = [:]
            for (key, value) in event where !["metadata", "source", "origin", "calendar", "calendar_color", "stamp", "dtstamp"].contains(key) {
                kept[key] = value as? AnyHashable
            }
            return kept
        }.sorted { Self.key($0) < Self.key($1) }
    }

    static func key(_ event: [String: AnyHashable]) -> String {
        [event["uid"], event["recurrence_id"]].map { $0.map { "\($0)" } ?? "" }.joined(separator: " ")
    }

    func testPublishedEventsReadBackAsTheSameEvents() throws {
        try server.makeCalendar("published", displayName: "Published")
        try writeFeed(Self.feed)
        let result = try run("publish", publishPipeline())
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try outcomes("publish", sink: sinkLabel), ["created": 3])
        // One resource per UID, named after it, or after its SHA-256 when it holds what a path cannot.
        XCTAssertEqual(try server.get("/\(server.user)/published/party@test.ics").status, 200)
        XCTAssertEqual(try server.get(odd).status, 200)

        let original = try events("original", source: ["type": "ics", "path": "feed.ics"])
        let readBack = try events("readback", source: source(["calendars": ["Published"]]))
        XCTAssertEqual(original.count, 4)
        XCTAssertEqual(readBack, original)

        // The same feed again: nothing is sent.
        let again = try run("publish", publishPipeline())
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try outcomes("publish", sink: sinkLabel), ["unchanged": 3])
        // Without the kept ETags (--full: no state is read), the resources on the server that hold the same
        // events are recognised as calpipe's, not taken for conflicts.
        let full = try run("publish", publishPipeline(), arguments: ["--full"])
        XCTAssertEqual(full.code, 0, full.stderr)
        XCTAssertEqual(try outcomes("publish", sink: sinkLabel), ["unchanged": 3])
    }

    func testChangesUpdateWithTheirETagAndNeverOverwriteTheServersChanges() throws {
        try server.makeCalendar("published", displayName: "Published")
        try writeFeed(Self.feed)
        XCTAssertEqual(try run("publish", publishPipeline()).code, 0)

        // Someone edits the party on the server; the feed changes the party and the concert and drops the series.
        try server.put("published", "party%40test.ics", Radicale.calendar("""
            UID:party@test
            DTSTAMP:20261105T000000Z
            DTSTART;VALUE=DATE:20261218
            SUMMARY:Party (edited on the phone)
            """))
        var feed = Self.feed.replacingOccurrences(of: "SUMMARY:Party", with: "SUMMARY:Party!")
        feed = feed.replacingOccurrences(of: "SUMMARY:Concert", with: "SUMMARY:Concert (sold out)")
        let start = feed.range(of: "BEGIN:VEVENT\r\nUID:weekly@test")!.lowerBound
        let end = feed.range(of: "END:VEVENT\r\n", range: start..<feed.endIndex)!.upperBound
        feed.removeSubrange(start..<end)
        let overrideStart = feed.range(of: "BEGIN:VEVENT\r\nUID:weekly@test")!.lowerBound
        let overrideEnd = feed.range(of: "END:VEVENT\r\n", range: overrideStart..<feed.endIndex)!.upperBound
        feed.removeSubrange(overrideStart..<overrideEnd)
        try writeFeed(feed)

        // A conflict is a record the sink could not write: the run fails (exit 1) after the others were written.
        let result = try run("publish", publishPipeline())
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertEqual(try outcomes("publish", sink: sinkLabel), ["updated": 1, "deleted": 1, "conflict": 1])
        XCTAssertTrue(result.stderr.contains(#"\#(sinkLabel): UID "party@test": it was changed on the server since calpipe wrote it (412 Precondition Failed); the server's copy is kept"#), result.stderr)
        XCTAssertTrue(try server.get("/\(server.user)/published/party%40test.ics").body.contains("SUMMARY:Party (edited on the phone)"))
        XCTAssertTrue(try server.get(odd).body.contains("SUMMARY:Concert (sold out)"))
        XCTAssertEqual(try server.get("/\(server.user)/published/weekly%40test.ics").status, 404)

        // keep_removed: an event that leaves the feed stays on the server. (A feed that changes the party again
        // meets the phone's edit again: a conflict, exit 1; the feed's party as first published sends nothing.)
        try writeFeed(Self.feed.replacingOccurrences(of: "SUMMARY:Concert", with: "SUMMARY:Concert (sold out)"))
        XCTAssertEqual(try run("publish", publishPipeline()).code, 0)
        try writeFeed(feed.replacingOccurrences(of: "UID:odd/uid with space@test", with: "UID:other@test"))
        let kept = try run("publish", publishPipeline(["keep_removed": true]))
        XCTAssertEqual(kept.code, 1, kept.stderr)
        XCTAssertEqual(try server.get("/\(server.user)/published/weekly%40test.ics").status, 200)
        XCTAssertEqual(try server.get(odd).status, 200)
    }
}
