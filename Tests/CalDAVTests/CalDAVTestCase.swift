import CalSQLite
import Foundation
import XCTest

/// What every CalDAV test has: a temporary folder, a real Radicale in it, and the calpipe binary to run
/// pipelines against it.
class CalDAVTestCase: XCTestCase {
    var folder: URL!
    var server: Radicale!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-caldav-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try Radicale(folder: folder.appendingPathComponent("radicale"))
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    struct Result {
        var code: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    /// The built `calpipe` next to the test bundle.
    static var binary: URL {
        let bundle = Bundle(for: CalDAVTestCase.self).bundleURL
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: path.path) { return path }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    /// Writes `pipeline` (a JSON object) to NAME.json in the folder and runs `calpipe run` on it, with the
    /// password in $CALDAV_PASSWORD and the run's time fixed.
    @discardableResult
    func run(_ name: String, _ pipeline: [String: Any], arguments: [String] = [], password: String? = nil) throws -> Result {
        let file = folder.appendingPathComponent(name + ".json")
        try JSONSerialization.data(withJSONObject: pipeline, options: [.prettyPrinted, .sortedKeys]).write(to: file)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["run", file.path, "--summary-json", folder.appendingPathComponent(name + ".summary.json").path] + arguments
        process.currentDirectoryURL = folder
        process.environment = [
            "TZ": "UTC", "HOME": folder.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "CALPIPE_STATE": folder.appendingPathComponent("state").path, "CALPIPE_CACHE": folder.appendingPathComponent("cache.sqlite").path,
            "CALDAV_PASSWORD": password ?? server.password, "SOURCE_DATE_EPOCH": "1796040000",
        ]
        let out = folder.appendingPathComponent(name + ".stdout")
        XCTAssertTrue(FileManager.default.createFile(atPath: out.path, contents: nil))
        let outHandle = try FileHandle(forWritingTo: out)
        let err = Pipe()
        process.standardOutput = outHandle
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try outHandle.close()
        return Result(code: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self), seconds: Date().timeIntervalSince(started))
    }

    /// A `caldav` source reading this server as the test user.
    func source(_ extra: [String: Any] = [:], url: String? = nil) -> [String: Any] {
        var source: [String: Any] = ["type": "caldav", "name": "dav", "url": url ?? server.base + "/", "username": server.user, "password": "${CALDAV_PASSWORD}"]
        for (k, v) in extra { source[k] = v }
        return source
    }

    /// A JSON document the run wrote.
    func json(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(path)))
    }

    /// The entries of a days document: (day, title, calendar, colour, start).
    func entries(_ path: String) throws -> [[String: String]] {
        let document = try XCTUnwrap(try json(path) as? [String: Any])
        let days = try XCTUnwrap(document["days"] as? [[String: Any]])
        var out: [[String: String]] = []
        for day in days {
            for entry in day["entries"] as? [[String: Any]] ?? [] {
                var row: [String: String] = ["day": day["date"] as? String ?? ""]
                for key in ["title", "calendar", "color", "start"] { if let value = entry[key] as? String { row[key] = value } }
                out.append(row)
            }
        }
        return out
    }

    func database(_ path: String) throws -> Database {
        try Database(path: folder.appendingPathComponent(path).path)
    }

    /// The summary's outcomes of one sink ("caldav http://..."): created, updated, deleted, unchanged, conflict, failed.
    func outcomes(_ name: String, sink: String) throws -> [String: Int] {
        let summary = try XCTUnwrap(try json(name + ".summary.json") as? [String: Any])
        let all = try XCTUnwrap(summary["outcomes"] as? [String: Any], "no outcomes in the summary")
        let found = try XCTUnwrap(all[sink] as? [String: Any], "no outcomes of \(sink) in \(all.keys.sorted())")
        return found.compactMapValues { ($0 as? NSNumber)?.intValue }.filter { $0.value != 0 }
    }
}
