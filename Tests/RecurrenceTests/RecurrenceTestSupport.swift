import Foundation
@testable import Pipeline
import XCTest

/// Paths and inputs shared by the recurrence tests.
enum RecurrenceTestSupport {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let repository = tests.deletingLastPathComponent()
    static let berlin = Zone.system(identifier: "Europe/Berlin")!

    /// Writes a feed made by the benchmark's generator (`scripts/gen-bench-ics.py`) to `path`.
    static func generateFeed(seed: Int, events: Int, to path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", repository.appendingPathComponent("scripts/gen-bench-ics.py").path,
                            "--seed", String(seed), "--events", String(events), "--out", path]
        python.standardOutput = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0, "gen-bench-ics.py", file: file, line: line)
    }
}
