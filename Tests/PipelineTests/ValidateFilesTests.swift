import Foundation
import XCTest

/// `calpipe validate` checks the files a pipeline names, not only the pipeline file: inputs exist and are
/// readable (a glob matching nothing is a warning), outputs are writable, `${VARS}` without defaults are set.
final class ValidateFilesTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
        try "[]".write(to: dir.appendingPathComponent("in.json"), atomically: true, encoding: .utf8)
    }

    private func validate(sources: String, sinks: String, environment: [String: String] = [:], prefix: [String] = []) throws -> CalpipeProcess.Result {
        try """
            { "name": "v", "timezone": "UTC", "sources": [ \(sources) ], "sinks": [ \(sinks) ] }
            """.write(to: dir.appendingPathComponent("v.json"), atomically: true, encoding: .utf8)
        return try CalpipeProcess.run(["validate", "v.json"], in: dir, environment: environment, prefix: prefix)
    }

    private let fine = #"{ "type": "json", "path": "out/events.json", "shape": "events" }"#

    func testInputsMustExist() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("feeds"), withIntermediateDirectories: true)
        let result = try validate(sources: #"{ "type": "json", "path": "missing.json" }, { "type": "ics", "path": "feeds" }, { "type": "json", "path": "in.json" }"#, sinks: fine)
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, """
            v.json: sources[0].path: cannot read "missing.json": no such file
            v.json: sources[1].path: cannot read "feeds": it is a folder, not a file

            """)
        XCTAssertEqual(result.stdout, "")
    }

    func testAGlobMatchingNothingIsAWarning() throws {
        let result = try validate(sources: #"{ "type": "ics", "path": "feeds/*.ics" }"#, sinks: fine)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stderr, "v.json: sources[0].path: warning: no file matches \"feeds/*.ics\" (yet)\n")
        XCTAssertTrue(result.stdout.hasPrefix("v.json: ok: \"v\", 1 source, 0 stages, 1 sink"), result.stdout)
        // Once a file matches, no warning.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("feeds"), withIntermediateDirectories: true)
        try "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".write(to: dir.appendingPathComponent("feeds/a.ics"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try validate(sources: #"{ "type": "ics", "path": "feeds/*.ics" }"#, sinks: fine).stderr, "")
    }

    func testOutputsMustBeWritable() throws {
        try "x".write(to: dir.appendingPathComponent("out"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("agenda.ics"), withIntermediateDirectories: true)
        let result = try validate(sources: #"{ "type": "json", "path": "in.json" }"#,
                                  sinks: fine + #", { "type": "ics", "path": "agenda.ics" }, { "type": "ics", "path": "new/folders/agenda.ics" }"#)
        XCTAssertEqual(result.code, 2)
        // The missing folders of the third sink are no problem: the run creates them.
        XCTAssertEqual(result.stderr, """
            v.json: sinks[0].path: cannot write "out/events.json": "out" is a file, not a folder
            v.json: sinks[1].path: cannot write "agenda.ics": it is a folder, not a file

            """)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("new").path), "validate must not create folders")
    }

    func testAnOutputFolderWithoutWritePermission() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("locked"), withIntermediateDirectories: true)
        chmod(dir.appendingPathComponent("locked").path, 0o555)
        var prefix: [String] = []
        if geteuid() == 0 {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("running as root without setpriv (util-linux)") }
            chmod(dir.path, 0o777)
            prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
        let result = try validate(sources: #"{ "type": "json", "path": "in.json" }"#,
                                  sinks: #"{ "type": "ics", "path": "locked/agenda.ics" }, { "type": "ics", "path": "locked/sub/agenda.ics" }"#, prefix: prefix)
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stderr, """
            v.json: sinks[0].path: cannot write "locked/agenda.ics": permission denied (the folder "locked" is not writable)
            v.json: sinks[1].path: cannot write "locked/sub/agenda.ics": permission denied (the folder "locked" is not writable)

            """)
    }

    func testVariablesWithoutDefaultsMustBeSet() throws {
        let sources = #"{ "type": "json", "path": "${FEED}" }"#
        let unset = try validate(sources: sources, sinks: #"{ "type": "json", "path": "${OUT:-out/events.json}", "shape": "events" }"#)
        XCTAssertEqual(unset.code, 2)
        XCTAssertEqual(unset.stderr, "v.json: sources[0].path: environment variable FEED is not set (write ${FEED:-default} for a fallback)\n")
        let set = try validate(sources: sources, sinks: #"{ "type": "json", "path": "${OUT:-out/events.json}", "shape": "events" }"#, environment: ["FEED": "in.json"])
        XCTAssertEqual(set.code, 0, set.stderr)
        XCTAssertEqual(set.stderr, "")
        // The checks see the expanded paths.
        let missing = try validate(sources: sources, sinks: fine, environment: ["FEED": "elsewhere.json"])
        XCTAssertEqual(missing.stderr, "v.json: sources[0].path: cannot read \"elsewhere.json\": no such file\n")
    }
}
