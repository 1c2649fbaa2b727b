import Foundation
import XCTest
@testable import Pipeline

/// What operators of scheduled runs rely on: usage errors with did-you-mean, `--set`, the summary's wording,
/// JSON logs and `--summary-json`.
extension CLITests {
    private func feedPipeline(events: String, extra: String = "") throws -> URL {
        let dir = try TestSupport.temporaryDirectory()
        try events.write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        try #"{"name": "ops", "timezone": "UTC", "window": {"from": "2026-11-23", "to": "2026-11-30"}, "sources": [{"type": "json", "path": "feed.json", "name": "team"}], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "json", "path": "out/days.json"}]\#(extra)}"#
            .write(to: dir.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
        return dir
    }

    func testBareCalpipePrintsHelpAndExits2() throws {
        let result = try calpipe([])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("USAGE: calpipe <subcommand>"), result.stderr)
    }

    func testUnknownSubcommandAndOptionSuggestTheClosest() throws {
        let command = try calpipe(["rnu", "p.json"])
        XCTAssertEqual(command.code, 2)
        XCTAssertEqual(command.stderr, #"calpipe: unknown command "rnu" (expected one of: run, validate, convert, plugins, schema, query, agenda, state, serve); did you mean "run"?"# + "\n")
        let option = try calpipe(["run", "p.json", "--dryrun"])
        XCTAssertEqual(option.code, 2)
        XCTAssertTrue(option.stderr.hasPrefix("Error: Unknown option '--dryrun'. Did you mean '--dry-run'?"), option.stderr)
    }

    func testUnknownTimeZoneSuggestsByNameAndByCity() throws {
        let dir = try feedPipeline(events: "[]")
        let typo = try calpipe(["validate", "p.json", "--set", "timezone=Europe/Berlni"], in: dir)
        XCTAssertEqual(typo.code, 2)
        XCTAssertEqual(typo.stderr, #"p.json: timezone: unknown time zone "Europe/Berlni" (expected an IANA name such as "Europe/Berlin"); did you mean "Europe/Berlin"?"# + "\n")
        let city = try calpipe(["validate", "p.json", "--set", "timezone=new york"], in: dir)
        XCTAssertTrue(city.stderr.hasSuffix(#"did you mean "America/New_York"?"# + "\n"), city.stderr)
    }

    func testSetOverridesKeysBeforeThePipelineIsRead() throws {
        let dir = try feedPipeline(events: #"[{"uid": "a", "title": "Review", "start": "2026-11-24T10:00:00Z", "duration": "PT1H"}]"#)
        let moved = try calpipe(["run", "p.json", "-q", "--set", "window.from=2026-11-24", "--set", "window.to=2026-11-26",
                                 "--set", "sinks[0].path=out/moved.json", "--set", "sinks[0].pretty=false"], in: dir)
        XCTAssertEqual(moved.code, 0, moved.stderr)
        let doc = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("out/moved.json"), encoding: .utf8))
        XCTAssertEqual(doc.value(atDottedPath: "days")?.arrayValue?.count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/days.json").path))

        let missing = try calpipe(["validate", "p.json", "--set", "sinks[3].path=x"], in: dir)
        XCTAssertEqual(missing.code, 2)
        XCTAssertEqual(missing.stderr, "--set sinks[3].path=x: sinks[3] does not exist (sinks has 1 item)\n")
        let malformed = try calpipe(["validate", "p.json", "--set", "window.from"], in: dir)
        XCTAssertEqual(malformed.stderr, "--set window.from: expected KEY=VALUE, such as window.from=today-1d\n")
        let wrongValue = try calpipe(["validate", "p.json", "--set", "sinks[0].shape=day"], in: dir)
        XCTAssertEqual(wrongValue.stderr, #"p.json: sinks[0].shape: unknown value "day" (expected one of: days, events, occurrences); did you mean "days"?"# + "\n")
    }

    func testSummaryIsOneCountLineWithSingularsAndPlurals() throws {
        let dir = try feedPipeline(events: #"[{"uid": "a", "title": "Review", "start": "2026-11-24T10:00:00Z", "duration": "PT1H"}]"#)
        let result = try calpipe(["run", "p.json"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("calpipe: ops: 1 event read, 1 occurrence, 1 day entry, 0 rejected, 0 repaired in "), lines[0])
        XCTAssertEqual(lines[1], "calpipe:   json out/days.json: 1 row written")
    }

    /// The sqlite sink's record outcomes: one summary line per sink, the counts that are not zero, and an
    /// `outcomes` object per sink in `--summary-json`.
    func testSummarySaysWhatBecameOfEachSinksRecords() throws {
        let dir = try TestSupport.temporaryDirectory()
        func feed(_ events: [(uid: String, title: String)]) throws {
            let items = events.map { #"{"uid": "\#($0.uid)", "title": "\#($0.title)", "start": "2026-11-24T10:00:00Z", "duration": "PT1H"}"# }
            try ("[" + items.joined(separator: ", ") + "]").write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        }
        try #"{"name": "ops", "timezone": "UTC", "window": {"from": "2026-11-23", "to": "2026-11-30"}, "sources": [{"type": "json", "path": "feed.json", "name": "team"}], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "sqlite", "path": "out/a.db"}, {"type": "json", "path": "out/days.json"}]}"#
            .write(to: dir.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
        try feed([("a", "Review"), ("b", "Lunch")])
        let first = try calpipe(["run", "p.json"], in: dir)
        XCTAssertEqual(first.code, 0, first.stderr)
        let firstLines = first.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(firstLines.dropFirst().prefix(3)), ["calpipe:   sqlite out/a.db: 2 rows written", "calpipe:   json out/days.json: 2 rows written",
                                                                 "calpipe:   sqlite out/a.db: 2 created"], first.stderr)

        try feed([("a", "Review (moved)"), ("c", "Standup"), ("d", "Retro")])
        let second = try calpipe(["run", "p.json", "--summary-json", "out/summary.json"], in: dir)
        XCTAssertEqual(second.code, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("\ncalpipe:   sqlite out/a.db: 2 created, 1 updated, 1 deleted\n"), second.stderr)
        let summary = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("out/summary.json"), encoding: .utf8))
        XCTAssertEqual(summary.value(atDottedPath: "outcomes")?.objectValue?.keys, ["sqlite out/a.db"])
        XCTAssertEqual(summary.value(atDottedPath: "outcomes")?.objectValue?["sqlite out/a.db"],
                       .object(JSONObject([("created", .number(2)), ("updated", .number(1)), ("deleted", .number(1)), ("unchanged", .number(0)),
                                           ("conflict", .number(0)), ("failed", .number(0))])))
        XCTAssertEqual(summary.value(atDottedPath: "failed_records"), .array([]))
    }

    func testJSONLogsAndSummaryFile() throws {
        let dir = try feedPipeline(events: #"[{"uid": "a", "title": "Review", "start": "2026-11-24T10:00:00Z", "duration": "PT1H"}, {"uid": "b", "start": "soon"}]"#)
        let result = try calpipe(["run", "p.json", "--log-format", "json", "--summary-json", "out/summary.json"], in: dir)
        XCTAssertEqual(result.code, 3)
        let records = try result.stderr.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        XCTAssertFalse(records.isEmpty)
        for record in records {
            XCTAssertNotNil(record.value(atDottedPath: "time")?.stringValue)
            XCTAssertNotNil(record.value(atDottedPath: "level")?.stringValue)
            XCTAssertNotNil(record.value(atDottedPath: "message")?.stringValue)
        }
        let rejection = records.first { $0.value(atDottedPath: "level") == .string("error") }
        XCTAssertEqual(rejection?.value(atDottedPath: "file"), .string("feed.json"))
        XCTAssertEqual(rejection?.value(atDottedPath: "message")?.stringValue?.hasPrefix(#"rejected: feed.json: [1].start: invalid date "soon""#), true)

        let summary = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("out/summary.json"), encoding: .utf8))
        XCTAssertEqual(summary.value(atDottedPath: "exit_code"), .number(3))
        XCTAssertEqual(summary.value(atDottedPath: "exit_reason"), .string("rejected records"))
        XCTAssertEqual(summary.value(atDottedPath: "events_read"), .number(1))
        XCTAssertEqual(summary.value(atDottedPath: "rejected"), .number(1))
        XCTAssertEqual(summary.value(atDottedPath: "timings")?.arrayValue?.compactMap { $0.value(atDottedPath: "step")?.stringValue },
                       ["source team", "stage expand", "stage split", "sink json out/days.json"])

        let quietErrorsOnly = try calpipe(["run", "p.json", "--log-level", "error"], in: dir)
        XCTAssertEqual(quietErrorsOnly.stderr.split(separator: "\n").count, 1, quietErrorsOnly.stderr)
        XCTAssertTrue(quietErrorsOnly.stderr.hasPrefix("calpipe: rejected: feed.json: [1].start"), quietErrorsOnly.stderr)
    }

    /// The committed completions are what the binary prints (scripts/gen-cli-docs regenerates them), and the
    /// committed man page names every command and every option of `run`.
    func testCompletionsAndManPageAreCurrent() throws {
        let root = TestSupport.repositoryRoot
        for shell in ["bash", "zsh", "fish"] {
            let generated = try calpipe(["--generate-completion-script", shell])
            XCTAssertEqual(generated.code, 0)
            let committed = try String(contentsOf: root.appendingPathComponent("docs/completions/calpipe.\(shell)"), encoding: .utf8)
            XCTAssertEqual(committed, generated.stdout, "docs/completions/calpipe.\(shell) is stale: run scripts/gen-cli-docs")
        }
        let manual = try String(contentsOf: root.appendingPathComponent("docs/man/calpipe.1"), encoding: .utf8)
        let help = try calpipe(["--help"]).stdout
        let commands = help.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
            .compactMap { line -> String? in
                let word = line.split(separator: " ").first.map(String.init)
                return line.hasPrefix("  ") && !line.hasPrefix("   ") ? word : nil
            }
            .filter { $0 != "See" }
        XCTAssertGreaterThanOrEqual(commands.count, 6, help)
        for command in commands { XCTAssertTrue(manual.contains(".It Em \(command)\n"), "man page lacks \(command): run scripts/gen-cli-docs") }
        let runHelp = try calpipe(["run", "--help"]).stdout
        let options = runHelp.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," }).filter { $0.hasPrefix("--") && $0 != "--help" }
        XCTAssertGreaterThan(options.count, 5, runHelp)
        for option in options {
            XCTAssertTrue(manual.contains(" -" + option.dropFirst(2)), "man page lacks \(option): run scripts/gen-cli-docs")
        }
    }

    /// Every `calpipe` command in a ```sh block of docs/scheduling.md runs, in a copy of the repository's
    /// pipelines and data, and exits 0.
    func testSchedulingExamplesRun() throws {
        let root = TestSupport.repositoryRoot
        let text = try String(contentsOf: root.appendingPathComponent("docs/scheduling.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let commands = blocks.flatMap { $0.split(separator: "\n") }.map(String.init).filter { $0.hasPrefix("calpipe ") }
        XCTAssertGreaterThanOrEqual(commands.count, 3)
        let dir = try TestSupport.temporaryDirectory()
        for folder in ["pipelines", "data"] {
            try FileManager.default.copyItem(at: root.appendingPathComponent(folder), to: dir.appendingPathComponent(folder))
        }
        for command in commands {
            let arguments = command.split(separator: " ").dropFirst().map(String.init)
            let result = try calpipe(arguments, in: dir)
            XCTAssertEqual(result.code, 0, "\(command): \(result.stderr)")
        }
        let summary = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("out/last-run.json"), encoding: .utf8))
        XCTAssertEqual(summary.value(atDottedPath: "exit_reason"), .string("done"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/agenda-today.json").path))
    }

    /// `convert -o agenda.sqlite` makes a database of agenda days (expanded and split; without a window, the
    /// year around today) that `query` reads.
    func testConvertToADatabase() throws {
        let dir = try TestSupport.temporaryDirectory()
        let events = #"[{"uid": "w", "title": "Weekly", "start": "2026-11-02T09:00:00Z", "duration": "PT1H", "rrule": "FREQ=WEEKLY;COUNT=3"}]"#
        try events.write(to: dir.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        let windowed = try calpipe(["convert", "feed.json", "-o", "agenda.sqlite", "--from", "2026-11-01", "--to", "2026-12-01", "-q"], in: dir)
        XCTAssertEqual(windowed.code, 0, windowed.stderr)
        let query = try calpipe(["query", "agenda.sqlite", "--json"], in: dir)
        XCTAssertEqual(query.code, 0, query.stderr)
        for day in ["2026-11-02", "2026-11-09", "2026-11-16"] { XCTAssertTrue(query.stdout.contains(day), query.stdout) }

        let undated = try calpipe(["convert", "feed.json", "-o", "all.sqlite", "-q"], in: dir, environment: ["SOURCE_DATE_EPOCH": "1795348800"])
        XCTAssertEqual(undated.code, 0, undated.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("all.sqlite").path))
    }

    /// An entry's `calendar` is the feed's X-WR-CALNAME (or NAME), per VCALENDAR, else the source's name.
    func testCalendarNameComesFromTheFeed() throws {
        let dir = try TestSupport.temporaryDirectory()
        let feed = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", "X-WR-CALNAME:Public holidays\\, Berlin",
            "BEGIN:VEVENT", "UID:h1", "DTSTART;VALUE=DATE:20261125", "SUMMARY:Holiday", "END:VEVENT",
            "END:VCALENDAR",
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
            "BEGIN:VEVENT", "UID:m1", "DTSTART:20261125T090000Z", "DURATION:PT1H", "SUMMARY:Meeting", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        try feed.write(to: dir.appendingPathComponent("feed.ics"), atomically: true, encoding: .utf8)
        try #"{"timezone": "UTC", "window": {"from": "2026-11-25", "to": "2026-11-26"}, "sources": [{"type": "ics", "path": "feed.ics", "name": "team"}], "stages": [{"type": "expand"}, {"type": "split"}], "sinks": [{"type": "json", "path": "days.json"}]}"#
            .write(to: dir.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
        for workers in ["0", "2"] {
            let result = try calpipe(["run", "p.json", "-q", "--set", "sources[0].workers=" + workers], in: dir)
            XCTAssertEqual(result.code, 0, result.stderr)
            let doc = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("days.json"), encoding: .utf8))
            let entries = doc.value(atDottedPath: "days")?.arrayValue?.first?.value(atDottedPath: "entries")?.arrayValue ?? []
            XCTAssertEqual(entries.map { $0.value(atDottedPath: "title")?.stringValue ?? "" }, ["Holiday", "Meeting"])
            XCTAssertEqual(entries.map { $0.value(atDottedPath: "calendar")?.stringValue ?? "" }, ["Public holidays, Berlin", "team"], "workers \(workers)")
            XCTAssertEqual(entries.map { $0.value(atDottedPath: "source")?.stringValue ?? "" }, ["team", "team"])
        }
    }

    /// A RECURRENCE-ID written as a DATE for a series of DATE-TIMEs replaces that day's instance, also when the
    /// override comes before its series in the file (the reader cannot repair it then; the expansion does).
    func testDateRecurrenceIDReplacesThatDaysInstanceWhereverItIs() throws {
        let dir = try TestSupport.temporaryDirectory()
        let feed = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
            "BEGIN:VEVENT", "UID:s1", "RECURRENCE-ID;VALUE=DATE:20261125", "DTSTART:20261125T110000Z", "DURATION:PT1H",
            "SUMMARY:Moved", "END:VEVENT",
            "BEGIN:VEVENT", "UID:s1", "DTSTART:20261124T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3",
            "SUMMARY:Daily", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        try feed.write(to: dir.appendingPathComponent("feed.ics"), atomically: true, encoding: .utf8)
        let result = try calpipe(["convert", "feed.ics", "-o", "occ.json", "--from", "2026-11-24", "--to", "2026-11-30", "--tz", "UTC", "-q"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        let doc = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("occ.json"), encoding: .utf8))
        let items = doc.value(atDottedPath: "occurrences")?.arrayValue ?? doc.arrayValue ?? []
        let seen = items.map { ($0.value(atDottedPath: "title")?.stringValue ?? "") + " " + ($0.value(atDottedPath: "starts_at")?.stringValue ?? "") }
        XCTAssertEqual(seen, ["Daily 2026-11-24T09:00:00+00:00", "Moved 2026-11-25T11:00:00+00:00", "Daily 2026-11-26T09:00:00+00:00"], "\(doc)")
    }
}
