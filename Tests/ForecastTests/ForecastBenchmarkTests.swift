import Enrichers
import Fetch
import Foundation
import Pipeline
import XCTest

/// Figures, not timed assertions: run with `CALPIPE_BENCH=1 swift test --filter ForecastBenchmarkTests`.
/// Skipped otherwise. Each check still asserts that the work was done right.
final class ForecastBenchmarkTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["CALPIPE_BENCH"] != nil, "set CALPIPE_BENCH=1 to print figures")
    }

    func testFileProviderEnrichmentThroughput() throws {
        // 20 000 one-day events over 60 days at four places: 20 000 day entries.
        let places = [(52.52, 13.41), (53.55, 9.99), (48.14, 11.58), (38.72, -9.14)]
        let start = ISODate.parseDate("2026-10-12")!
        let events = (0..<20_000).map { i in
            Harness.event("e\(i)", day: start.adding(days: i % 60).iso8601, hour: 8 + i % 10, geo: places[i % 4])
        }
        let began = Date()
        let run = try Harness.run(events: events, forecast: ["provider": "file", "path": FileProviderTests.sample, "buffer_limit": 5000],
                                  cache: "/nonexistent/x.sqlite")
        let seconds = Date().timeIntervalSince(began)
        XCTAssertEqual(run.report.counter("forecasts from file"), 20_000)
        print("BENCH forecast file provider: 20000 day entries (split + forecast) in \(String(format: "%.3f", seconds)) s, \(Int(Double(20_000) / seconds)) entries/s")
    }

    func testCacheHitLatency() throws {
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/v1/forecast", [.init(headers: ["Cache-Control": "max-age=3600"], bodyFile: "openmeteo-munich-berlin.json")])
        let cache = Harness.temporaryCache()
        let fetcher = HTTPFetcher(cachePath: cache, settings: HTTPSettings(requestsPerSecond: 0))
        let downloadStart = Date()
        for i in 0..<200 { _ = try fetcher.get(server.base + "/v1/forecast?i=\(i)") }
        let downloadSeconds = Date().timeIntervalSince(downloadStart)
        let requestsMade = try server.log().count
        let began = Date()
        for round in 0..<10 { for i in 0..<200 { XCTAssertEqual(try fetcher.get(server.base + "/v1/forecast?i=\(i)").origin, .cache, "round \(round)") } }
        let seconds = Date().timeIntervalSince(began)
        XCTAssertEqual(try server.log().count, requestsMade)
        print("BENCH http cache: 2000 fresh hits in \(String(format: "%.3f", seconds)) s, \(String(format: "%.1f", seconds / 2000 * 1_000_000)) µs per hit; 200 downloads from 127.0.0.1 (stored in the cache) took \(String(format: "%.3f", downloadSeconds)) s")
    }

    /// Peak resident memory of this process so far (VmHWM), in MB.
    static func peakMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return -1 }
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    func testLargeFeedDownloadMemory() throws {
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-bench-\(getpid()).ics")
        let chunk = String(repeating: "BEGIN:VEVENT\r\nUID:x@example.com\r\nDTSTART:20261124T090000Z\r\nSUMMARY:Stand-up\r\nEND:VEVENT\r\n", count: 100_000)
        _ = FileManager.default.createFile(atPath: big.path, contents: nil)
        let handle = try FileHandle(forWritingTo: big)
        for _ in 0..<30 { handle.write(Data(chunk.utf8)) }  // about 300 MB
        try handle.close()
        defer { try? FileManager.default.removeItem(at: big) }
        let size = (try FileManager.default.attributesOfItem(atPath: big.path)[.size] as? Int) ?? 0
        let server = try RecordedServer()
        defer { server.stop() }
        try server.route("/big.ics", [.init(bodyFile: big.path)])
        let before = Self.peakMB()
        let fetcher = HTTPFetcher(cachePath: Harness.temporaryCache(), settings: HTTPSettings(requestTimeout: 120, requestsPerSecond: 0))
        let began = Date()
        let (result, path) = try fetcher.download(server.base + "/big.ics")
        let seconds = Date().timeIntervalSince(began)
        XCTAssertEqual(result.origin, .network)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int), size)
        print("BENCH feed download: \(size / 1_000_000) MB in \(String(format: "%.2f", seconds)) s; peak RSS \(String(format: "%.0f", before)) MB before, \(String(format: "%.0f", Self.peakMB())) MB after")
    }
}
