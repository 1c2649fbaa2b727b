import Foundation
import XCTest

/// Every input in Tests/Fixtures/crashers (see its README) once crashed calpipe. Each is run through the real
/// binary as a child process (so a crash cannot take the test run down with it) and must end with an exit
/// code, never by a signal. Files listed as "open" in the README are crashes being fixed elsewhere: while they
/// still crash, the test says so and is skipped, naming them.
final class CrasherTests: XCTestCase {
    private static let folder = TestSupport.repositoryRoot.appendingPathComponent("Tests/Fixtures/crashers")

    /// The files the README lists as open, with their owner.
    private func openCrashers() throws -> [String: String] {
        let readme = try String(contentsOf: Self.folder.appendingPathComponent("README.md"), encoding: .utf8)
        var open: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let status = cells.last, status.hasPrefix("open") else { continue }
            open[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = status
        }
        return open
    }

    func testNoCrasherCrashes() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0 != "README.md" }.sorted()
        XCTAssertFalse(files.isEmpty)
        let open = try openCrashers()
        let out = try TestSupport.temporaryDirectory()
        var stillOpen: [String] = []
        for file in files {
            let path = Self.folder.appendingPathComponent(file).path
            let arguments = file.hasSuffix(".pipeline.json")
                ? ["validate", path]
                : ["convert", path, "-o", out.appendingPathComponent("out.json").path, "--from", "2026-11-01", "--to", "2026-11-15", "--quiet"]
            let started = Date()
            let result = try CalpipeProcess.run(arguments, in: out, environment: ["SWIFT_BACKTRACE": "enable=no"])
            let seconds = Date().timeIntervalSince(started)
            if result.killedBySignal {
                if let owner = open[file] {
                    stillOpen.append("\(file) (\(owner))")
                } else {
                    XCTFail("\(file): calpipe crashed (signal \(result.code - 128)): \(result.stderr.suffix(500))")
                }
                continue
            }
            XCTAssertTrue([0, 1, 2, 3].contains(result.code), "\(file): exit \(result.code): \(result.stderr)")
            XCTAssertLessThan(seconds, 20, "\(file) took \(seconds) s")
            if open[file] != nil { print("CrasherTests: \(file) no longer crashes: move it to \"fixed\" in Tests/Fixtures/crashers/README.md") }
        }
        if !stillOpen.isEmpty {
            throw XCTSkip("\(stillOpen.count) known crasher(s) still crash, being fixed elsewhere: \(stillOpen.joined(separator: "; "))")
        }
    }
}
