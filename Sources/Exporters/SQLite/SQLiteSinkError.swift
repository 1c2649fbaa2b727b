import CalSQLite

/// A failure of the sqlite sink, naming the database file. Nothing was written when one is thrown: the run's
/// transaction is rolled back.
package struct SQLiteSinkError: Error, CustomStringConvertible, Equatable {
    /// The database path as written in the pipeline.
    package let path: String
    package let message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { "sqlite \(path): \(message)" }

    static func busy(path: String, waitedMilliseconds: Int) -> SQLiteSinkError {
        SQLiteSinkError(path: path, message: "another program is writing this database; gave up after waiting \(waitedText(waitedMilliseconds)) (option busy_timeout_ms); nothing was written")
    }

    /// "300 ms", "30 s", "2 min".
    static func waitedText(_ ms: Int) -> String {
        if ms < 1000 || ms % 1000 != 0 { return "\(ms) ms" }
        if ms >= 120_000 && ms % 60_000 == 0 { return "\(ms / 60_000) min" }
        return "\(ms / 1000) s"
    }

    static func newerSchema(path: String, version: Int) -> SQLiteSinkError {
        SQLiteSinkError(path: path, message: "the database has schema version \(version), newer than this calpipe knows (\(SQLiteSchema.currentVersion)); use a newer calpipe or another file")
    }

    /// A database calpipe did not make (checked before anything is changed in it).
    static func foreign(path: String, tables: [String]) -> SQLiteSinkError {
        let shown = tables.prefix(4).joined(separator: ", ") + (tables.count > 4 ? ", ..." : "")
        return SQLiteSinkError(path: path, message: "this database was not made by calpipe (it has the tables \(shown)); nothing was changed; use another file")
    }

    /// Wraps an error from the SQLite layer (or passes ours through), in our words: SQLite's own text never
    /// reaches the user (docs/sqlite-schema.md, "Errors").
    static func wrap(_ error: Error, path: String, busyTimeout: Int) -> Error {
        switch error {
        case let e as SQLiteSinkError: return e
        case SQLiteSchema.MigrationError.newerThanKnown(let v): return newerSchema(path: path, version: v)
        case let e as SQLiteError where e.isBusy: return busy(path: path, waitedMilliseconds: busyTimeout)
        case let e as SQLiteError: return SQLiteSinkError(path: path, message: explain(e))
        default: return error
        }
    }

    /// One line a person can act on for an SQLite result code.
    static func explain(_ e: SQLiteError) -> String {
        switch e.code {
        case 11: // SQLITE_CORRUPT
            return "the database file is damaged; restore it from a backup, or move it aside and run the pipeline again to rebuild it"
        case 26: // SQLITE_NOTADB
            return "the file is damaged or is not a SQLite database; nothing was written (move it aside to start a new one)"
        case 8: // SQLITE_READONLY
            return "cannot write: the database is read-only (check the file's and its folder's permissions); nothing was written"
        case 14: // SQLITE_CANTOPEN
            return "cannot open or create the file (is its folder missing or not writable?); nothing was written"
        case 3, 23: // SQLITE_PERM, SQLITE_AUTH
            return "permission denied; nothing was written"
        case 13: // SQLITE_FULL
            return "the disk is full; nothing was written"
        case 10: // SQLITE_IOERR
            return "an input/output error occurred while writing; nothing was written"
        case 7: // SQLITE_NOMEM
            return "out of memory; nothing was written"
        default:
            return "unexpected database error (SQLite code \(e.extendedCode)); nothing was written"
        }
    }
}
