import CalpipeKit
import Foundation
import XCTest
@testable import Pipeline

/// The `transform` stage on the repository's feeds: the team's agenda (data/agenda.json) and a personal calendar
/// exported from Apple Calendar (data/personal.ics), in Europe/Berlin.
final class TransformStageTests: XCTestCase {
    static let sources = """
        [{"type": "json", "name": "Team", "path": "data/agenda.json"}, {"type": "ics", "name": "Personal", "path": "data/personal.ics"}]
        """

    /// Runs the two feeds through `stages` (JSON) into the collector, in the window 2026-10-12 to 2026-11-23.
    func run(_ stages: String, sources: String = TransformStageTests.sources) throws -> (collector: EventCollector, context: RunContext) {
        let (sinks, context) = try EventCollector.run("""
            {"timezone": "Europe/Berlin", "window": {"from": "2026-10-12", "to": "2026-11-23"},
             "sources": \(sources), "stages": \(stages), "sinks": [{"type": "collect"}]}
            """)
        return (sinks[0] as! EventCollector, context)
    }

    func transform(_ rules: String) throws -> (collector: EventCollector, context: RunContext) {
        try run(#"[{"type": "transform", "rules": \#(rules)}, {"type": "expand"}]"#)
    }

    func testRulesRemoveChangeAndHideEventsOfTwoFeeds() throws {
        let (baseline, _) = try run(#"[{"type": "expand"}]"#)
        let (out, context) = try transform("""
            [{"match": {"title": {"prefix": "canceled:", "ignore_case": true}}, "remove": true},
             {"match": {"source": "Personal", "title": {"contains": "Doctor"}}, "privacy": "busy", "stop": true},
             {"match": {"title": {"regex": "^(Design|Budget) review$"}},
              "title": {"regex": "^(\\\\w+) review$", "with": "Review: $1"}, "color": "teal", "categories": ["Reviews"]},
             {"match": {"source": "Team"}, "title": {"prefix": "Team: "}},
             {"match": {"location": {"contains": "alexanderplatz", "ignore_case": true}},
              "location": {"replace": "Alexanderplatz 1, Berlin", "with": "HQ"}},
             {"match": {"all_day": true, "source": "Personal"}, "transparency": "opaque", "calendar": "Family"}]
            """)
        // Two events of the personal feed start with "Canceled:" (a single one and a series): gone.
        let canceled = baseline.events.filter { $0.title?.lowercased().hasPrefix("canceled:") == true }
        XCTAssertEqual(canceled.map(\.uid), ["4F1C2B7E-dentist@personal.example", "5B7E-piano@personal.example"])
        XCTAssertEqual(out.events.count, baseline.events.count - 2)
        XCTAssertFalse(out.occurrences.contains { $0.event.title?.contains("Canceled") == true })
        XCTAssertEqual(context.report.counter("events removed by transform"), 2)

        // Every team event is prefixed; the reviews were rewritten first, with their group.
        let team = out.events.filter { $0.metadata["source"] == "Team" }
        XCTAssertEqual(team.count, 50)
        XCTAssertTrue(team.allSatisfy { $0.title?.hasPrefix("Team: ") == true }, "\(team.map(\.title))")
        let design = try XCTUnwrap(team.first { $0.uid == "sample-002@calpipe.example" })
        XCTAssertEqual(design.title, "Team: Review: Design")
        XCTAssertEqual(design.color, "#008080")
        XCTAssertEqual(design.categories, ["Reviews"])
        XCTAssertEqual(design.location, "Room Spree, HQ")
        XCTAssertEqual(team.first { $0.uid == "sample-014@calpipe.example" }?.title, "Team: Review: Budget")
        let reviews = baseline.events.filter { ["Design review", "Budget review"].contains($0.title) }.map(\.uid)
        XCTAssertEqual(out.events.filter { $0.categories == ["Reviews"] }.map(\.uid), reviews)

        // The doctor's appointment is free/busy time only, and `stop` kept the later rules off it.
        let doctor = try XCTUnwrap(out.events.first { $0.uid == "8A0D93C1-doctor@personal.example" })
        XCTAssertEqual(doctor.title, "Busy")
        XCTAssertNil(doctor.description)
        XCTAssertNil(doctor.location)
        XCTAssertEqual(doctor.attendees, [])
        XCTAssertEqual(doctor.categories, [])
        XCTAssertEqual(doctor.components, [])
        XCTAssertFalse(doctor.otherProperties.contains { $0.name == "X-ALT-DESC" })
        XCTAssertNil(doctor.sourceText)
        let berlin = TestSupport.zone("Europe/Berlin")
        XCTAssertEqual(doctor.start.utcSeconds(in: berlin), berlin.utc(fromLocal: TestSupport.local(2026, 10, 29, 8)))

        // The all-day visit: opaque now, in the "Family" calendar.
        let visit = try XCTUnwrap(out.events.first { $0.uid == "91D2-visit@personal.example" })
        XCTAssertEqual(visit.otherProperties.filter { $0.name == "TRANSP" }.map(\.value), ["OPAQUE"])
        XCTAssertEqual(visit.metadata["calendar"], "Family")
        XCTAssertEqual(context.report.counter("events changed by transform"),
                       50 + 1 + 1 + out.events.filter { $0.metadata["source"] == "Personal" && $0.location?.contains("HQ") == true }.count)
    }

    /// A `remove` rule with a weekday removes the matching instances of a series (as EXDATEs, so calendar sinks
    /// leave them out too), and cancels an override that falls on such a day; the rest of the series stays.
    func testRemoveByWeekdayRemovesInstancesOfASeries() throws {
        let (baseline, _) = try run(#"[{"type": "expand"}]"#)
        let (out, context) = try transform(#"[{"match": {"title": "gym", "weekday": ["sat", "Sunday"]}, "remove": true}]"#)
        let zone = TestSupport.zone("Europe/Berlin")
        func gym(_ c: EventCollector) -> [Occurrence] { c.occurrences.filter { $0.event.uid == "C3E1A2F0-gym@personal.example" } }
        func weekday(_ o: Occurrence) -> Int { zone.local(fromUTC: o.start.utcSeconds(in: zone)).date.isoWeekday }
        let before = gym(baseline)
        XCTAssertEqual(before.filter { weekday($0) == 6 }.count, 6)
        XCTAssertEqual(gym(out).map(\.start), before.filter { weekday($0) != 6 }.map(\.start))
        XCTAssertTrue(gym(out).allSatisfy { [1, 3].contains(weekday($0)) })

        // The master has an EXDATE for each Saturday up to its UNTIL (28 November is past the window), the
        // override of 24 October (moved to 10:00 that Saturday) is cancelled, not dropped.
        let master = try XCTUnwrap(out.events.first { $0.uid == "C3E1A2F0-gym@personal.example" && $0.recurrenceID == nil })
        XCTAssertEqual(master.recurrence.exceptionDates.map(\.localTime.date.iso8601),
                       ["2026-10-17", "2026-10-24", "2026-10-31", "2026-11-07", "2026-11-14", "2026-11-21", "2026-11-28"])
        let override = try XCTUnwrap(out.events.first { $0.uid == "C3E1A2F0-gym@personal.example" && $0.recurrenceID != nil })
        XCTAssertEqual(override.status, "CANCELLED")
        XCTAssertEqual(context.report.counter("instances removed by transform (EXDATE)"), 7)
        XCTAssertEqual(context.report.counter("events removed by transform"), 0)
    }

    /// The same removal reaches a calendar sink: the ICS written and read again expands to the kept instances.
    func testInstancesRemovedByWeekdayStayRemovedInTheICSOutput() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ics = dir.appendingPathComponent("personal.ics").path
        _ = try EventCollector.run("""
            {"timezone": "Europe/Berlin", "window": {"from": "2026-10-12", "to": "2026-11-23"},
             "sources": [{"type": "ics", "path": "data/personal.ics"}],
             "stages": [{"type": "transform", "rules": [{"match": {"title": "gym", "weekday": "sat"}, "remove": true},
                                                         {"match": {"title": "gym", "weekday": "wed", "time_of_day": {"from": "18:00", "to": "20:00"}}, "remove": true}]}],
             "sinks": [{"type": "ics", "path": "\(ics)"}]}
            """)
        let (again, _) = try run(#"[{"type": "expand"}]"#, sources: #"[{"type": "ics", "path": "\#(ics)"}]"#)
        let zone = TestSupport.zone("Europe/Berlin")
        let days = again.occurrences.filter { $0.event.uid == "C3E1A2F0-gym@personal.example" }
            .map { zone.local(fromUTC: $0.start.utcSeconds(in: zone)).date.iso8601 }
        XCTAssertEqual(days, ["2026-10-12", "2026-10-19", "2026-10-26", "2026-11-02", "2026-11-09", "2026-11-16"])
    }

    /// Text rules apply per event: a series master's new title reaches every instance; its override is matched by
    /// its own title. `stop` keeps later rules off the events it matched.
    func testTextRulesChangeASeriesAsAWholeAndStopEndsTheRules() throws {
        let (out, _) = try transform("""
            [{"match": {"title": "Jour fixe", "weekday": "tue"}, "title": {"suffix": " ☕"}, "stop": true},
             {"match": {"title": {"not": {"empty": true}}}, "title": {"prefix": "* "}}]
            """)
        let jourFixe = out.occurrences.filter { $0.event.uid == "sample-048@calpipe.example" }
        // Two copies of the series (both feeds), each with 5 instances (one EXDATE of 6); the personal feed moved
        // one instance (its override keeps its own title, so the first rule does not match it).
        XCTAssertEqual(jourFixe.filter { $0.event.metadata["source"] == "Team" }.map(\.event.title), Array(repeating: "Jour fixe ☕", count: 5))
        XCTAssertEqual(jourFixe.filter { $0.event.metadata["source"] == "Personal" }.map(\.event.title),
                       ["Jour fixe ☕", "Jour fixe ☕", "* Jour fixe (moved)", "Jour fixe ☕", "Jour fixe ☕"])
        XCTAssertEqual(out.events.filter { $0.title?.hasPrefix("* ") == true }.count, out.events.count - 2)
    }

    /// Removing by time of day on single events: the team's events that start before 09:30 are gone.
    func testRemoveByTimeOfDayAndDuration() throws {
        let (baseline, _) = try run(#"[{"type": "expand"}]"#)
        let (out, _) = try transform(#"[{"match": {"source": "Team", "time_of_day": {"to": "09:30"}, "duration": {"max": "1h"}}, "remove": true}]"#)
        let zone = TestSupport.zone("Europe/Berlin")
        let removed = baseline.events.filter { e in
            guard e.metadata["source"] == "Team", !e.isAllDay, !e.isRecurring else { return false }
            let local = zone.local(fromUTC: e.start.utcSeconds(in: zone))
            return local.secondOfDay < 9 * 3600 + 30 * 60 && e.end.utcSeconds(in: zone) - e.start.utcSeconds(in: zone) <= 3600
        }.map(\.uid)
        XCTAssertFalse(removed.isEmpty)
        XCTAssertEqual(Set(baseline.events.map(\.uid)).subtracting(out.events.map(\.uid)), Set(removed))
        // The Jour fixe series (08:30, 30 min) loses every instance in both feeds; the events stay, with EXDATEs.
        XCTAssertEqual(out.occurrences.filter { $0.event.uid == "sample-048@calpipe.example" && $0.event.metadata["source"] == "Team" }.count, 0)
    }

    /// docs/transforms.md's example, pipelines/subscription.json, does what the page says it does.
    func testTheDocumentedSubscriptionPipeline() throws {
        let root = TestSupport.repositoryRoot
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("team-and-me.ics").path
        let text = try String(contentsOf: root.appendingPathComponent("pipelines/subscription.json"), encoding: .utf8)
        XCTAssertTrue(text.contains("\"../out/team-and-me.ics\""))
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "Europe/Berlin", "SOURCE_DATE_EPOCH": "1795000000"])
        let definition = try loader.load(json: try JSONParser.parse(text.replacingOccurrences(of: "../out/team-and-me.ics", with: output)),
                                         file: "pipelines/subscription.json", baseDirectory: root.appendingPathComponent("pipelines"))
        let context = RunContext(environment: definition.environment, quiet: true)
        try Runner().run(definition, context: context)
        let page = try String(contentsOf: root.appendingPathComponent("docs/transforms.md"), encoding: .utf8)
        for (counter, value) in [(DedupeStage.mergedCounter, 4), ("events removed by transform", 2), ("events changed by transform", 54)] {
            XCTAssertEqual(context.report.counter(counter), value, counter)
            XCTAssertTrue(page.contains("`\(counter): \(value)`"), counter)
        }
        // The calendar written, read again: every title says where it came from, the personal events say nothing else.
        let (again, _) = try run(#"[]"#, sources: #"[{"type": "ics", "path": "\#(output)"}]"#)
        XCTAssertEqual(again.events.count, 54)
        XCTAssertEqual(again.events.filter { $0.title?.hasPrefix("Team: ") == true }.count, 50)
        let personal = again.events.filter { $0.title == "Me: Busy" }
        XCTAssertEqual(personal.map(\.uid).sorted(), ["8A0D93C1-doctor@personal.example", "91D2-visit@personal.example",
                                                       "C3E1A2F0-gym@personal.example", "C3E1A2F0-gym@personal.example"])
        XCTAssertTrue(personal.allSatisfy { $0.description == nil && $0.location == nil && $0.attendees.isEmpty && $0.organizer == nil })
        XCTAssertEqual(Set(again.events.map(\.uid)).count, 53)
    }

    func testBadRulesAreReportedWithTheirJSONPathsAtLoad() {
        let found = EventCollector.problems("""
            {"sources": [{"type": "ics", "path": "data/personal.ics"}], "sinks": [{"type": "collect"}],
             "stages": [{"type": "transform", "rules": [
               {"match": {"title": {"regex": "(abc"}}, "remove": true},
               {"match": {"titel": "x"}, "title": "y"},
               {"match": {"weekday": ["mon", "saturdy"]}, "remove": true, "title": "x"},
               {"title": {"regex": "a[b", "with": "$1"}},
               {"match": {"time_of_day": {"from": "9:00"}}, "location": {"replace": "a"}},
               {"description": {"regex": "(a)", "with": "$x"}},
               {"match": {"source": "Team"}},
               {"privacy": "bsy", "color": "blu"}
             ]}]}
            """)
        XCTAssertEqual(found, [
            "pipelines/test.json: stages[0].rules[0].match.title.regex: invalid regular expression \"(abc\": expected ')'",
            "pipelines/test.json: stages[0].rules[1].match.titel: unknown option (expected one of: \(TransformRule.matchKeys.joined(separator: ", "))); did you mean \"title\"?",
            "pipelines/test.json: stages[0].rules[2].match.weekday[1]: unknown weekday \"saturdy\" (expected one of: mon, tue, wed, thu, fri, sat, sun, or the full English name); did you mean \"saturday\"?",
            "pipelines/test.json: stages[0].rules[2]: \"remove\" cannot be combined with other actions (title): a removed event is not changed",
            "pipelines/test.json: stages[0].rules[3].title.regex: invalid regular expression \"a[b\": expected ']'",
            "pipelines/test.json: stages[0].rules[4].match.time_of_day.from: invalid time \"9:00\" (expected HH:MM, 24-hour, such as \"09:30\" or \"24:00\")",
            "pipelines/test.json: stages[0].rules[4].location.with: missing: \"replace\" needs the text that replaces what it finds (\"with\": \"\" removes it)",
            "pipelines/test.json: stages[0].rules[5].description.with: \"$\" must be followed by a group number (\"$1\") or another \"$\" (\"$$\" writes a dollar sign)",
            "pipelines/test.json: stages[0].rules[6]: a rule needs at least one action (remove, privacy, title, location, description, color, categories, calendar, transparency, stop)",
            "pipelines/test.json: stages[0].rules[7].privacy: unknown value \"bsy\" (expected one of: busy); did you mean \"busy\"?",
            "pipelines/test.json: stages[0].rules[7].color: unknown colour \"blu\" (expected \"#RRGGBB\", \"#RGB\" or a CSS colour name such as \"teal\"); did you mean \"blue\"?",
        ])
    }

    func testTransformAfterExpandIsRefusedAndAnAddedExpandComesAfterIt() throws {
        XCTAssertEqual(EventCollector.problems("""
            {"sources": [{"type": "ics", "path": "data/personal.ics"}], "sinks": [{"type": "collect"}],
             "stages": [{"type": "expand"}, {"type": "filter"}, {"type": "transform", "rules": [{"title": "x"}]}, {"type": "dedupe"}]}
            """), [
            "pipelines/test.json: stages[2]: \"transform\" must come before \"expand\" (stages[0]): it works on events as read, before they are expanded into occurrences and split into days; move it up",
            "pipelines/test.json: stages[3]: \"dedupe\" must come before \"expand\" (stages[0]): it works on events as read, before they are expanded into occurrences and split into days; move it up",
        ])
        // The collector reads occurrences: the loader adds an expand, after the transform.
        let definition = try EventCollector.load("""
            {"sources": [{"type": "ics", "path": "data/personal.ics"}], "sinks": [{"type": "collect"}],
             "stages": [{"type": "transform", "rules": [{"title": "x"}]}]}
            """)
        XCTAssertEqual(definition.stageTypes, ["transform", "expand"])
    }
}
