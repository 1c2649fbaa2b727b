import Foundation
import XCTest
@testable import Pipeline

/// Runs the real `calpipe` binary, as users and scripts do, and checks exit codes, messages and outputs.
final class CLITests: XCTestCase {
    struct Result {
        var code: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `calpipe`, next to the test bundle in the products folder.
    static var binary: URL {
        let bundle = Bundle(for: CLITests.self).bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    func calpipe(_ arguments: [String], in directory: URL? = nil, stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(code: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    private func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func testDemoPipelineRunsOfflineAndSplitsTheConferenceAcrossDST() throws {
        let dir = try TestSupport.temporaryDirectory()
        let root = TestSupport.repositoryRoot
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("pipelines"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent("data"), to: dir.appendingPathComponent("data"))
        try FileManager.default.copyItem(at: root.appendingPathComponent("pipelines/demo.json"), to: dir.appendingPathComponent("pipelines/demo.json"))
        let result = try calpipe(["run", "pipelines/demo.json"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("calpipe: demo: 50 events read"), result.stderr)
        let doc = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("out/agenda-days.json"), encoding: .utf8))
        let days = doc.value(atDottedPath: "days")?.arrayValue ?? []
        XCTAssertEqual(days.count, 42)
        let oct25 = days.first { $0.value(atDottedPath: "date") == .string("2026-10-25") }
        let conference = oct25?.value(atDottedPath: "entries")?.arrayValue?.first { $0.value(atDottedPath: "title") == .string("CalDev Conference") }
        XCTAssertEqual(conference?.value(atDottedPath: "part"), .number(3))
        XCTAssertEqual(conference?.value(atDottedPath: "parts"), .number(4))
        XCTAssertEqual(conference?.value(atDottedPath: "all_day"), .bool(true))
        XCTAssertEqual(conference?.value(atDottedPath: "duration_minutes"), .number(1500))
    }

    func testValidateReportsEveryProblemAndExits2() throws {
        let dir = try TestSupport.temporaryDirectory()
        try write("""
        {
          "name": "team",
          "sources": [ { "type": "jsn", "path": "a.json" } ],
          "stages": [ { "type": "split", "colour": "red" } ],
          "sinks": [ { "type": "json", "path": "o.json", "pretty": "no" } ]
        }
        """, to: dir.appendingPathComponent("pipelines/team.json"))
        let result = try calpipe(["validate", "pipelines/team.json"], in: dir)
        XCTAssertEqual(result.code, 2)
        let known = PipelineLoaderTests.registry.typeNames(.source).joined(separator: ", ")
        XCTAssertEqual(result.stderr, """
        pipelines/team.json: sources[0].type: unknown source type "jsn" (known: \(known)); did you mean "json"?
        pipelines/team.json: stages[0].colour: unknown option (expected one of: max_day_entries)
        pipelines/team.json: sinks[0].pretty: expected a boolean (true or false), got a string "no"

        """)
        XCTAssertEqual(result.stdout, "")
    }

    func testRejectedRecordsExit3AndTheRestIsWritten() throws {
        let dir = try TestSupport.temporaryDirectory()
        try write(#"[{"uid": "a", "start": "2026-11-23"}, {"uid": "b", "start": "soon"}]"#, to: dir.appendingPathComponent("feed.json"))
        try write(#"{"timezone": "UTC", "sources": [{"type": "json", "path": "feed.json"}], "sinks": [{"type": "json", "path": "out.json", "shape": "events", "ndjson": true}]}"#,
                  to: dir.appendingPathComponent("p.json"))
        let result = try calpipe(["run", "p.json", "--quiet"], in: dir)
        XCTAssertEqual(result.code, 3)
        XCTAssertEqual(result.stderr, "calpipe: rejected: feed.json: [1].start: invalid date \"soon\" (expected ISO-8601 such as 2026-11-23, 2026-11-23T09:00 or 2026-11-23T09:00:00+01:00)\n")
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("out.json"), encoding: .utf8),
                       #"{"uid":"a","start":"2026-11-23","all_day":true,"starts_at":"2026-11-23","ends_at":"2026-11-24"}"# + "\n")

        let strict = try calpipe(["run", "p.json", "--quiet", "--strict"], in: dir)
        XCTAssertEqual(strict.code, 1)
        XCTAssertTrue(strict.stderr.hasSuffix("calpipe: error: 1 record was rejected and --strict is set: nothing was written\n"), strict.stderr)
        try FileManager.default.removeItem(at: dir.appendingPathComponent("out.json"))
        XCTAssertEqual(try calpipe(["run", "p.json", "--quiet", "--strict"], in: dir).code, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }

    /// Issue 30, item 2: an END that does not match its BEGIN, a file without END:VCALENDAR and bytes that are not
    /// UTF-8 are repaired by default (exit 0, said on stderr) and fail a `--strict` run (exit 1, nothing written).
    func testStrictFailsOnEveryRepairTheIssueNames() throws {
        let dir = try TestSupport.temporaryDirectory()
        let head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20260105T090000Z\r\n"
        let files: [(String, [UInt8], String)] = [
            ("end-name.ics", Array((head + "END:VEVENTS\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").utf8),
             "calpipe: rejected: end-name.ics:6: END:VEVENTS does not match BEGIN:VEVENT at line 3"),
            ("no-end.ics", Array((head + "END:VEVENT\r\n").utf8),
             "calpipe: rejected: no-end.ics:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR"),
            ("bytes.ics", Array((head + "SUMMARY:Caf").utf8) + [0xE9] + Array("\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8),
             "calpipe: rejected: bytes.ics:6: text is not valid UTF-8"),
        ]
        for (name, bytes, rejection) in files {
            try Data(bytes).write(to: dir.appendingPathComponent(name))
            let lenient = try calpipe(["convert", name, "-o", "out.json"], in: dir)
            XCTAssertEqual(lenient.code, 0, lenient.stderr)
            XCTAssertTrue(lenient.stderr.contains("calpipe: warning: repaired: \(name):"), lenient.stderr)
            try FileManager.default.removeItem(at: dir.appendingPathComponent("out.json"))
            let strict = try calpipe(["convert", "--strict", name, "-o", "out.json"], in: dir)
            XCTAssertEqual(strict.code, 1, strict.stderr)
            XCTAssertTrue(strict.stderr.contains(rejection + "\n"), strict.stderr)
            XCTAssertFalse(strict.stderr.contains("repaired"), strict.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path), name)
        }
    }

    func testSyntaxErrorInAFeedFailsWithLineAndColumn() throws {
        let dir = try TestSupport.temporaryDirectory()
        try write("[\n  {\"uid\": \"a\",, \"start\": \"2026-11-23\"}\n]", to: dir.appendingPathComponent("feed.json"))
        try write(#"{"sources": [{"type": "json", "path": "feed.json"}], "sinks": [{"type": "json", "path": "out.json", "shape": "events"}]}"#,
                  to: dir.appendingPathComponent("p.json"))
        let result = try calpipe(["run", "p.json", "-q"], in: dir)
        XCTAssertEqual(result.code, 1)
        XCTAssertEqual(result.stderr, "calpipe: error: feed.json: line 2, column 15: expected a string key, found \",\"\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
    }

    func testConvertFromStdinNeedsFormatAndThenWorks() throws {
        let missing = try calpipe(["convert", "-", "-o", "-", "--output-format", "json"])
        XCTAssertEqual(missing.code, 2)
        XCTAssertTrue(missing.stderr.hasPrefix("Error: reading standard input needs --format (a source type such as ics or json)"), missing.stderr)
        let converted = try calpipe(["convert", "-", "--format", "json", "-o", "-", "--output-format", "json", "--shape", "days",
                                     "--from", "2026-11-23", "--to", "2026-11-24", "--tz", "Asia/Tokyo", "-q"],
                                    stdin: #"[{"uid": "x", "title": "Call", "start": "2026-11-23T00:30:00Z", "duration": "PT30M"}]"#)
        XCTAssertEqual(converted.code, 0, converted.stderr)
        let doc = try JSONParser.parse(converted.stdout)
        XCTAssertEqual(doc.value(atDottedPath: "days.0.entries.0.start"), .string("09:30"))
        XCTAssertEqual(doc.value(atDottedPath: "days.0.entries.0.starts_at"), .string("2026-11-23T09:30:00+09:00"))
    }

    func testConvertWithAWindowWritesOneVEVENTPerOccurrence() throws {
        let ics = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT", "UID:daily@example.org", "DTSTAMP:20261101T000000Z",
            "DTSTART;TZID=Europe/Berlin:20261123T090000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=5", "SUMMARY:Daily", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let result = try calpipe(["convert", "-", "--format", "ics", "-o", "-", "--output-format", "ics", "--from", "2026-11-24", "--to", "2026-11-26", "-q"], stdin: ics)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stdout.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("RECURRENCE-ID") }, [
            "RECURRENCE-ID;TZID=Europe/Berlin:20261124T090000", "RECURRENCE-ID;TZID=Europe/Berlin:20261125T090000",
        ])
        XCTAssertFalse(result.stdout.contains("RRULE"))
    }

    func testConvertTellsXCalFromCalDAVAndJCalFromJSONByContentNotExtension() throws {
        let fixtures = TestSupport.repositoryRoot.appendingPathComponent("Tests/Fixtures")
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Both are .xml; one is xCal (RFC 6321), the other a CalDAV REPORT answer.
        // (The CalDAV fixture holds one VEVENT without DTSTART on purpose: exit 3, the rest is written.)
        for (name, uid, code) in [("xml/rfc6321-example1.xml", "4088E990AD89CB3DBB484909", Int32(0)), ("xml/caldav-report.xml", "standup-1@example.com", 3)] {
            let result = try calpipe(["convert", fixtures.appendingPathComponent(name).path, "-o", "-", "--output-format", "json", "-q"])
            XCTAssertEqual(result.code, code, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("\"uid\": \"\(uid)\""), "\(name): \(result.stdout.prefix(400))")
        }
        // jCal saved as .json, and an iCalendar feed without an extension.
        let jcal = dir.appendingPathComponent("feed.json")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("jcal/rfc7265-example1.json"), to: jcal)
        let fromJCal = try calpipe(["convert", jcal.path, "-o", "-", "--output-format", "ics", "-q"])
        XCTAssertEqual(fromJCal.code, 0, fromJCal.stderr)
        XCTAssertTrue(fromJCal.stdout.contains("BEGIN:VEVENT"), fromJCal.stdout)
        let feed = dir.appendingPathComponent("feed")
        try write(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN", "BEGIN:VEVENT", "UID:u1", "DTSTAMP:20261101T000000Z",
                   "DTSTART:20261123T090000Z", "SUMMARY:Plain", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n"), to: feed)
        let fromFeed = try calpipe(["convert", feed.path, "-o", "-", "--output-format", "json", "-q"])
        XCTAssertEqual(fromFeed.code, 0, fromFeed.stderr)
        XCTAssertTrue(fromFeed.stdout.contains("\"title\": \"Plain\""), fromFeed.stdout)
        // Not recognised and no known extension: the message names what it knows.
        let unknown = dir.appendingPathComponent("notes.txt")
        try write("hello", to: unknown)
        let failed = try calpipe(["convert", unknown.path, "-o", "-", "--output-format", "json"])
        XCTAssertEqual(failed.code, 2)
        XCTAssertTrue(failed.stderr.contains("cannot tell the format of \"\(unknown.path)\" from its extension"), failed.stderr)
    }

    func testPluginsListsEveryTypeAsJSON() throws {
        let result = try calpipe(["plugins", "--json"])
        XCTAssertEqual(result.code, 0)
        let doc = try JSONParser.parse(result.stdout)
        XCTAssertEqual(doc.value(atDottedPath: "sinks")?.arrayValue?.contains { $0.value(atDottedPath: "type") == .string("json") }, true)
        XCTAssertEqual(doc.value(atDottedPath: "stages")?.arrayValue?.contains { $0.value(atDottedPath: "type") == .string("split") }, true)
    }

    func testHelpHasAnExampleOnEveryCommand() throws {
        for command in ["run", "validate", "convert", "plugins"] {
            let result = try calpipe([command, "--help"])
            XCTAssertEqual(result.code, 0)
            XCTAssertTrue(result.stdout.contains("Example:"), command)
        }
    }
}
