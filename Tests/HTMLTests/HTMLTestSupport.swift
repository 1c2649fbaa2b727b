import CalpipeKit
import Exporters
import Foundation
import Pipeline
import XCTest

/// Runs the demo pipeline (or a variant) into an `html` sink and a collecting sink, and runs the page's
/// oracles: python html5lib (`check_page.py`), PNG statistics (`png_stats.py`) and headless Chromium.
enum HTMLTestSupport {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// "Now" for the demo: Wednesday 2026-10-21, 08:00 UTC (10:00 in Berlin), inside the demo's window. The
    /// loader takes today from SOURCE_DATE_EPOCH when it is set (as `renderDemo` sets it), else from `now`.
    static let now = Date(timeIntervalSince1970: 1_792_569_600)

    static var registry: PluginRegistry { .standard }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct Rendered {
        var page: URL
        var html: String
        var days: [DayEntry]
        var window: Window?
        var report: RunReport
    }

    /// The demo pipeline with its sinks replaced by one `html` sink (`sinkOptions` added to it) writing into
    /// `folder`, plus a sink that keeps the day entries; `window` replaces the demo's.
    static func renderDemo(into folder: URL, sinkOptions: [String: Any] = [:], window: (String, String)? = nil,
                           environment: [String: String] = ["SOURCE_DATE_EPOCH": "1792569600"], now: Date = now,
                           extraSources: [[String: Any]] = [], noWindow: Bool = false) throws -> Rendered {
        let demo = root.appendingPathComponent("pipelines/demo.json")
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: demo)) as! [String: Any]
        let page = folder.appendingPathComponent("agenda.html")
        var sink: [String: Any] = ["type": "html", "path": page.path, "title": "Team agenda", "locale": "en-GB"]
        // NSNull removes an option (the demo's `title`).
        for (k, v) in sinkOptions { sink[k] = v is NSNull ? nil : v }
        object["sinks"] = [sink]
        if let window { object["window"] = ["from": window.0, "to": window.1] }
        if noWindow { object["window"] = nil }
        if !extraSources.isEmpty { object["sources"] = (object["sources"] as! [Any]) + extraSources }
        let data = try JSONSerialization.data(withJSONObject: object)
        let json = try JSONParser.parse(bytes: [UInt8](data))
        var env = environment
        env["HOME"] = "/nonexistent"
        let loader = PipelineLoader(registry: registry, environment: env, now: now)
        var pipeline = try loader.load(json: json, file: "pipelines/demo.json", baseDirectory: root.appendingPathComponent("pipelines"))
        let collect = CollectDays()
        pipeline.sinks.append(collect)
        let context = RunContext(environment: pipeline.environment, quiet: true)
        try Runner().run(pipeline, context: context)
        let html = try String(contentsOf: page, encoding: .utf8)
        return Rendered(page: page, html: html, days: collect.days, window: pipeline.environment.window, report: context.report)
    }

    // MARK: tools

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = String(dir) + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// scripts/test (the README's test command, which `.ci/run` runs) installs python's html5lib and Chromium and
    /// sets CALPIPE_REQUIRE_TOOLS=1: there a missing tool fails the test instead of skipping it.
    static var toolsRequired: Bool { ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] == "1" }

    static func requireTool(_ name: String) throws -> String {
        if let path = which(name) { return path }
        if toolsRequired { XCTFail("\(name) is not installed (scripts/test installs it)"); throw XCTSkip("\(name) missing") }
        throw XCTSkip("\(name) is not installed (scripts/test installs it)")
    }

    struct ProcessResult {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        // Standard error goes to a file, so neither pipe can fill up while the other is read.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-html-stderr-\(UUID().uuidString)")
        XCTAssertTrue(FileManager.default.createFile(atPath: errURL.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errHandle.close()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// `check_page.py` on a page: html5lib's view of it.
    static func checkPage(_ page: URL) throws -> [String: Any] {
        let python = try requireTool("python3")
        let result = try run(python, [testsFolder.appendingPathComponent("check_page.py").path, page.path])
        guard result.status == 0 else {
            if result.stderr.contains("No module named 'html5lib'") {
                // scripts/test (the README's test command) puts a pinned html5lib first on PATH.
                if toolsRequired { XCTFail("python html5lib is not installed (scripts/test installs it)") }
                throw XCTSkip("python html5lib is not installed (scripts/test installs it)")
            }
            throw CheckFailed(message: "check_page.py failed: " + result.stderr)
        }
        return try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
    }

    static func pngStats(_ png: URL, counting colours: [String] = []) throws -> [String: Double] {
        let python = try requireTool("python3")
        let result = try run(python, [testsFolder.appendingPathComponent("png_stats.py").path, png.path] + colours)
        guard result.status == 0 else { throw CheckFailed(message: "png_stats.py failed: " + result.stderr) }
        return try JSONSerialization.jsonObject(with: result.stdout) as! [String: Double]
    }

    /// Headless Chromium with a profile of its own in `folder`: `--screenshot` or `--dump-dom` of a page.
    static func chromium(_ arguments: [String], profile: URL) throws -> ProcessResult {
        let chromium = try requireTool("chromium")
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = profile.path
        let timeout = which("timeout")
        let base = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                    "--disable-dev-shm-usage", "--disable-background-networking", "--disable-sync", "--mute-audio",
                    "--user-data-dir=" + profile.appendingPathComponent("profile").path]
        if let timeout { return try run(timeout, ["90", chromium] + base + arguments, environment: env) }
        return try run(chromium, base + arguments, environment: env)
    }

    struct CheckFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// Keeps the day entries that reach the end of the pipeline.
final class CollectDays: Sink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [DayEntry] = []
    var days: [DayEntry] { lock.lock(); defer { lock.unlock() }; return stored }
    var needs: BatchContent { .days }
    var label: String { "collect" }
    func open(context: RunContext) throws {}
    func write(_ batch: Batch, context: RunContext) throws { lock.lock(); stored += batch.days; lock.unlock() }
    func commit(context: RunContext) throws -> Int { days.count }
    func abort(context: RunContext) {}
}
