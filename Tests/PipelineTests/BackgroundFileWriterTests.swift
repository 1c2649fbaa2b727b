@testable import Exporters
import XCTest
@testable import Pipeline

/// The JSON days document is written by a thread of its own while the merge goes on: every chunk must land,
/// in order, and a cancelled write must leave nothing behind once the file is aborted.
final class BackgroundFileWriterTests: XCTestCase {
    func testChunksLandCompleteAndInOrder() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.bin").path
        let file = try AtomicFile(path: path)
        let writer = BackgroundFileWriter(file: file, depth: 2)
        var expected: [UInt8] = []
        for i in 0..<300 {
            var chunk = writer.emptyBuffer()
            XCTAssertTrue(chunk.isEmpty)
            // Sizes from 0 to ~100 KB, so some chunks stay in the file's buffer and some are flushed at once.
            chunk.append(contentsOf: (0..<(i * 337 % 100_003)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) })
            expected += chunk
            try writer.send(chunk)
        }
        try writer.finish()
        try file.commit()
        XCTAssertGreaterThan(expected.count, 10_000_000)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), expected)
    }

    func testCancelThenAbortLeavesNoFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.json").path
        let file = try AtomicFile(path: path)
        let writer = BackgroundFileWriter(file: file)
        for _ in 0..<20 { try writer.send([UInt8](repeating: 0x20, count: 1 << 16)) }
        writer.cancel()
        file.abort()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}
