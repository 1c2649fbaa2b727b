import Foundation
import XCTest
@testable import Pipeline

/// `AtomicFile`: the temporary file next to the target, its lock, and the clean-up of the temporary files a
/// killed run left behind (by the next writer of the same target, never a live writer's).
final class AtomicFileTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func temporaryFiles() -> [String] { CalpipeProcess.temporaryFiles(under: dir) }

    func testAStaleTemporaryFileIsRemovedByTheNextWriterOfItsTarget() throws {
        // What SIGKILL leaves: a 0-byte and a half-written temporary file, nobody holding them.
        for (name, size) in [(".agenda.json.calpipe-Ab12Cd", 0), (".agenda.json.calpipe-xY98zW", 70_000)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data(repeating: 0x20, count: size)))
        }
        // Not ours: another target's temporary file, and names that only look alike.
        for name in [".other.json.calpipe-Ab12Cd", ".agenda.json.calpipe-toolong1", "agenda.json.calpipe-Ab12Cd"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data()))
        }
        let file = try AtomicFile(path: dir.appendingPathComponent("agenda.json").path)
        try file.write("{}\n")
        try file.commit()
        XCTAssertEqual(temporaryFiles(), [".agenda.json.calpipe-toolong1", ".other.json.calpipe-Ab12Cd", "agenda.json.calpipe-Ab12Cd"])
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("agenda.json"), encoding: .utf8), "{}\n")
    }

    func testALiveWritersTemporaryFileIsKept() throws {
        let path = dir.appendingPathComponent("agenda.json").path
        let first = try AtomicFile(path: path)
        try first.write("first\n")
        XCTAssertEqual(temporaryFiles().count, 1)
        // A second writer of the same target (another run) must not take the first one's file for stale.
        let second = try AtomicFile(path: path)
        XCTAssertEqual(temporaryFiles().count, 2)
        second.abort()
        try first.commit()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "first\n")
        XCTAssertEqual(temporaryFiles(), [])
    }

    func testAStaleFileLeftByAKilledProcessIsRemoved() throws {
        // A real process that holds the temporary file's lock, killed with SIGKILL: the lock goes with it.
        let stale = dir.appendingPathComponent(".agenda.json.calpipe-K1lled").path
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data()))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["--no-fork", stale, "sleep", "30"]
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else { throw XCTSkip("no flock(1) here (util-linux)") }
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        // flock(1) holds the lock once it has become `sleep` (it locks, then execs without forking).
        XCTAssertTrue(CalpipeProcess.wait(seconds: 10) {
            (try? String(contentsOfFile: "/proc/\(holder.processIdentifier)/comm", encoding: .utf8)) == "sleep\n"
        })
        // While it lives, its file is kept.
        XCTAssertEqual(AtomicFile.removeStaleTemporaryFiles(of: dir.appendingPathComponent("agenda.json").path), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: stale))
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        XCTAssertEqual(AtomicFile.removeStaleTemporaryFiles(of: dir.appendingPathComponent("agenda.json").path), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
    }

    func testWithACancellationTheTemporaryFileIsRegisteredUntilRenamed() throws {
        let cancellation = Cancellation()
        let file = try AtomicFile(path: dir.appendingPathComponent("a.ics").path, cancellation: cancellation)
        XCTAssertEqual(cancellation.temporaryFileCount, 1)
        try file.write("x")
        try file.commit()
        XCTAssertEqual(cancellation.temporaryFileCount, 0)
        // A forced stop removes what is registered.
        let open = try AtomicFile(path: dir.appendingPathComponent("b.ics").path, cancellation: cancellation)
        try open.write("y")
        XCTAssertEqual(cancellation.stopNow().removed, 1)
        XCTAssertEqual(temporaryFiles(), [])
        open.abort()
    }

    func testWritesStopOnceTheRunIsAskedToStop() throws {
        let cancellation = Cancellation()
        let file = try AtomicFile(path: dir.appendingPathComponent("a.json").path, cancellation: cancellation)
        cancellation.cancel(reason: "SIGINT")
        XCTAssertThrowsError(try file.write(bytes: [UInt8](repeating: 0x20, count: 1 << 17))) { error in
            XCTAssertEqual("\(error)", "interrupted by SIGINT: nothing was written")
        }
        file.abort()
        XCTAssertEqual(temporaryFiles(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.json").path))
    }
}
