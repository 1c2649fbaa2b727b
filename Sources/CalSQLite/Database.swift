import CSQLite

/// The one owner of a `sqlite3*` connection handle, closed in `deinit`. Not Sendable: use it on one thread.
///
/// Errors are `SQLiteError`s carrying SQLite's code and message and the SQL that failed; every return code of
/// the C API is checked. Statements come from `prepare(_:)` (owned by the caller) or `cachedStatement(_:)`
/// (owned by the database, prepared once, reset before each use).
package final class Database {
    let handle: OpaquePointer
    /// The path as given to `init`.
    package let path: String
    private var statementCache: [String: Statement] = [:]

    package enum JournalMode: String, Sendable {
        case delete, truncate, persist, memory, wal, off
    }

    /// How to open a connection.
    package struct Configuration: Sendable {
        package var readOnly: Bool
        /// Create the file when it does not exist (ignored when read-only).
        package var create: Bool
        /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
        package var busyTimeoutMilliseconds: Int
        /// Switch the journal mode after opening (nil leaves the file's mode). WAL is persistent in the file.
        package var journalMode: JournalMode?
        package var foreignKeys: Bool

        package init(readOnly: Bool = false, create: Bool = true, busyTimeoutMilliseconds: Int = 5_000,
                    journalMode: JournalMode? = nil, foreignKeys: Bool = true) {
            self.readOnly = readOnly
            self.create = create
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.journalMode = journalMode
            self.foreignKeys = foreignKeys
        }
    }

    /// Library settings made once per process, before the first connection opens: SQLite's memory statistics
    /// off (`sqlite3_status` memory figures then read 0; nothing in calpipe reads them), and statement journals
    /// kept in memory up to 4 MiB (SQLite's 64 KiB sent every multi-page upsert's journal to a temporary file
    /// under `temp_store = FILE`). SQLITE_MISUSE means the library was already initialised by other code in the
    /// process: it keeps its defaults, which is only slower.
    static let libraryConfigured: Int32 = {
        let rc = calpipe_sqlite_disable_memstatus()
        precondition(rc == SQLITE_OK || rc == SQLITE_MISUSE, "sqlite3_config(SQLITE_CONFIG_MEMSTATUS) returned \(rc)")
        let spill = calpipe_sqlite_statement_journal_spill(4 << 20)
        precondition(spill == SQLITE_OK || spill == SQLITE_MISUSE, "sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL) returned \(spill)")
        return rc
    }()

    /// Opens (and by default creates) the database at `path`; ":memory:" opens a private in-memory database.
    package init(path: String, configuration: Configuration = Configuration()) throws {
        _ = Self.libraryConfigured
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        if configuration.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if configuration.create { flags |= SQLITE_OPEN_CREATE }
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            // A handle is returned even on failure (except out of memory) and must be closed.
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(message): \(path)")
        }
        handle = db
        self.path = path
        // Failing from here on: deinit closes the handle.
        try check(sqlite3_extended_result_codes(db, 1), sql: nil)
        try setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)
        if configuration.foreignKeys { try execute("PRAGMA foreign_keys = ON") }
        if let mode = configuration.journalMode { try setJournalMode(mode) }
    }

    deinit {
        // Finalize our statements first, so the connection really closes now. With close_v2 a statement the
        // caller still holds does not make the close fail: the connection lingers until it is finalized.
        statementCache.removeAll()
        let rc = sqlite3_close_v2(handle)
        assert(rc == SQLITE_OK, "sqlite3_close_v2 returned \(rc)")
    }

    /// The SQLite library version, e.g. "3.40.1".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// `text` in `mark`s with each `mark` inside doubled: an SQL string literal (') or identifier (").
    package static func quote(_ text: String, with mark: Character) -> String {
        var out = String(mark)
        for c in text {
            out.append(c)
            if c == mark { out.append(c) }
        }
        out.append(mark)
        return out
    }

    func check(_ rc: Int32, sql: String?) throws {
        if rc != SQLITE_OK { throw SQLiteError(connection: handle, code: rc, sql: sql) }
    }

    // MARK: Statements

    /// Prepares one statement, owned by the caller. SQL with more than one statement is an error.
    package func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql, persistent: false)
    }

    /// A statement prepared once per connection and kept; each call resets it and clears its bindings.
    /// Do not hold one across another use of the same SQL (the second use would reset the first).
    package func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            try statement.reset()
            try statement.clearBindings()
            return statement
        }
        let statement = try Statement(database: self, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes every cached statement (e.g. before a schema change in another connection).
    package func clearStatementCache() {
        statementCache.removeAll()
    }

    /// Runs a script of zero or more statements separated by semicolons; rows they return are ignored.
    /// An error names the statement of the script that failed.
    package func execute(_ script: String) throws {
        try script.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(handle, current, -1, &statement, &tail)
                let text = { () -> String in
                    guard let tail else { return String(cString: current) }
                    let bytes = UnsafeRawBufferPointer(start: current, count: tail - current)
                    return String(decoding: bytes, as: UTF8.self).trimmingSpaces()
                }
                guard rc == SQLITE_OK else { throw SQLiteError(connection: handle, code: rc, sql: text()) }
                next = tail
                guard let statement else { continue } // whitespace or a comment
                // finalize repeats the error of a failed step, which is thrown below: nothing new to check.
                defer { sqlite3_finalize(statement) }
                var step = sqlite3_step(statement)
                while step == SQLITE_ROW { step = sqlite3_step(statement) }
                if step != SQLITE_DONE { throw SQLiteError(connection: handle, code: step, sql: text()) }
            }
        }
    }

    /// Runs one statement with arguments (through the statement cache).
    package func execute(_ sql: String, arguments: [SQLiteValue]) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// Every row of a query, as values.
    package func rows(_ sql: String, arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        return try statement.allRows()
    }

    /// The first column of the first row, or nil when there is no row.
    package func scalar(_ sql: String, arguments: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        var result: SQLiteValue?
        if try statement.step() { result = statement.value(at: 0) }
        try statement.reset()
        return result
    }

    /// The first column of the first row as text, or nil when there is no row or it is NULL.
    package func scalarText(_ sql: String, arguments: [SQLiteValue] = []) throws -> String? {
        switch try scalar(sql, arguments: arguments) {
        case .text(let s)?: return s
        case .integer(let i)?: return String(i)
        case .real(let d)?: return String(d)
        default: return nil
        }
    }

    /// The first column of the first row as an integer, or nil when there is no row or it is NULL.
    package func scalarInt(_ sql: String, arguments: [SQLiteValue] = []) throws -> Int? {
        try scalar(sql, arguments: arguments)?.int64.map(Int.init)
    }

    // MARK: Connection state

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Rows changed since the connection opened.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// True between BEGIN and COMMIT/ROLLBACK.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    package func setBusyTimeout(milliseconds: Int) throws {
        try check(sqlite3_busy_timeout(handle, Int32(clamping: milliseconds)), sql: nil)
    }

    /// Sets the journal mode and checks SQLite took it (an in-memory database stays "memory").
    @discardableResult
    package func setJournalMode(_ mode: JournalMode) throws -> JournalMode {
        let sql = "PRAGMA journal_mode = \(mode.rawValue)"
        let result = try scalarText(sql)?.lowercased() ?? ""
        guard let actual = JournalMode(rawValue: result) else {
            throw SQLiteError(code: SQLITE_ERROR, message: "unexpected journal mode \"\(result)\"", sql: sql)
        }
        if actual != mode && !(actual == .memory && isInMemory) {
            throw SQLiteError(code: SQLITE_ERROR, message: "could not switch to journal mode \(mode.rawValue) (still \(result))", sql: sql)
        }
        return actual
    }

    package var journalMode: String {
        get throws { try scalarText("PRAGMA journal_mode") ?? "" }
    }

    private var isInMemory: Bool {
        guard let file = sqlite3_db_filename(handle, "main") else { return true }
        return file.pointee == 0
    }

    /// `PRAGMA user_version`: the schema version our migrations keep.
    package var userVersion: Int {
        get throws { try scalarInt("PRAGMA user_version") ?? 0 }
    }

    package func setUserVersion(_ version: Int) throws {
        try execute("PRAGMA user_version = \(Int32(clamping: version))")
    }

    /// `PRAGMA integrity_check`: ["ok"] for a sound database, else SQLite's list of problems.
    package func integrityCheck() throws -> [String] {
        try rows("PRAGMA integrity_check").map { $0.first?.text ?? "" }
    }
}

extension String {
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
