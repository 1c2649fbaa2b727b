import CalSQLite
import Foundation
import XCTest

/// Every file-system problem of inputs and outputs is one line naming the path as written and what is wrong,
/// with the README's exit codes; no Foundation or C library text reaches the user. Each case is made for
/// real: a file where a folder should be, a folder where the file should be, a folder without write
/// permission (as an unprivileged user), a read-only and a full file system (a tmpfs mounted in a private
/// mount namespace), a damaged database.
final class FileErrorTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        try #"[{"uid": "a", "title": "A", "start": "2026-11-02T10:00:00Z"}]"#.write(to: url("in.json"), atomically: true, encoding: .utf8)
    }

    private func url(_ path: String) -> URL { dir.appendingPathComponent(path) }

    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url(path), atomically: true, encoding: .utf8)
    }

    /// A pipeline file reading `input` with a `source` source into a `sink` sink at `output`.
    private func pipeline(_ file: String = "p.json", input: String = "in.json", source: String = "json", output: String, sink: String = "json") throws {
        let shape = sink == "json" ? ", \"shape\": \"events\"" : ""
        try write("""
            { "name": "errors", "timezone": "UTC",
              "sources": [ { "type": "\(source)", "path": "\(input)" } ],
              "sinks": [ { "type": "\(sink)", "path": "\(output)"\(shape) } ] }
            """, to: file)
    }

    private func run(_ arguments: [String], prefix: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> CalpipeProcess.Result {
        let result = try CalpipeProcess.run(arguments, in: dir, prefix: prefix)
        XCTAssertFalse(result.stderr.contains("Domain") || result.stderr.contains("NSError") || result.stderr.contains("UserInfo"),
                       "Foundation's text reached the user: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)", file: file, line: line)
        return result
    }

    /// Runs a command as an unprivileged user: as root through setpriv (root ignores permissions), else as is.
    private var unprivileged: [String] {
        get throws {
            guard geteuid() == 0 else { return [] }
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("running as root without setpriv (util-linux)") }
            // The test folder and the pipeline must be readable by that user.
            chmod(dir.path, 0o777)
            return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
    }

    /// Runs a command with a fresh tmpfs (mounted with `options`) at `folder`, in a mount namespace of its own.
    private func withTmpfs(at folder: String, options: String, _ arguments: [String]) throws -> CalpipeProcess.Result {
        try FileManager.default.createDirectory(at: url(folder), withIntermediateDirectories: true)
        var prefix = ["unshare", "--mount"]
        if geteuid() != 0 { prefix.append("--map-root-user") }
        prefix += ["sh", "-c", "mount -t tmpfs -o \(options) tmpfs \(folder) 2>/dev/null || { echo 'no tmpfs' >&2; exit 99; }; exec \"$0\" \"$@\""]
        let result = try CalpipeProcess.run(arguments, in: dir, prefix: prefix)
        if result.code == 99 || result.stderr.hasPrefix("unshare:") { throw XCTSkip("cannot mount a tmpfs in a private mount namespace here: \(result.stderr)") }
        return result
    }

    // MARK: Outputs

    func testAFileWhereTheOutputFolderShouldBe() throws {
        try write("not a folder", to: "out")
        try pipeline(output: "out/agenda.json")
        // `run` checks the files a pipeline names as `validate` does, before anything runs (exit 2).
        let result = try run(["run", "p.json"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sinks[0].path: cannot write \"out/agenda.json\": \"out\" is a file, not a folder\n")
        XCTAssertEqual(try run(["validate", "p.json"]).stderr, result.stderr)
        // Deeper, and from a pipeline in a folder of its own: the folder is named as the pipeline writes it.
        try pipeline("pipelines/p.json", input: "../in.json", output: "../out/days/agenda.json")
        let nested = try run(["run", "pipelines/p.json"])
        XCTAssertEqual(nested.code, 2)
        XCTAssertEqual(nested.stderr, "pipelines/p.json: sinks[0].path: cannot write \"../out/days/agenda.json\": \"../out\" is a file, not a folder\n")
        // convert names the path as given on its command line.
        let convert = try run(["convert", "in.json", "-o", "out/agenda.ics"])
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: out/agenda.ics: cannot write: \"out\" is a file, not a folder\n")
        XCTAssertEqual(try String(contentsOf: url("out"), encoding: .utf8), "not a folder")
    }

    func testAFolderWhereTheOutputFileShouldBe() throws {
        try FileManager.default.createDirectory(at: url("agenda.ics"), withIntermediateDirectories: true)
        try pipeline(output: "agenda.ics", sink: "ics")
        let result = try run(["run", "p.json"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sinks[0].path: cannot write \"agenda.ics\": it is a folder, not a file\n")
        // Met while writing (convert checks nothing first): the sink's own message, nothing written.
        let convert = try run(["convert", "in.json", "-o", "agenda.ics"])
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: agenda.ics: cannot write: it is a folder, not a file\n")
        XCTAssertEqual(CalpipeProcess.temporaryFiles(under: dir), [])
    }

    func testMissingOutputFoldersAreCreated() throws {
        try pipeline(output: "out/2026/11/agenda.json")
        let result = try CalpipeProcess.run(["run", "-q", "p.json"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("out/2026/11/agenda.json").path))
    }

    func testAnOutputFolderWithoutWritePermission() throws {
        try FileManager.default.createDirectory(at: url("locked"), withIntermediateDirectories: true)
        chmod(url("locked").path, 0o555)
        defer { chmod(url("locked").path, 0o755) }
        try pipeline(output: "locked/agenda.json")
        let prefix = try unprivileged
        let result = try run(["run", "p.json"], prefix: prefix)
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sinks[0].path: cannot write \"locked/agenda.json\": permission denied (the folder \"locked\" is not writable)\n")
        let convert = try run(["convert", "in.json", "-o", "locked/agenda.json"], prefix: prefix)
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: locked/agenda.json: cannot write: permission denied (the folder \"locked\" is not writable)\n")
        let deeper = try run(["convert", "in.json", "-o", "locked/sub/agenda.json"], prefix: prefix)
        XCTAssertEqual(deeper.stderr, "calpipe: error: locked/sub/agenda.json: cannot write: cannot create the folder \"locked/sub\": permission denied (the folder \"locked\" is not writable)\n")
    }

    func testAReadOnlyFileSystem() throws {
        try pipeline(output: "ro/agenda.json")
        let result = try withTmpfs(at: "ro", options: "size=64k,ro", ["run", "p.json"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sinks[0].path: cannot write \"ro/agenda.json\": the file system is read-only\n")
        let convert = try withTmpfs(at: "ro", options: "size=64k,ro", ["convert", "in.json", "-o", "ro/agenda.json"])
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: ro/agenda.json: cannot write: the file system is read-only\n")
    }

    func testAFullDisk() throws {
        // About 200 KB of JSON into a 16 KiB file system.
        let events = (0..<1000).map { "{\"uid\": \"e\($0)\", \"title\": \"Event number \($0)\", \"start\": \"2026-11-02T10:00:00Z\"}" }
        try write("[" + events.joined(separator: ",") + "]", to: "in.json")
        try pipeline(output: "small/agenda.json")
        let result = try withTmpfs(at: "small", options: "size=16k", ["run", "p.json"])
        XCTAssertEqual(result.code, 1)
        XCTAssertEqual(result.stderr, "calpipe: error: small/agenda.json: cannot write: the disk is full\n")
    }

    // MARK: Inputs

    func testAnInputThatDoesNotExist() throws {
        try pipeline(input: "feeds/missing.json", output: "out.json")
        let result = try run(["run", "p.json"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sources[0].path: cannot read \"feeds/missing.json\": no such file\n")
        try pipeline(input: "feeds/missing.ics", source: "ics", output: "out.json")
        XCTAssertEqual(try run(["run", "p.json"]).stderr, "p.json: sources[0].path: cannot read \"feeds/missing.ics\": no such file\n")
        let convert = try run(["convert", "feeds/missing.ics", "-o", "out.json"])
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: feeds/missing.ics: cannot read: no such file\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: url("out.json").path))
    }

    func testAFolderGivenAsTheInput() throws {
        try FileManager.default.createDirectory(at: url("feeds"), withIntermediateDirectories: true)
        for source in ["json", "ics", "xcal", "jcal"] {
            try pipeline(input: "feeds", source: source, output: "out.json")
            let result = try run(["run", "p.json"])
            XCTAssertEqual(result.code, 2, source)
            XCTAssertEqual(result.stderr, "p.json: sources[0].path: cannot read \"feeds\": it is a folder, not a file\n", source)
            let convert = try run(["convert", "feeds", "--format", source, "-o", "out.json"])
            XCTAssertEqual(convert.code, 1, source)
            XCTAssertEqual(convert.stderr, "calpipe: error: feeds: cannot read: it is a folder, not a file\n", source)
        }
    }

    func testAnInputWithoutReadPermission() throws {
        for (source, file) in [("json", "in.json"), ("ics", "in.ics")] {
            try write("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", to: "in.ics")
            chmod(url(file).path, 0o000)
            defer { chmod(url(file).path, 0o644) }
            try pipeline(input: file, source: source, output: "out.json")
            let result = try run(["run", "p.json"], prefix: try unprivileged)
            XCTAssertEqual(result.code, 2)
            XCTAssertEqual(result.stderr, "p.json: sources[0].path: cannot read \"\(file)\": permission denied\n")
            let convert = try run(["convert", file, "--format", source, "-o", "out.json"], prefix: try unprivileged)
            XCTAssertEqual(convert.code, 1)
            XCTAssertEqual(convert.stderr, "calpipe: error: \(file): cannot read: permission denied\n")
        }
    }

    func testAnInputBehindAFileWhereAFolderShouldBe() throws {
        try write("x", to: "feeds")
        try pipeline(input: "feeds/a.ics", source: "ics", output: "out.json")
        let result = try run(["run", "p.json"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, "p.json: sources[0].path: cannot read \"feeds/a.ics\": \"feeds\" is a file, not a folder\n")
        let convert = try run(["convert", "feeds/a.ics", "-o", "out.json"])
        XCTAssertEqual(convert.code, 1)
        XCTAssertEqual(convert.stderr, "calpipe: error: feeds/a.ics: cannot read: \"feeds\" is a file, not a folder\n")
    }

    // MARK: Pipeline files and databases

    func testAPipelineFileThatCannotBeRead() throws {
        let missing = try run(["run", "pipelines/missing.json"])
        XCTAssertEqual(missing.code, 2)
        XCTAssertEqual(missing.stderr, "pipelines/missing.json: cannot read: no such file\n")
        let validate = try run(["validate", "missing.json"])
        XCTAssertEqual(validate.code, 2)
        XCTAssertEqual(validate.stderr, "missing.json: cannot read: no such file\n")
        try FileManager.default.createDirectory(at: url("folder.json"), withIntermediateDirectories: true)
        XCTAssertEqual(try run(["run", "folder.json"]).stderr, "folder.json: cannot read: it is a folder, not a file\n")
        try pipeline(output: "out.json")
        chmod(url("p.json").path, 0o000)
        defer { chmod(url("p.json").path, 0o644) }
        let denied = try run(["run", "p.json"], prefix: try unprivileged)
        XCTAssertEqual(denied.code, 2)
        XCTAssertEqual(denied.stderr, "p.json: cannot read: permission denied\n")
    }

    /// The sqlite sink says why its database cannot be made, as the other sinks do, and makes a missing folder as they do.
    func testADatabaseThatCannotBeMade() throws {
        try FileManager.default.createDirectory(at: url("folder.sqlite"), withIntermediateDirectories: true)
        try write("x", to: "blocker")
        for (output, why) in [("folder.sqlite", "it is a folder, not a file"), ("blocker/a.sqlite", "\"blocker\" is a file, not a folder")] {
            try write("""
                { "name": "db", "timezone": "UTC", "window": { "from": "2026-11-01", "to": "2026-12-01" },
                  "sources": [ { "type": "json", "path": "in.json" } ], "stages": [ { "type": "expand" }, { "type": "split" } ],
                  "sinks": [ { "type": "sqlite", "path": "\(output)" } ] }
                """, to: "p.json")
            let result = try run(["run", "-q", "p.json"])
            XCTAssertEqual(result.code, 2, output)
            XCTAssertEqual(result.stderr, "p.json: sinks[0].path: cannot write \"\(output)\": \(why)\n")
            let convert = try run(["convert", "-q", "in.json", "-o", output])
            XCTAssertEqual(convert.code, 1, output)
            XCTAssertEqual(convert.stderr, "calpipe: error: sqlite \(output): cannot write: \(why); nothing was written\n")
        }
        try write("""
            { "name": "db", "timezone": "UTC", "window": { "from": "2026-11-01", "to": "2026-12-01" },
              "sources": [ { "type": "json", "path": "in.json" } ], "stages": [ { "type": "expand" }, { "type": "split" } ],
              "sinks": [ { "type": "sqlite", "path": "missing/deeper/a.sqlite" } ] }
            """, to: "p.json")
        let made = try CalpipeProcess.run(["run", "-q", "p.json"], in: dir)
        XCTAssertEqual(made.code, 0, made.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: url("missing/deeper/a.sqlite").path))
    }

    func testQueryOnAMissingDatabaseOrAFolder() throws {
        let missing = try run(["query", "none.sqlite"])
        XCTAssertEqual(missing.code, 1)
        XCTAssertEqual(missing.stderr, "calpipe: error: sqlite none.sqlite: no such file\n")
        try FileManager.default.createDirectory(at: url("folder.sqlite"), withIntermediateDirectories: true)
        let folder = try run(["query", "folder.sqlite"])
        XCTAssertEqual(folder.code, 1)
        XCTAssertEqual(folder.stderr, "calpipe: error: sqlite folder.sqlite: cannot read: it is a folder, not a file\n")
        try write("not a database at all, just text that is long enough to be a header and more", to: "text.sqlite")
        let text = try run(["query", "text.sqlite"])
        XCTAssertEqual(text.code, 1)
        XCTAssertEqual(text.stderr, "calpipe: error: sqlite text.sqlite: cannot read: not a SQLite database (this reads what a pipeline's sqlite sink wrote; for a calendar file: calpipe convert FILE -o agenda.sqlite)\n")
    }

    func testQueryOnADamagedDatabase() throws {
        let events = (0..<3000).map { "{\"uid\": \"e\($0)\", \"title\": \"Event \($0)\", \"start\": \"2026-11-\(String(format: "%02d", 1 + $0 % 28))T10:00:00Z\"}" }
        try write("[" + events.joined(separator: ",") + "]", to: "in.json")
        try write("""
            { "name": "db", "timezone": "UTC", "window": { "from": "2026-11-01", "to": "2026-12-01" },
              "sources": [ { "type": "json", "path": "in.json" } ], "stages": [ { "type": "split" } ],
              "sinks": [ { "type": "sqlite", "path": "agenda.sqlite" } ] }
            """, to: "db.json")
        XCTAssertEqual(try CalpipeProcess.run(["run", "-q", "db.json"], in: dir).code, 0)
        let healthy = try CalpipeProcess.run(["query", "agenda.sqlite", "--day", "2026-11-02"], in: dir)
        XCTAssertEqual(healthy.code, 0, healthy.stderr)
        XCTAssertTrue(healthy.stdout.contains("Event 1"), healthy.stdout)
        // Overwrite pages in the middle of the file (the rows), leaving the header and schema intact.
        let handle = try FileHandle(forWritingTo: url("agenda.sqlite"))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 3)
        handle.write(Data(repeating: 0xA5, count: Int(size / 3)))
        try handle.close()
        let result = try run(["query", "agenda.sqlite", "--from", "2026-11-01", "--to", "2026-12-01"])
        XCTAssertEqual(result.code, 1)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "calpipe: error: sqlite agenda.sqlite: the database file is damaged; restore it from a backup, or move it aside and run the pipeline again to rebuild it\n")
    }
}
