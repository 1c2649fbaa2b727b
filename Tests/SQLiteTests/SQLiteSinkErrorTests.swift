import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// The sqlite sink's database cases (issue 16 item 7): one line each, naming the file, in our words (no SQLite
/// text), and nothing changed in the file.
final class SQLiteSinkErrorTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws {
        _ = chmod(dir.path, 0o755)
        try? FileManager.default.removeItem(at: dir)
    }

    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testSomeoneElsesDatabaseIsRefusedBeforeAnythingChanges() throws {
        let path = dir.appendingPathComponent("shop.db").path
        do {
            let other = try Database(path: path)
            try other.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO events (name) VALUES ('sale'); CREATE TABLE orders (id INTEGER)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(message { try runSink(path: path, events: [event("a@x", "A", at(2026, 11, 2, 9), at(2026, 11, 2, 10))]) },
                       "sqlite agenda.db: this database was not made by calpipe (it has the tables events, orders); nothing was changed; use another file")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the file was changed")
        XCTAssertEqual(try Database(path: path, configuration: .init(readOnly: true)).journalMode, "delete", "it was switched to WAL")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    func testCorruptDatabaseIsOneLineInOurWords() throws {
        let path = dir.appendingPathComponent("agenda.db").path
        try runSink(path: path, events: [event("a@x", "A", at(2026, 11, 2, 9), at(2026, 11, 2, 10))])
        // Overwrite the pages after the header: the schema can no longer be read.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xA5, count: 40_000))
        try handle.close()
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let text = message { try runSink(path: path, events: []) }
        XCTAssertTrue(["sqlite agenda.db: the database file is damaged; restore it from a backup, or move it aside and run the pipeline again to rebuild it",
                       "sqlite agenda.db: the file is damaged or is not a SQLite database; nothing was written (move it aside to start a new one)"].contains(text), text)
    }

    func testReadOnlyDatabaseIsOneLineInOurWords() throws {
        try XCTSkipIf(getuid() == 0, "root writes read-only files")
        let path = dir.appendingPathComponent("agenda.db").path
        try runSink(path: path, events: [event("a@x", "A", at(2026, 11, 2, 9), at(2026, 11, 2, 10))])
        _ = chmod(path, 0o444)
        _ = chmod(dir.path, 0o555)
        XCTAssertTrue(message { try runSink(path: path, events: []) }.hasPrefix("sqlite agenda.db: cannot"))
    }

    func testReadOnlyFolderIsOneLineInOurWords() throws {
        // As root, permissions do not stop writes: a file standing where the folder should be does.
        let blocker = dir.appendingPathComponent("out")
        try Data("x".utf8).write(to: blocker)
        let path = blocker.appendingPathComponent("agenda.db").path
        XCTAssertEqual(message { try runSink(path: path, events: []) },
                       "sqlite agenda.db: cannot write: \"\(blocker.path)\" is a file, not a folder; nothing was written")
    }

    func testBusyTimeoutDefaultIsThirtySecondsAndSaid() throws {
        XCTAssertEqual(SQLiteSink(path: "/tmp/x.db").busyTimeoutMilliseconds, 30_000)
        XCTAssertTrue(SQLiteSink.descriptor.options.contains { $0.name == "busy_timeout_ms" && $0.defaultValue == "30000" })
    }
}
