import CalSQLite

/// A failure of the sqlite sink, naming the database file. Nothing was written when one is thrown: the run's
/// transaction is rolled back.
public struct SQLiteSinkError: Error, CustomStringConvertible, Equatable {
    /// The database path as written in the pipeline.
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "sqlite \(path): \(message)" }

    static func busy(path: String, waitedMilliseconds: Int) -> SQLiteSinkError {
        SQLiteSinkError(path: path, message: "another calpipe run is writing this database; gave up after waiting \(waitedMilliseconds) ms (option busy_timeout_ms); nothing was written")
    }

    static func newerSchema(path: String, version: Int) -> SQLiteSinkError {
        SQLiteSinkError(path: path, message: "the database has schema version \(version), newer than this calpipe knows (\(SQLiteSchema.currentVersion)); use a newer calpipe or another file")
    }

    /// Wraps an error from the SQLite layer (or passes ours through).
    static func wrap(_ error: Error, path: String, busyTimeout: Int) -> Error {
        switch error {
        case let e as SQLiteSinkError: return e
        case SQLiteSchema.MigrationError.newerThanKnown(let v): return newerSchema(path: path, version: v)
        case let e as SQLiteError where e.isBusy: return busy(path: path, waitedMilliseconds: busyTimeout)
        case let e as SQLiteError where e.code == 26: // SQLITE_NOTADB
            return SQLiteSinkError(path: path, message: "not a SQLite database (\(e.message))")
        case let e as SQLiteError where e.code == 11: // SQLITE_CORRUPT
            return SQLiteSinkError(path: path, message: "the database file is damaged; restore it from a backup, or move it aside and run the pipeline again to rebuild it")
        case let e as SQLiteError: return SQLiteSinkError(path: path, message: e.description)
        default: return error
        }
    }
}
