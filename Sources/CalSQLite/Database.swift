import CSQLite

/// The one owner of a `sqlite3*` connection handle. Closed in `deinit`. Not Sendable: use it on one thread.
public final class Database {
    let handle: OpaquePointer

    /// Opens (and creates) the database at `path`; ":memory:" opens a private in-memory database.
    public init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(message): \(path)")
        }
        handle = db
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// The SQLite library version, e.g. "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Runs one or more SQL statements that return no rows.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: rc, message: message, sql: sql)
        }
    }

    /// Runs a query and returns the first column of the first row as text, or nil when there is no row.
    public func scalarText(_ sql: String) throws -> String? {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            guard let text = sqlite3_column_text(statement, 0) else { return nil }
            return String(cString: text)
        case SQLITE_DONE:
            return nil
        case let code:
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }
}
