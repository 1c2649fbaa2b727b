import Foundation
import XCTest

/// `exec` plugins (docs/exec-plugins.md): real programs, in Python and shell, run by the built `calpipe` as a source,
/// a stage and a sink. Each test writes its pipeline and programs into a folder of its own.
final class ExecPluginTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func url(_ path: String) -> URL { dir.appendingPathComponent(path) }

    private func write(_ text: String, to path: String, executable: Bool = false) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url(path), atomically: true, encoding: .utf8)
        if executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url(path).path) }
    }

    private func calpipe(_ arguments: [String], environment: [String: String] = [:]) throws -> CalpipeProcess.Result {
        try CalpipeProcess.run(arguments, in: dir, environment: [
            "CALPIPE_STATE": url("state/runs").path, "CALPIPE_LOCKS": url("state/locks").path,
            "SOURCE_DATE_EPOCH": "1795000000", "NO_COLOR": "1",
        ].merging(environment) { $1 })
    }

    /// A pipeline over the bundled sample agenda (data/agenda.json) with the given stages, writing its events as JSON.
    private func writePipeline(stages: String, sinks: String = "", source: String? = nil) throws {
        let agenda = TestSupport.repositoryRoot.appendingPathComponent("data/agenda.json").path
        let theSource = source ?? #"{ "type": "json", "name": "sample", "path": "\#(agenda)" }"#
        try write("""
        { "name": "exec", "timezone": "Europe/Berlin", "window": { "from": "2026-10-12", "to": "2026-11-23" },
          "sources": [ \(theSource) ],
          "stages": [ \(stages) ],
          "sinks": [ { "type": "json", "path": "out/events.json", "shape": "events" }\(sinks) ] }
        """, to: "pipeline.json")
    }

    private func titles(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: url(path))
        let events = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return events.compactMap { $0["title"] as? String }
    }

    private static let sampleTitles: [String] = {
        let data = try! Data(contentsOf: TestSupport.repositoryRoot.appendingPathComponent("data/agenda.json"))
        let object = try! JSONSerialization.jsonObject(with: data)
        let events = (object as? [[String: Any]]) ?? ((object as? [String: Any])?["events"] as? [[String: Any]]) ?? []
        return events.compactMap { $0["title"] as? String }
    }()

    /// The issue's case: a Python stage that upper-cases titles changes every title and nothing else.
    func testAPythonStageUpperCasesEveryTitle() throws {
        let script = TestSupport.repositoryRoot.appendingPathComponent("Examples/plugins/upper_titles.py").path
        try writePipeline(stages: #"{ "type": "exec", "command": ["python3", "\#(script)"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let titles = try titles("out/events.json")
        XCTAssertFalse(Self.sampleTitles.isEmpty)
        XCTAssertEqual(titles.sorted(), Self.sampleTitles.map { $0.uppercased() }.sorted())

        // Without the stage, the same pipeline keeps the titles as written: the stage made the difference.
        try writePipeline(stages: "")
        XCTAssertEqual(try calpipe(["run", "pipeline.json", "--full"]).code, 0)
        XCTAssertEqual(try self.titles("out/events.json").sorted(), Self.sampleTitles.sorted())
    }

    /// A stage that fails half-way fails the run: nothing is written, and the message names the program, how far
    /// it got, its exit status and its last error output.
    func testAFailingStageFailsTheRunAndWritesNothing() throws {
        try write("""
        import json, sys
        for n, line in enumerate(sys.stdin):
            if n == 2:
                raise ValueError("cannot handle this one")
            print(line.strip(), flush=True)
        """, to: "fails.py")
        try writePipeline(stages: #"{ "type": "exec", "command": ["python3", "fails.py"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(#"calpipe: error: exec stage: fails.py answered 2 of "#), result.stderr)
        XCTAssertTrue(result.stderr.contains(#" events and then exited with status 1 (its last error output: "ValueError: cannot handle this one")"#), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url("out/events.json").path))
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    /// `{"error": ...}` rejects one event with its file, line, UID and reason; the others go on (exit 3, as for any
    /// rejected record).
    func testAStageRejectsOneEventWithItsReason() throws {
        try write("""
        import json, sys
        for line in sys.stdin:
            event = json.loads(line)
            if event.get("title") == "\(Self.sampleTitles[0])":
                print(json.dumps({"error": "titles like this are not allowed"}), flush=True)
            else:
                print(json.dumps([event, dict(event, uid=event["uid"] + "-copy")]), flush=True)
        """, to: "rejects.py")
        try writePipeline(stages: #"{ "type": "exec", "command": ["python3", "rejects.py"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains(#"rejects.py rejected the event ""#), result.stderr)
        XCTAssertTrue(result.stderr.contains(#"": titles like this are not allowed"#), result.stderr)
        let expected = Self.sampleTitles.filter { $0 != Self.sampleTitles[0] }
        XCTAssertEqual(try titles("out/events.json").sorted(), (expected + expected).sorted())
    }

    /// The example source (Examples/plugins/rooms_source.py) makes two events and reports its bad record; the
    /// program gets only the environment its options give.
    func testASourceReadsEventsAndRejectsWhatItReports() throws {
        let plugins = TestSupport.repositoryRoot.appendingPathComponent("Examples/plugins").path
        let bookings = try String(contentsOf: URL(fileURLWithPath: plugins + "/bookings.json"), encoding: .utf8)
        try write(bookings.replacingOccurrences(of: "\n]", with: #",\#n  {"id": 3, "room": "Spree", "purpose": "Broken record"}\#n]"#), to: "bookings.json")
        try writePipeline(stages: "", source: #"{ "type": "exec", "name": "rooms", "command": ["python3", "\#(plugins)/rooms_source.py", "bookings.json"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: rejected: rooms_source.py:3: the program rejected the record: booking 3 has no start"), result.stderr)
        XCTAssertEqual(try titles("out/events.json").sorted(), ["Interviews", "Planning"])
    }

    func testTheProgramGetsOnlyTheEnvironmentItsOptionsGive() throws {
        // Shell, not Python: pyenv's python3 is a script that adds variables of its own.
        try write("""
        #!/bin/sh
        names=$(env | cut -d= -f1 | grep -v -x -e PWD -e SHLVL -e _ -e OLDPWD | sort | paste -s -d, -)
        printf '{"uid": "env", "title": "%s", "description": "%s", "location": "%s", "start": "2026-10-13"}\\n' "$names" "$ROOMS_TOKEN" "$(pwd)"
        """, to: "tools/env.sh", executable: true)
        try writePipeline(stages: "", source: #"{ "type": "exec", "command": ["tools/env.sh"], "env": { "ROOMS_TOKEN": "${SECRET}" } }"#)
        let result = try calpipe(["run", "pipeline.json"], environment: ["SECRET": "s3cret", "HOME": "/root-of-all"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let event = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(contentsOf: url("out/events.json"))) as? [[String: Any]])?.first)
        XCTAssertEqual(event["title"] as? String, "PATH,ROOMS_TOKEN")
        XCTAssertEqual(event["description"] as? String, "s3cret")
        XCTAssertEqual((event["location"] as? String).map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path },
                       dir.resolvingSymlinksInPath().path)
    }

    /// The example shell sink reports an outcome per record; the summary counts them.
    func testAShellSinkReportsEachRecordsOutcome() throws {
        let sink = TestSupport.repositoryRoot.appendingPathComponent("Examples/plugins/count_sink.sh").path
        try writePipeline(stages: "", sinks: #", { "type": "exec", "command": ["\#(sink)"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe:   exec count_sink.sh: \(Self.sampleTitles.count) created"), result.stderr)
    }

    /// A sink whose program reports a failed record fails the run (exit 1) after the local outputs are in place.
    func testASinkRecordThatFailsFailsTheRun() throws {
        try write("""
        #!/bin/sh
        while IFS= read -r line; do :; done
        echo '{"uid": "x@example.org", "error": "the server said no"}'
        """, to: "refuses.sh", executable: true)
        try writePipeline(stages: "", sinks: #", { "type": "exec", "command": ["./refuses.sh"] }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(#"exec refuses.sh: UID "x@example.org": the server said no"#), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("out/events.json").path))
    }

    /// A program that outlives its timeout is stopped, with its children, and the run fails at once.
    func testAProgramPastItsTimeoutIsStopped() throws {
        try write("#!/bin/sh\nsleep 30 &\nwait\n", to: "hangs.sh", executable: true)
        try writePipeline(stages: #"{ "type": "exec", "command": ["./hangs.sh"], "timeout": "1s" }"#)
        let started = Date()
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("calpipe: error: exec stage: hangs.sh did not finish within 1 s (the `timeout` option); it was stopped"), result.stderr)
    }

    /// Much in flight both ways (12 MB: events of 20 KB each, far more than a socket's buffer; a program that echoes each at once and writes to its error
    /// output as well): nothing waits for the other side, everything arrives.
    func testLargeEventsBothWaysDoNotDeadlock() throws {
        var records: [String] = []
        let long = String(repeating: "x", count: 20_000)
        for i in 0..<600 {
            records.append(#"{"uid": "e\#(i)", "title": "Event \#(i)", "description": "\#(long)", "start": "2026-10-13T09:00:00", "timezone": "Europe/Berlin"}"#)
        }
        try write("[\n" + records.joined(separator: ",\n") + "\n]", to: "big.json")
        try write("""
        import sys
        for n, line in enumerate(sys.stdin):
            sys.stdout.write(line)
            if n % 200 == 0:
                sys.stderr.write("at %d\\n" % n)
        sys.stdout.flush()
        """, to: "echo.py")
        try writePipeline(stages: #"{ "type": "exec", "command": ["python3", "echo.py"] }"#,
                          source: #"{ "type": "json", "name": "big", "path": "big.json" }"#)
        let result = try calpipe(["run", "pipeline.json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try titles("out/events.json").count, 600)
        XCTAssertTrue(result.stderr.contains("exec stage: echo.py: at 0"), result.stderr)
    }

    /// SIGTERM while a program works: the run stops within a second or so (exit 143), the program is stopped
    /// with it, and nothing is written.
    func testSIGTERMStopsTheRunAndTheProgram() throws {
        try write("""
        #!/bin/sh
        echo $$ > program.pid.part && mv program.pid.part program.pid
        while IFS= read -r line; do sleep 60; echo "$line"; done
        """, to: "slow.sh", executable: true)
        try writePipeline(stages: #"{ "type": "exec", "command": ["./slow.sh"] }"#)
        let run = try CalpipeProcess(["run", "pipeline.json"], in: dir, environment: [
            "CALPIPE_STATE": url("state/runs").path, "CALPIPE_LOCKS": url("state/locks").path,
        ])
        // The program writes its pid to a temporary name and renames it: the shell creates a redirect's file before
        // `echo` writes into it, and a test that read it in between found it empty.
        XCTAssertTrue(CalpipeProcess.wait { FileManager.default.fileExists(atPath: self.url("program.pid").path) })
        let pidText = try String(contentsOf: url("program.pid"), encoding: .utf8)
        let pid = try XCTUnwrap(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let signalled = Date()
        run.signal(SIGTERM)
        let result = run.finish()
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 5)
        XCTAssertEqual(result.code, 143, result.stderr)
        XCTAssertEqual(kill(pid, 0), -1, "the program still runs")
        XCTAssertFalse(FileManager.default.fileExists(atPath: url("out/events.json").path))
    }

    /// A program that is not there fails `validate` with the option's path.
    func testAMissingProgramIsAnOptionError() throws {
        try writePipeline(stages: #"{ "type": "exec", "command": ["pyhton3", "x.py"], "inherit_env": [] }"#)
        let result = try calpipe(["validate", "pipeline.json"])
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(#"stages[0].command: no executable program "pyhton3" on the program's PATH (not set; add "PATH" to inherit_env)"#), result.stderr)
    }
}
