import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The recorded-response HTTP server (Tests/Fixtures/forecast/recorded_server.py) on 127.0.0.1, one per test.
/// Python is test tooling only; calpipe itself never runs it.
final class RecordedServer {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/forecast")

    let port: Int
    private let process: Process
    private let input: Pipe

    var base: String { "http://127.0.0.1:\(port)" }

    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.fixtures.appendingPathComponent("recorded_server.py").path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // First line: "PORT <n>".
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw NSError(domain: "RecordedServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "server did not start: \(text)"])
        }
        self.port = port
    }

    /// Stops the server (also used to simulate a server that is down).
    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }

    struct Reply {
        var status = 200
        var headers: [String: String] = [:]
        var bodyFile: String?
        var body: String?
        var delay: Double?
        /// Seconds the server pauses after the headers and half the body.
        var stall: Double?
        var etag: String?
        var lastModified: String?
        /// Request headers that must have these values, else the server answers 401.
        var require: [String: String]?
        /// Query parameters that must have these (decoded) values, or be absent for nil, and headers that must have
        /// these values; else the server answers 400 "unexpected request: ..." (recorded_server.py, "expect").
        var expectQuery: [String: String?]?
        var expectHeaders: [String: String]?

        var json: [String: Any] {
            var o: [String: Any] = ["status": status, "headers": headers]
            if let bodyFile { o["body_file"] = bodyFile }
            if let body { o["body"] = body }
            if let delay { o["delay"] = delay }
            if let stall { o["stall"] = stall }
            if let etag { o["etag"] = etag }
            if let lastModified { o["last_modified"] = lastModified }
            if let require { o["require"] = require }
            if expectQuery != nil || expectHeaders != nil {
                let query = (expectQuery ?? [:]).mapValues { $0.map { $0 as Any } ?? NSNull() }
                o["expect"] = ["query": query, "headers": expectHeaders ?? [:]] as [String: Any]
            }
            return o
        }
    }

    /// Requests to `path` (whose query contains `queryContains`) get these replies in turn, the last repeating.
    func route(_ path: String, queryContains: String? = nil, method: String? = nil, _ replies: [Reply]) throws {
        var spec: [String: Any] = ["path": path, "responses": replies.map(\.json)]
        if let method { spec["method"] = method }
        if let queryContains { spec["query_contains"] = queryContains }
        _ = try control("POST", "/__control/route", body: try JSONSerialization.data(withJSONObject: spec))
    }

    struct LoggedRequest {
        var method: String
        var path: String
        var query: String
        var headers: [String: String]
        var body: String
        /// When the server got it: seconds on the server's monotonic clock (only differences mean anything).
        var at: Double
    }

    /// The requests the server got so far (control requests excluded).
    func log() throws -> [LoggedRequest] {
        let data = try control("GET", "/__control/log", body: nil)
        let items = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return items.map {
            LoggedRequest(method: $0["method"] as? String ?? "", path: $0["path"] as? String ?? "", query: $0["query"] as? String ?? "",
                          headers: $0["headers"] as? [String: String] ?? [:], body: $0["body"] as? String ?? "",
                          at: $0["at"] as? Double ?? 0)
        }
    }

    func requests(to path: String) throws -> [LoggedRequest] {
        try log().filter { $0.path == path }
    }

    private final class Box: @unchecked Sendable {
        var data: Data?
        var error: Error?
    }

    private func control(_ method: String, _ path: String, body: Data?) throws -> Data {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.httpBody = body
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, _, error in
            box.data = data
            box.error = error
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 10) == .success else { throw NSError(domain: "RecordedServer", code: 2) }
        if let error = box.error { throw error }
        return box.data ?? Data()
    }
}
