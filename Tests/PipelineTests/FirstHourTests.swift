import Foundation
import XCTest
@testable import Pipeline

/// A new user's first hour (issue 25), point by point: the trial of a merged agenda of several published feeds, run
/// from the project's folder with the pipeline in `pipelines/`, feeds in `feeds/` and outputs in `out/`. Every run
/// keeps its locks and run stamps in a folder of its own (CALPIPE_LOCKS, CALPIPE_STATE), outside the project.
final class FirstHourTests: XCTestCase {
    private var dir: URL!
    private var state: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        state = try TestSupport.temporaryDirectory()
        try write(Self.holidays, to: "feeds/holidays.ics")
        try write(Self.team, to: "feeds/team.ics")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
        try? FileManager.default.removeItem(at: state)
    }

    private func url(_ path: String) -> URL { dir.appendingPathComponent(path) }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url(path), atomically: true, encoding: .utf8)
    }

    private func read(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }

    private func calpipe(_ arguments: [String], in folder: String = "") throws -> CalpipeProcess.Result {
        try CalpipeProcess.run(arguments, in: folder.isEmpty ? dir : url(folder), environment: [
            "CALPIPE_STATE": state.appendingPathComponent("runs").path, "CALPIPE_LOCKS": state.appendingPathComponent("locks").path,
            "SOURCE_DATE_EPOCH": "1795000000", "NO_COLOR": "1",
        ])
    }

    /// The merged pipeline: the feeds of `feeds/` over eight weeks, into the sinks given (paths from `pipelines/`).
    private func pipeline(_ file: String = "pipelines/merged.json", sinks: String, path: String = "../feeds/*.ics",
                          window: String = #"{"from": "2026-01-05", "to": "2026-03-02"}"#) throws {
        try write("""
            { "name": "merged", "timezone": "Europe/Berlin", "window": \(window),
              "sources": [ { "type": "ics", "name": "feeds", "path": "\(path)" } ],
              "stages": [ { "type": "expand" }, { "type": "split" } ],
              "sinks": \(sinks) }
            """, to: file)
    }

    static let holidays = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//calpipe tests//holidays//EN\r
        BEGIN:VEVENT\r
        UID:goodfriday-2026@holidays.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:20260403\r
        DTEND;VALUE=DATE:20260404\r
        SUMMARY:Good Friday\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:newyear-1990@holidays.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:19900101\r
        DTEND;VALUE=DATE:19900102\r
        SUMMARY:New Year 1990\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:carnival-2026@holidays.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:20260216\r
        DTEND;VALUE=DATE:20260217\r
        SUMMARY:Carnival Monday\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static let team = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//calpipe tests//team//EN\r
        BEGIN:VEVENT\r
        UID:standup@team.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20251201T090000Z\r
        DTEND:20251201T091500Z\r
        RRULE:FREQ=WEEKLY;COUNT=8\r
        SUMMARY:Standup\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:retro-2020@team.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20200106T140000Z\r
        DTEND:20200106T150000Z\r
        RRULE:FREQ=MONTHLY;COUNT=3\r
        SUMMARY:Old retro\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:planning@team.test\r
        DTSTAMP:20260101T000000Z\r
        DTSTART:20260210T100000Z\r
        DTEND:20260210T120000Z\r
        SUMMARY:Planning\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    // MARK: 1. The test command on a fresh machine

    /// README's test command is scripts/test, which prepares what the tests need and is what CI runs.
    func testTheReadmeTestCommandIsTheScriptCIRuns() throws {
        let root = TestSupport.repositoryRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = readme.components(separatedBy: "```sh\n")[1].components(separatedBy: "```")[0]
        XCTAssertTrue(commands.contains("\nscripts/test "), commands)
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertTrue(ci.contains("\nscripts/test 2>&1 | tee \"$log\""), ci)
        let script = try String(contentsOf: root.appendingPathComponent("scripts/test"), encoding: .utf8)
        XCTAssertTrue(script.contains("venv=.build/test-venv"), script)
        XCTAssertTrue(script.contains("-r \"$requirements\""), script)
        // Every Python tool is pinned to one version.
        let pins = try String(contentsOf: root.appendingPathComponent("scripts/test-requirements.txt"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        XCTAssertFalse(pins.isEmpty)
        for pin in pins { XCTAssertTrue(pin.contains("=="), "not pinned: \(pin)") }
        XCTAssertTrue(pins.contains { $0.hasPrefix("html5lib==") } && pins.contains { $0.hasPrefix("jsonschema==") }, "\(pins)")
    }

    // MARK: 2. A database's missing folder

    func testTheSQLiteSinkMakesAMissingFolderLikeTheFileSinks() throws {
        try pipeline(sinks: #"[{"type": "sqlite", "path": "../out/merged.sqlite"}, {"type": "json", "path": "../out/days.json", "shape": "days"}]"#)
        XCTAssertEqual(try calpipe(["validate", "pipelines/merged.json"]).code, 0)
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(run.code, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("out/merged.sqlite").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("out/days.json").path))
    }

    // MARK: 3. Days outside the data

    func testAgendaOfAPipelineShowsDaysOutsideItsWindow() throws {
        try pipeline(sinks: #"[{"type": "json", "path": "../out/days.json", "shape": "days"}]"#)
        let agenda = try calpipe(["agenda", "pipelines/merged.json", "--from", "2026-04-02", "--to", "2026-04-04", "--color", "never", "--width", "60"])
        XCTAssertEqual(agenda.code, 0, agenda.stderr)
        XCTAssertEqual(agenda.stdout, """
            Thursday, April 2, 2026
              no events

            Friday, April 3, 2026
              ● all day      Good Friday

            """)
        XCTAssertEqual(agenda.stderr, "calpipe: note: 2026-04-02 to 2026-04-04 reaches outside the pipeline's window (2026-01-05 to 2026-03-02); "
                       + "the pipeline is read for the days shown\n")
        // --set changes the pipeline as `run --set` does.
        let set = try calpipe(["agenda", "pipelines/merged.json", "--set", "sources[0].path=../feeds/team.ics", "--from", "2026-02-10",
                               "--to", "2026-02-11", "--color", "never", "--width", "60"])
        XCTAssertEqual(set.code, 0, set.stderr)
        XCTAssertEqual(set.stdout, "Tuesday, February 10, 2026\n  ● 11:00 2h     Planning\n")
    }

    func testQuerySaysWhichDaysTheDatabaseHolds() throws {
        try pipeline(sinks: #"[{"type": "sqlite", "path": "../out/merged.sqlite"}]"#)
        XCTAssertEqual(try calpipe(["run", "pipelines/merged.json"]).code, 0)
        let outside = try calpipe(["query", "out/merged.sqlite", "--day", "2026-04-03"])
        XCTAssertEqual(outside.code, 0, outside.stderr)
        XCTAssertEqual(outside.stdout, "Fri 2026-04-03\n  no events stored for this day (the database holds 2026-01-05 to 2026-03-01)\n")
        XCTAssertEqual(outside.stderr, "calpipe: note: out/merged.sqlite holds the days 2026-01-05 to 2026-03-01 (the window of its last run); "
                       + "days outside them show only what earlier runs kept\n")
        let agenda = try calpipe(["agenda", "out/merged.sqlite", "--from", "2026-04-03", "--to", "2026-04-04", "--color", "never"])
        XCTAssertEqual(agenda.code, 0, agenda.stderr)
        XCTAssertEqual(agenda.stderr, outside.stderr)
        let inside = try calpipe(["query", "out/merged.sqlite", "--day", "2026-02-11"])
        XCTAssertEqual(inside.stdout, "Wed 2026-02-11\n  no events\n")
        XCTAssertEqual(inside.stderr, "")
    }

    // MARK: 4. The window bounds what calendar sinks export

    func testCalendarSinksExportOnlyEventsWithAnOccurrenceInTheWindow() throws {
        try pipeline(sinks: #"[{"type": "ics", "path": "../out/merged.ics"}, {"type": "xcal", "path": "../out/merged.xcal"}]"#)
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(run.code, 0, run.stderr)
        let ics = try read("out/merged.ics")
        let uids = ics.split(separator: "\r\n").filter { $0.hasPrefix("UID:") }.map { String($0.dropFirst(4)) }
        // Carnival and planning lie inside; the standup series starts before the window and reaches into it;
        // Good Friday, 1990 and the 2020 series have no occurrence inside.
        XCTAssertEqual(Set(uids), ["carnival-2026@holidays.test", "standup@team.test", "planning@team.test"])
        XCTAssertTrue(ics.contains("RRULE:FREQ=WEEKLY;COUNT=8\r\n"), "a series stays a series")
        XCTAssertTrue(run.stderr.contains("calpipe:   ics out/merged.ics: events outside the window left out: 3\n"), run.stderr)
        let xcal = try read("out/merged.xcal")
        XCTAssertEqual(xcal.components(separatedBy: "<vevent>").count - 1, 3)
        XCTAssertFalse(xcal.contains("goodfriday"))
    }

    // MARK: 5. A second run

    func testASecondRunKeepsUnchangedOutputsAndSaysWhy() throws {
        try pipeline(sinks: #"[{"type": "json", "path": "../out/days.json", "shape": "days"}, {"type": "ics", "path": "../out/merged.ics"}]"#)
        let first = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(first.code, 0, first.stderr)
        let written = try FileManager.default.attributesOfItem(atPath: url("out/days.json").path)[.modificationDate] as? Date
        let second = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(second.code, 0, second.stderr)
        XCTAssertTrue(second.stderr.hasPrefix("calpipe: merged: kept: nothing changed since the last run (2026-11-18 11:06 UTC): every output is as "
                                              + "it left it (calpipe run --full writes them again) ("), second.stderr)
        XCTAssertEqual(second.stderr.split(separator: "\n").count, 1, second.stderr)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: url("out/days.json").path)[.modificationDate] as? Date, written)
        // A feed changes: read again, and the summary says why.
        try write(Self.team.replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning (moved)"), to: "feeds/team.ics")
        let changed = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(changed.code, 0, changed.stderr)
        XCTAssertTrue(changed.stderr.contains("calpipe:   read: feeds changed since the last run\n"), changed.stderr)
        XCTAssertTrue(try read("out/merged.ics").contains("SUMMARY:Planning (moved)"))
        // An output removed by hand is written again.
        try FileManager.default.removeItem(at: url("out/merged.ics"))
        let removed = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertTrue(removed.stderr.contains("calpipe:   read: out/merged.ics was changed or removed since the last run\n"), removed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("out/merged.ics").path))
        // --full writes everything again.
        let full = try calpipe(["run", "--full", "pipelines/merged.json"])
        XCTAssertTrue(full.stderr.hasPrefix("calpipe: merged: 6 events read"), full.stderr)
    }

    func testARunThatCannotBeIncrementalSaysWhy() throws {
        try pipeline(sinks: #"[{"type": "json", "path": "-", "shape": "events"}]"#)
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(run.code, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("calpipe:   read in full: the json sink writes to standard output, so every run reads every source and "
                                          + "writes every output\n"), run.stderr)
    }

    // MARK: 6. Paths as the user can use them; run reports what validate reports

    func testMessagesNamePathsFromWhereTheUserStands() throws {
        try pipeline(sinks: #"[{"type": "json", "path": "../out/days.json", "shape": "days"}]"#)
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertTrue(run.stderr.contains("calpipe:   json out/days.json: "), run.stderr)
        XCTAssertFalse(run.stderr.contains("../out"), run.stderr)
        // From the pipeline's own folder, the path as written works.
        try write(Self.team.replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning 2"), to: "feeds/team.ics")
        let inside = try calpipe(["run", "merged.json"], in: "pipelines")
        XCTAssertTrue(inside.stderr.contains("calpipe:   json ../out/days.json: "), inside.stderr)
        // A source without a name is named by its path from here too, in what the summary and errors say of it.
        try write("""
            { "name": "plain", "timezone": "UTC", "sources": [ { "type": "ics", "path": "../feeds/team.ics" }, { "type": "ics", "path": "../feeds/holidays.ics" } ],
              "sinks": [ { "type": "json", "path": "../out/plain.json", "shape": "events" } ] }
            """, to: "pipelines/plain.json")
        XCTAssertEqual(try calpipe(["run", "pipelines/plain.json"]).code, 0)
        try write(Self.team.replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning 3"), to: "feeds/team.ics")
        let plain = try calpipe(["run", "pipelines/plain.json"])
        XCTAssertTrue(plain.stderr.contains("calpipe:   read: feeds/team.ics changed since the last run\n"), plain.stderr)
        try write("""
            { "name": "plaindb", "timezone": "UTC", "window": { "from": "2026-01-01", "to": "2026-05-01" },
              "sources": [ { "type": "ics", "path": "../feeds/team.ics" }, { "type": "ics", "path": "../feeds/holidays.ics" } ],
              "stages": [ { "type": "expand" }, { "type": "split" } ], "sinks": [ { "type": "sqlite", "path": "../out/plain.sqlite" } ] }
            """, to: "pipelines/plaindb.json")
        XCTAssertEqual(try calpipe(["run", "pipelines/plaindb.json"]).code, 0)
        try write("<html>502</html>\n", to: "feeds/holidays.ics")
        let failing = try calpipe(["run", "pipelines/plaindb.json"])
        XCTAssertEqual(failing.code, 1, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("; the rows of feeds/holidays.ics are kept\n"), failing.stderr)
        try write(Self.holidays, to: "feeds/holidays.ics")
        // A missing input: run says what validate says, with the pipeline file and the JSON path, and exits 2.
        try pipeline(sinks: #"[{"type": "json", "path": "../out/days.json", "shape": "days"}]"#, path: "../feeds/feiertag.ics")
        let missing = try calpipe(["run", "pipelines/merged.json"])
        let validate = try calpipe(["validate", "pipelines/merged.json"])
        XCTAssertEqual(missing.code, 2)
        XCTAssertEqual(validate.code, 2)
        XCTAssertEqual(missing.stderr, "pipelines/merged.json: sources[0].path: cannot read \"../feeds/feiertag.ics\": no such file\n")
        XCTAssertEqual(validate.stderr, missing.stderr)
    }

    // MARK: 7. A file given to the wrong source

    func testAnICSFileGivenAsXMLSaysWhatItIs() throws {
        for (type, expected) in [("xcal", "an xCal document"), ("caldav-xml", "a CalDAV response")] {
            try write("""
                {"sources": [{"type": "\(type)", "path": "../feeds/team.ics"}], "sinks": [{"type": "json", "path": "../out/e.json", "shape": "events"}]}
                """, to: "pipelines/x.json")
            let run = try calpipe(["run", "pipelines/x.json"])
            XCTAssertEqual(run.code, 1, type)
            XCTAssertEqual(run.stderr, "calpipe: error: feeds/team.ics:1: not \(expected): the file is not XML, it starts like iCalendar "
                           + "(BEGIN:VCALENDAR); read it with \"type\": \"ics\"\n")
        }
    }

    // MARK: 8. convert's extensions and usage errors

    func testConvertKnowsXcalAndUsageErrorsShowTheSubcommand() throws {
        let xcal = try calpipe(["convert", "feeds/team.ics", "-o", "out/h.xcal", "-q"])
        XCTAssertEqual(xcal.code, 0, xcal.stderr)
        XCTAssertTrue(try read("out/h.xcal").contains("<icalendar xmlns=\"urn:ietf:params:xml:ns:icalendar-2.0\">"))
        let unknown = try calpipe(["convert", "feeds/team.ics", "-o", "out/h.weird"])
        XCTAssertEqual(unknown.code, 2)
        XCTAssertEqual(unknown.stderr, """
            Error: cannot tell the format of "out/h.weird" from its extension (known: db, htm, html, ical, ics, jcal, json, jsonl, ndjson, sqlite, \
            sqlite3, xcal, xcs, xml); give --format/--output-format
            Usage: calpipe convert [<options>] <input> --output <output>
              See 'calpipe convert --help' for more information.

            """)
        let query = try calpipe(["query", "x.sqlite", "--days", "0"])
        XCTAssertEqual(query.code, 2)
        XCTAssertTrue(query.stderr.contains("\nUsage: calpipe query <database>"), query.stderr)
        XCTAssertFalse(query.stderr.contains("<subcommand>"), query.stderr)
    }

    // MARK: 9. A glob with a file that is not a calendar; repeated warnings

    func testAFileOfAGlobThatIsNotACalendarIsRejectedAlone() throws {
        try write("vBEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", to: "feeds/broken.ics")
        try pipeline(sinks: #"[{"type": "json", "path": "../out/events.json", "shape": "events"}]"#)
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(run.code, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains("calpipe: rejected: feeds/broken.ics: not an iCalendar file (expected BEGIN:VCALENDAR, found "
                                          + "\"vBEGIN:VCALENDAR\"): the file is left out, the other files of feeds/*.ics are read\n"), run.stderr)
        let events = try JSONParser.parse(try read("out/events.json")).arrayValue ?? []
        XCTAssertEqual(events.count, 6, "the other files are read")
        // --strict: the run fails and writes nothing.
        try FileManager.default.removeItem(at: url("out/events.json"))
        let strict = try calpipe(["run", "--strict", "pipelines/merged.json"])
        XCTAssertEqual(strict.code, 1, strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url("out/events.json").path))
    }

    /// The same for the other file sources: a JSON feed among others that is an HTML error page.
    func testAFileOfAJSONGlobThatCannotBeReadIsRejectedAlone() throws {
        try write(#"[{"uid": "a", "title": "A", "start": "2026-02-02T10:00:00Z"}]"#, to: "json/a.json")
        try write("<html><body>502 Bad Gateway</body></html>\n", to: "json/b.json")
        try write(#"[{"uid": "c", "title": "C", "start": "2026-02-03T10:00:00Z"}]"#, to: "json/c.json")
        try write("""
            { "name": "j", "timezone": "UTC", "sources": [ { "type": "json", "path": "../json/*.json" } ],
              "sinks": [ { "type": "json", "path": "../out/j.json", "shape": "events" } ] }
            """, to: "pipelines/j.json")
        let run = try calpipe(["run", "pipelines/j.json"])
        XCTAssertEqual(run.code, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains("calpipe: rejected: json/b.json: "), run.stderr)
        XCTAssertTrue(run.stderr.contains(": the file is left out, the other files of json/*.json are read\n"), run.stderr)
        XCTAssertEqual((try JSONParser.parse(try read("out/j.json")).arrayValue ?? []).count, 2)
    }

    func testRepeatedWarningsAreGroupedByKind() throws {
        var events = ""
        for n in 1...7 {
            events += "BEGIN:VEVENT\r\nUID:e\(n)@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:202602\(10 + n)T100000Z\r\nSUMMARY:Event \(n)\r\n"
                + "NO COLON ON THIS LINE\r\nEND:VEVENT\r\n"
        }
        try write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n" + events + "END:VCALENDAR\r\n", to: "feeds/team.ics")
        try pipeline(sinks: #"[{"type": "json", "path": "../out/events.json", "shape": "events"}]"#, path: "../feeds/team.ics")
        let run = try calpipe(["run", "pipelines/merged.json"])
        XCTAssertEqual(run.code, 0, run.stderr)
        let repairs = run.stderr.split(separator: "\n").filter { $0.hasPrefix("calpipe: warning: repaired: ") }
        XCTAssertEqual(repairs.count, 3, run.stderr)
        XCTAssertTrue(run.stderr.contains("calpipe: warning: 4 more like: repaired: "), run.stderr)
        XCTAssertTrue(run.stderr.contains("(7 in all; the first at feeds/team.ics:9, feeds/team.ics:16, feeds/team.ics:23; --log-level debug prints every one)\n"),
                      run.stderr)
        XCTAssertTrue(run.stderr.contains(", 7 repaired"), run.stderr)
        let debug = try calpipe(["run", "--full", "--log-level", "debug", "pipelines/merged.json"])
        XCTAssertEqual(debug.stderr.split(separator: "\n").filter { $0.hasPrefix("calpipe: warning: repaired: ") }.count, 7, debug.stderr)
    }

    // MARK: 11. Locks

    func testLocksLiveInCalpipesFolderNeverBesideTheUsersFiles() throws {
        try pipeline(sinks: #"[{"type": "sqlite", "path": "../out/merged.sqlite"}, {"type": "json", "path": "../out/days.json", "shape": "days"}]"#)
        XCTAssertEqual(try calpipe(["run", "pipelines/merged.json"]).code, 0)
        let everything = FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []
        XCTAssertEqual(everything.filter { $0.hasSuffix(".lock") }, [], "\(everything)")
        let locks = try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("locks").path).sorted()
        XCTAssertEqual(locks.count, 2, "\(locks)")
        XCTAssertTrue(locks[0].hasPrefix("merged.json.") && locks[0].hasSuffix(".lock"), "\(locks)")
        XCTAssertTrue(locks[1].hasPrefix("merged.sqlite.") && locks[1].hasSuffix(".lock"), "\(locks)")
        // The demo leaves nothing for git to see beside the pipeline.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: url("pipelines").path), ["merged.json"])
    }

    // MARK: 12. Small ones

    func testQueryOnAFileThatIsNotADatabaseSaysSo() throws {
        let query = try calpipe(["query", "feeds/team.ics"])
        XCTAssertEqual(query.code, 1)
        XCTAssertEqual(query.stderr, "calpipe: error: sqlite feeds/team.ics: cannot read: not a SQLite database (this reads what a pipeline's sqlite "
                       + "sink wrote; for a calendar file: calpipe convert FILE -o agenda.sqlite)\n")
    }

    /// Every subcommand's help: prose lines end a sentence or introduce a list (no line broken mid-sentence).
    func testHelpTextsAreNotBrokenMidSentence() throws {
        for command in ["run", "validate", "convert", "plugins", "schema", "query", "agenda"] {
            let help = try CalpipeProcess.run([command, "--help"], in: dir, environment: ["COLUMNS": "2000"])
            XCTAssertEqual(help.code, 0)
            let text = help.stdout.components(separatedBy: "\nUSAGE:")[0]
            for line in text.split(separator: "\n") where !line.hasPrefix(" ") {
                XCTAssertTrue(line.hasSuffix(".") || line.hasSuffix(":") || line.hasSuffix(")"), "\(command) --help: \"\(line)\"")
            }
        }
    }
}
