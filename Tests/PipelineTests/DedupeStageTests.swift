import CalpipeKit
import Foundation
import XCTest
@testable import Pipeline

/// The `dedupe` stage merging the team's agenda (data/agenda.json) with a personal calendar that holds three of
/// its invitations under the same UIDs (data/personal.ics: "1:1", "Sprint  Planning" and the "Jour fixe" series,
/// whose personal copy moved one instance).
final class DedupeStageTests: XCTestCase {
    static let team = #"{"type": "json", "name": "Team", "path": "data/agenda.json"}"#
    static let personal = #"{"type": "ics", "name": "Personal", "path": "data/personal.ics"}"#
    static let shared = ["sample-013@calpipe.example", "sample-026@calpipe.example", "sample-048@calpipe.example"]

    func run(_ sources: [String], dedupe: String = #"{"type": "dedupe"}"#) throws -> (collector: EventCollector, context: RunContext) {
        let (sinks, context) = try EventCollector.run("""
            {"timezone": "Europe/Berlin", "window": {"from": "2026-10-12", "to": "2026-11-23"},
             "sources": [\(sources.joined(separator: ", "))], "stages": [\(dedupe), {"type": "expand"}], "sinks": [{"type": "collect"}]}
            """)
        return (sinks[0] as! EventCollector, context)
    }

    func testTwoFeedsSharingUIDsAreMergedAndTheFirstSourceWins() throws {
        let (alone, _) = try run([Self.team])
        let (personal, _) = try run([Self.personal])
        let (out, context) = try run([Self.team, Self.personal])
        // The personal copies of the shared UIDs go: three events and the override of the series.
        let personalShared = personal.events.filter { Self.shared.contains($0.uid) }
        XCTAssertEqual(personalShared.count, 4)
        XCTAssertEqual(context.report.counter(DedupeStage.mergedCounter), 4)
        XCTAssertEqual(out.events.count, alone.events.count + personal.events.count - 4)
        for uid in Self.shared {
            XCTAssertEqual(out.events.filter { $0.uid == uid }.map { $0.metadata["source"] }, ["Team"], uid)
        }
        // The team's copies as they are: the sprint planning in Munich, the Jour fixe never moved.
        XCTAssertEqual(out.events.first { $0.uid == "sample-026@calpipe.example" }?.location, "München Messe")
        let jourFixe = out.occurrences.filter { $0.event.uid == "sample-048@calpipe.example" }
        XCTAssertEqual(jourFixe.map(\.event.title), Array(repeating: "Jour fixe", count: 5))
        XCTAssertEqual(jourFixe.map(\.event.metadata["source"]), Array(repeating: "Team", count: 5))
        // Nothing but the duplicates went.
        XCTAssertEqual(Set(out.events.map(\.uid)), Set(alone.events.map(\.uid)).union(personal.events.map(\.uid)))
    }

    func testTheSourceListedFirstWins() throws {
        let (out, context) = try run([Self.personal, Self.team])
        XCTAssertEqual(context.report.counter(DedupeStage.mergedCounter), 3)
        XCTAssertEqual(out.events.first { $0.uid == "sample-026@calpipe.example" }?.title, "Sprint  Planning")
        let jourFixe = out.occurrences.filter { $0.event.uid == "sample-048@calpipe.example" }
        XCTAssertEqual(jourFixe.map(\.event.title), ["Jour fixe", "Jour fixe", "Jour fixe (moved)", "Jour fixe", "Jour fixe"])
        XCTAssertEqual(Set(jourFixe.map(\.event.metadata["source"])), ["Personal"])
    }

    func testByTimeAndTitleMergesEventsWithOtherUIDs() throws {
        // The team's feed converted with other UIDs: every event is the same by start, end and title.
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let renamed = dir.appendingPathComponent("team-copy.json")
        let agenda = try String(contentsOf: TestSupport.repositoryRoot.appendingPathComponent("data/agenda.json"), encoding: .utf8)
        try agenda.replacingOccurrences(of: "@calpipe.example", with: "@mirror.example").write(to: renamed, atomically: true, encoding: .utf8)
        let copy = #"{"type": "json", "name": "Mirror", "path": "\#(renamed.path)"}"#
        let (alone, _) = try run([Self.team])
        let (byUID, uidContext) = try run([Self.team, copy])
        XCTAssertEqual(uidContext.report.counter(DedupeStage.mergedCounter), 0)
        XCTAssertEqual(byUID.events.count, 2 * alone.events.count)
        let (out, context) = try run([Self.team, copy, Self.personal], dedupe: #"{"type": "dedupe", "by": "time_and_title"}"#)
        // The mirror entirely; of the personal feed the "1:1" (same times and title) and "Sprint  Planning"
        // (title in other case and spacing); the Jour fixe series too (same first instance), with its override.
        XCTAssertEqual(context.report.counter(DedupeStage.mergedCounter), alone.events.count + 4)
        XCTAssertEqual(Set(out.events.map { $0.metadata["source"] }), ["Team", "Personal"])
        XCTAssertFalse(out.events.contains { Self.shared.contains($0.uid) && $0.metadata["source"] == "Personal" })
        XCTAssertEqual(DedupeKey.normalizedTitle("  Sprint \t Planning "), "sprint planning")
    }

    func testEventsOfOneSourceAreNeverMerged() throws {
        // One feed holding one UID twice (two revisions): that is the expand stage's to settle, not dedupe's.
        let feed = #"{"type": "ics", "path": "Tests/Fixtures/ics/realworld/24-duplicate-uid.ics"}"#
        let (out, context) = try run([feed])
        let (plain, _) = try EventCollector.run("""
            {"timezone": "Europe/Berlin", "sources": [\(feed)], "stages": [], "sinks": [{"type": "collect"}]}
            """)
        XCTAssertEqual(context.report.counter(DedupeStage.mergedCounter), 0)
        XCTAssertEqual(out.events.map(\.uid), (plain[0] as! EventCollector).events.map(\.uid))
    }

    func testUnknownModeIsRefused() {
        XCTAssertEqual(EventCollector.problems("""
            {"sources": [\(Self.team)], "stages": [{"type": "dedupe", "by": "uuid"}], "sinks": [{"type": "collect"}]}
            """), ["pipelines/test.json: stages[0].by: unknown value \"uuid\" (expected one of: uid, time_and_title); did you mean \"uid\"?"])
    }
}
