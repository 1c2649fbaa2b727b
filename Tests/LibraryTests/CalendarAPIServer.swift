import CalpipeKit
import Foundation
import XCTest

/// The calendar service of Tests/Fixtures/api/calendar_api.py, started on 127.0.0.1 (a port of its own) for one test
/// and stopped with it. Python is test tooling only: without python3 the test skips, or fails when
/// `CALPIPE_REQUIRE_TOOLS=1` (scripts/test). The tests' hands on it go through calpipe's own HTTP client.
final class CalendarAPIServer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/api/calendar_api.py")

    let base: String
    private let process = Process()
    private let input = Pipe()
    private let control: HTTPFetcher

    init(folder: URL) throws {
        try Self.requirePython()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Its first line: "PORT <n>".
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw CalpipeError("the test calendar service did not start: \(text)")
        }
        base = "http://127.0.0.1:\(port)"
        control = HTTPFetcher(cachePath: folder.appendingPathComponent("control-cache.sqlite").path, environment: [:],
                              settings: HTTPSettings(maximumAttempts: 1, requestsPerSecond: 0))
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    static func requirePython() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
        if found { return }
        if ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] == "1" { throw CalpipeError("python3 is missing (CALPIPE_REQUIRE_TOOLS=1)") }
        throw XCTSkip("python3 is not installed: the test calendar service cannot run")
    }

    @discardableResult
    private func post(_ path: String, _ body: [String: Any] = [:]) throws -> JSONValue {
        let bytes = [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
        let answer = try control.send(.json("POST", base + path, body: bytes))
        guard answer.response.status == 200 else { throw CalpipeError("\(path): \(answer.response.status) \(answer.response.text)") }
        return try JSONParser.parse(answer.response.text)
    }

    /// Adds or changes an event of the service: `day` ("2026-12-01") from `hour` for an hour, UTC.
    func setEvent(_ id: String, _ title: String, day: String, hour: Int) throws {
        func time(_ h: Int) -> String { "\(day)T\(h < 10 ? "0" : "")\(h):00:00Z" }
        try post("/__control/event", ["id": id, "title": title, "start": time(hour), "end": time(hour + 1)])
    }

    /// Deletes an event of the service (later listings of changes carry it as deleted).
    func deleteEvent(_ id: String) throws {
        try post("/__control/event", ["id": id, "deleted": true])
    }

    /// Someone else changes a stored resource: its ETag changes.
    func editStored(_ uid: String, body: String) throws {
        try post("/__control/edit", ["uid": uid, "body": body])
    }

    /// Every request of `method` is answered with `status` (nil: served again).
    func fail(_ method: String?, status: Int = 503) throws {
        try post("/__control/fail", method.map { ["method": $0, "status": status] } ?? [:])
    }

    /// The store: UID to its body.
    func stored() throws -> [String: String] {
        var out: [String: String] = [:]
        for (uid, value) in try post("/__control/store").objectValue?.members ?? [] { out[uid] = value.objectValue?["body"]?.stringValue }
        return out
    }

    /// The requests served so far, one line each: `GET /v1/events?page_size=2`, `PUT /v1/store/a If-Match: "v1"`.
    func log() throws -> [String] {
        (try post("/__control/log").arrayValue ?? []).map { item in
            let o = item.objectValue
            let query = o?["query"]?.stringValue ?? ""
            var line = (o?["method"]?.stringValue ?? "") + " " + (o?["path"]?.stringValue ?? "") + (query.isEmpty ? "" : "?" + query)
            let headers = o?["headers"]?.objectValue
            for name in ["if-match", "if-none-match"] {
                if let value = headers?[name]?.stringValue { line += " \(name): \(value)" }
            }
            return line
        }
    }
}
