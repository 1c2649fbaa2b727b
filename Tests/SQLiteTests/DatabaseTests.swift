@testable import CalSQLite
import Foundation
import XCTest

final class DatabaseTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func testTypedBindingRoundTripsEveryStorageClass() throws {
        let db = try Database(path: path("types.db"))
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        XCTAssertEqual(insert.parameterCount, 5)
        try insert.bind(Int64.min, at: 1)
        try insert.bind(-0.125, at: 2)
        try insert.bind("Zürich \u{1F326} a\u{0}b", at: 3)
        try insert.bind([0, 255, 10] as [UInt8], at: 4)
        try insert.bindNull(at: 5)
        try insert.run()
        try insert.bind(Int64.max, at: 1)
        try insert.bind(1e300, at: 2)
        try insert.bind("", at: 3)
        try insert.bind([] as [UInt8], at: 4)
        try insert.bind("x" as String?, at: 5)
        try insert.run()

        let select = try db.prepare("SELECT i, r, s, b, n, typeof(s), length(s) FROM t ORDER BY rowid")
        XCTAssertEqual(select.columnNames, ["i", "r", "s", "b", "n", "typeof(s)", "length(s)"])
        XCTAssertTrue(try select.step())
        XCTAssertEqual(select.int64(at: 0), Int64.min)
        XCTAssertEqual(select.double(at: 1), -0.125)
        XCTAssertEqual(select.text(at: 2), "Zürich \u{1F326} a\u{0}b")
        XCTAssertEqual(select.blob(at: 3), [0, 255, 10])
        XCTAssertTrue(select.isNull(at: 4))
        XCTAssertNil(select.text(at: 4))
        XCTAssertEqual(select.value(at: 4), .null)
        XCTAssertTrue(try select.step())
        XCTAssertEqual(select.value(at: 0), .integer(Int64.max))
        XCTAssertEqual(select.value(at: 1), .real(1e300))
        // An empty string is text, not NULL.
        XCTAssertEqual(select.value(at: 2), .text(""))
        XCTAssertEqual(select.text(at: 5), "text")
        XCTAssertEqual(select.int(at: 6), 0)
        XCTAssertEqual(select.value(at: 3), .blob([]))
        XCTAssertEqual(select.text(at: 4), "x")
        XCTAssertFalse(try select.step())
        try select.reset()
        XCTAssertTrue(try select.step(), "a reset statement runs again")
    }

    /// Text is bound from a buffer per parameter that SQLite reads in place: each row must get exactly the text
    /// bound for it, whether the buffer grew, shrank or was kept across a reset without binding again.
    func testTextBindingsReuseTheirBuffersWithoutMixingRows() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (a TEXT, b TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?)")
        let texts = ["short", String(repeating: "long é ", count: 40), "", "mid-length text", "x"]
        for (i, text) in texts.enumerated() {
            // A string made here and gone after the call: the binding must not depend on it.
            try insert.bind(String(text.reversed().reversed()), at: 1)
            try insert.bind("row \(i)", at: 2)
            try insert.run()
        }
        // Bindings survive reset: the last row's values again, unchanged.
        try insert.run()
        // A statement that is running refuses a new binding and keeps the one it has.
        let select = try db.prepare("SELECT ?1 FROM t")
        try select.bind("first", at: 1)
        XCTAssertTrue(try select.step())
        XCTAssertThrowsError(try select.bind("second, and longer than the first", at: 1)) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 21) // SQLITE_MISUSE
        }
        XCTAssertTrue(try select.step())
        XCTAssertEqual(select.text(at: 0), "first")
        try select.reset()
        XCTAssertThrowsError(try select.bind("out of range", at: 2))
        XCTAssertEqual(try db.rows("SELECT a, b, typeof(a) FROM t ORDER BY rowid"),
                       texts.enumerated().map { [.text($0.element), .text("row \($0.offset)"), .text("text")] }
                           + [[.text("x"), .text("row 4"), .text("text")]])
    }

    func testGenericAndArrayBinding() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (a, b, c, d)")
        let s = try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
        try s.bind(true as Bool?, at: 1)
        try s.bind(nil as Double?, at: 2)
        try s.bind(42 as Int?, at: 3)
        try s.bind("q" as Substring?, at: 4)
        try s.run()
        try s.run([false, 2.5, .null, "it's"])
        XCTAssertEqual(try db.rows("SELECT a, b, c, d FROM t ORDER BY rowid"), [[1, .null, 42, "q"], [0, 2.5, .null, "it's"]])
        XCTAssertEqual(SQLiteValue.text("it's").description, "'it''s'")
        XCTAssertEqual(SQLiteValue.blob([0x0a, 0xff]).description, "x'0aff'")
    }

    func testNamedParameters() throws {
        let db = try Database(path: ":memory:")
        let s = try db.prepare("SELECT :b || :a")
        let a = try XCTUnwrap(s.parameterIndex(":a")), b = try XCTUnwrap(s.parameterIndex(":b"))
        XCTAssertNil(s.parameterIndex(":c"))
        try s.bind("1", at: a)
        try s.bind("2", at: b)
        XCTAssertEqual(try s.allRows(), [["21"]])
    }

    func testErrorsCarryCodeMessageAndSQL() throws {
        let db = try Database(path: ":memory:")
        XCTAssertThrowsError(try db.prepare("SELEC 1")) { error in
            XCTAssertEqual(error as? SQLiteError, SQLiteError(code: 1, message: "near \"SELEC\": syntax error", sql: "SELEC 1"))
            XCTAssertEqual("\(error)", "SQLite error 1: near \"SELEC\": syntax error (in: SELEC 1)")
        }
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
        try db.execute("INSERT INTO t (name) VALUES (?)", arguments: ["a"])
        XCTAssertThrowsError(try db.execute("INSERT INTO t (name) VALUES (?)", arguments: ["a"])) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.code, 19)
            XCTAssertEqual(e?.extendedCode, 2067) // SQLITE_CONSTRAINT_UNIQUE
            XCTAssertEqual(e?.message, "UNIQUE constraint failed: t.name")
            XCTAssertEqual(e?.sql, "INSERT INTO t (name) VALUES (?)")
            XCTAssertEqual(e?.isConstraintViolation, true)
            XCTAssertEqual(e?.reason, "a constraint failed")
        }
        // The statement that failed is reset and usable again.
        try db.execute("INSERT INTO t (name) VALUES (?)", arguments: ["b"])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 2)

        XCTAssertThrowsError(try db.execute("INSERT INTO t (name) VALUES (?)", arguments: [])) { error in
            XCTAssertEqual(error as? SQLiteError, SQLiteError(code: 25, message: "0 arguments for 1 parameter", sql: "INSERT INTO t (name) VALUES (?)"))
        }
        let s = try db.prepare("SELECT ?")
        XCTAssertThrowsError(try s.bind(1, at: 2)) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 25) // SQLITE_RANGE
            XCTAssertEqual((error as? SQLiteError)?.message, "column index out of range")
        }
    }

    func testScriptErrorNamesTheFailingStatement() throws {
        let db = try Database(path: ":memory:")
        XCTAssertThrowsError(try db.execute("""
            CREATE TABLE a (x);
            -- a comment
            INSERT INTO missing VALUES (1);
            CREATE TABLE b (y);
            """)) { error in
            XCTAssertEqual(error as? SQLiteError, SQLiteError(code: 1, message: "no such table: missing", sql: "-- a comment\nINSERT INTO missing VALUES (1);"))
        }
        XCTAssertEqual(try db.rows("SELECT name FROM sqlite_master ORDER BY name"), [["a"]], "the script stops at the failure")
        try db.execute("  -- only a comment\n ; ")
    }

    func testPrepareRejectsSeveralStatementsAndEmptySQL() throws {
        let db = try Database(path: ":memory:")
        XCTAssertThrowsError(try db.prepare("SELECT 1; SELECT 2")) { error in
            XCTAssertEqual(error as? SQLiteError, SQLiteError(code: 21, message: "more than one statement in SQL given to prepare; use execute(_:) for scripts", sql: "SELECT 1; SELECT 2"))
        }
        XCTAssertNoThrow(try db.prepare("SELECT 1; \n"))
        XCTAssertThrowsError(try db.prepare(" -- nothing")) { error in
            XCTAssertEqual((error as? SQLiteError)?.message, "no SQL statement to prepare (empty or only a comment)")
        }
    }

    func testRunRefusesAQueryAndForEachRowVisitsRows() throws {
        let db = try Database(path: ":memory:")
        XCTAssertThrowsError(try db.prepare("SELECT 1").run()) { error in
            XCTAssertEqual((error as? SQLiteError)?.message, "statement returned rows; read them with step()")
        }
        let s = try db.prepare("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i * i FROM n")
        var squares: [Int] = []
        try s.forEachRow { squares.append($0.int(at: 0)) }
        XCTAssertEqual(squares, [1, 4, 9, 16, 25])
    }

    func testStatementCacheReusesAndResets() throws {
        let db = try Database(path: ":memory:")
        let first = try db.cachedStatement("SELECT ?")
        try first.bind(7, at: 1)
        XCTAssertTrue(try first.step())
        let again = try db.cachedStatement("SELECT ?")
        XCTAssertTrue(first === again)
        // Reset and bindings cleared: the parameter reads NULL now.
        XCTAssertTrue(try again.step())
        XCTAssertEqual(again.value(at: 0), .null)
        XCTAssertFalse(try db.cachedStatement("SELECT 1") === again)
    }

    func testTransactionCommitsOrRollsBackOnThrow() throws {
        struct Stop: Error {}
        let db = try Database(path: path("tx.db"))
        try db.execute("CREATE TABLE t (x)")
        let n = try db.inTransaction(.immediate) { () -> Int in
            XCTAssertTrue(db.isInTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            return db.changes
        }
        XCTAssertEqual(n, 1)
        XCTAssertFalse(db.isInTransaction)
        XCTAssertThrowsError(try db.inTransaction {
            try db.execute("INSERT INTO t VALUES (2)")
            throw Stop()
        }) { XCTAssertTrue($0 is Stop) }
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try db.rows("SELECT x FROM t"), [[1]])

        // Explicit begin / rollback, as the sink uses them across open / abort.
        try db.beginTransaction()
        try db.execute("DELETE FROM t")
        try db.rollback()
        try db.rollback() // nothing open: no error
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
        XCTAssertThrowsError(try db.commit()) { error in
            XCTAssertEqual((error as? SQLiteError)?.message, "cannot commit - no transaction is active")
        }
    }

    func testSavepointsNest() throws {
        struct Stop: Error {}
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (x)")
        try db.inTransaction {
            try db.execute("INSERT INTO t VALUES ('outer')")
            try? db.inSavepoint("inner \"one\"") {
                try db.execute("INSERT INTO t VALUES ('inner')")
                throw Stop()
            }
            try db.inSavepoint {
                try db.execute("INSERT INTO t VALUES ('kept')")
            }
        }
        XCTAssertEqual(try db.rows("SELECT x FROM t ORDER BY rowid"), [["outer"], ["kept"]])
    }

    func testSecondWriterFailsWithBusyAfterTimeout() throws {
        let file = path("busy.db")
        let a = try Database(path: file, configuration: .init(journalMode: .wal))
        try a.execute("CREATE TABLE t (x)")
        let b = try Database(path: file, configuration: .init(busyTimeoutMilliseconds: 50))
        try a.beginTransaction(.immediate)
        XCTAssertThrowsError(try b.beginTransaction(.immediate)) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 5)
            XCTAssertEqual((error as? SQLiteError)?.message, "database is locked")
            XCTAssertEqual((error as? SQLiteError)?.isBusy, true)
        }
        // In WAL mode a reader is not blocked by the writer and sees the last committed state.
        try a.execute("INSERT INTO t VALUES (1)")
        XCTAssertEqual(try b.scalarInt("SELECT count(*) FROM t"), 0)
        try a.commit()
        XCTAssertEqual(try b.scalarInt("SELECT count(*) FROM t"), 1)
    }

    func testSecondWriterWaitsForTheFirstWithinBusyTimeout() throws {
        let file = path("wait.db")
        let a = try Database(path: file, configuration: .init(journalMode: .wal))
        try a.execute("CREATE TABLE t (x)")
        try a.beginTransaction(.immediate)
        try a.execute("INSERT INTO t VALUES ('first')")
        let started = expectation(description: "second writer started")
        let done = expectation(description: "second writer done")
        let outcome = Outcome()
        let thread = Thread {
            do {
                let b = try Database(path: file, configuration: .init(busyTimeoutMilliseconds: 10_000))
                started.fulfill()
                try b.inTransaction(.immediate) { try b.execute("INSERT INTO t VALUES ('second')") }
                outcome.set("ok")
            } catch {
                outcome.set("\(error)")
            }
            done.fulfill()
        }
        thread.start()
        wait(for: [started], timeout: 10)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertNil(outcome.value, "the second writer is still waiting")
        try a.commit()
        wait(for: [done], timeout: 15)
        XCTAssertEqual(outcome.value, "ok")
        XCTAssertEqual(try a.rows("SELECT x FROM t ORDER BY rowid"), [["first"], ["second"]])
    }

    func testJournalModeUserVersionAndIntegrity() throws {
        let file = path("wal.db")
        do {
            let db = try Database(path: file, configuration: .init(journalMode: .wal))
            XCTAssertEqual(try db.journalMode, "wal")
            XCTAssertEqual(try db.userVersion, 0)
            try db.setUserVersion(3)
            XCTAssertEqual(try db.integrityCheck(), ["ok"])
        }
        let reopened = try Database(path: file)
        XCTAssertEqual(try reopened.journalMode, "wal", "WAL is kept in the file")
        XCTAssertEqual(try reopened.userVersion, 3)
        let memory = try Database(path: ":memory:", configuration: .init(journalMode: .wal))
        XCTAssertEqual(try memory.journalMode, "memory")
    }

    func testReadOnlyAndOpenFailures() throws {
        let file = path("ro.db")
        try Database(path: file).execute("CREATE TABLE t (x)")
        let ro = try Database(path: file, configuration: .init(readOnly: true))
        XCTAssertTrue(ro.isReadOnly)
        XCTAssertThrowsError(try ro.execute("INSERT INTO t VALUES (1)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 8) // SQLITE_READONLY
            XCTAssertEqual((error as? SQLiteError)?.message, "attempt to write a readonly database")
        }
        let missing = path("no/such/dir/x.db")
        XCTAssertThrowsError(try Database(path: missing)) { error in
            XCTAssertEqual(error as? SQLiteError, SQLiteError(code: 14, message: "unable to open database file: \(missing)"))
        }
        XCTAssertThrowsError(try Database(path: path("absent.db"), configuration: .init(create: false))) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 14)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("absent.db")))
    }

    func testConnectionClosesInDeinitSoTheFileCanBeLockedAgain() throws {
        let file = path("close.db")
        do {
            let db = try Database(path: file)
            try db.execute("CREATE TABLE t (x)")
            _ = try db.cachedStatement("SELECT count(*) FROM t")
            try db.beginTransaction(.exclusive)
            try db.execute("INSERT INTO t VALUES (1)")
            // Dropped with an open transaction: closing rolls it back and releases the lock.
        }
        let other = try Database(path: file, configuration: .init(busyTimeoutMilliseconds: 0))
        try other.inTransaction(.exclusive) { try other.execute("INSERT INTO t VALUES (2)") }
        XCTAssertEqual(try other.rows("SELECT x FROM t"), [[2]])
    }

    /// SQLite's memory statistics are turned off before the library initialises (they take a process-wide
    /// mutex on every allocation): the call must come before the first open, or SQLite refuses it (21, MISUSE).
    func testLibraryIsConfiguredBeforeItInitialises() throws {
        _ = try Database(path: ":memory:")
        XCTAssertEqual(Database.libraryConfigured, 0, "sqlite3_config came after sqlite3_initialize")
    }
}

/// A value written by one thread and read by another.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    var value: String? { lock.lock(); defer { lock.unlock() }; return stored }
    func set(_ v: String) { lock.lock(); stored = v; lock.unlock() }
}
