import CalSQLite
import Pipeline

/// The sqlite sink's and the agenda reader's problems, naming the database as the sink's label does
/// (`sqlite agenda.db: ...`). Nothing was written when one is thrown: the run's transaction is rolled back.
extension CalpipeError {
    static func sqlite(_ path: String, _ message: String, cause: (any Error)? = nil) -> CalpipeError {
        CalpipeError(message, file: "sqlite " + path, cause: cause)
    }

    static func sqliteBusy(path: String, waitedMilliseconds: Int) -> CalpipeError {
        .sqlite(path, "another program is writing this database; gave up after waiting \(RunLock.waitedText(waitedMilliseconds)) (option busy_timeout_ms); nothing was written")
    }

    /// Without the file: `sqlite(wrapping:)` adds it.
    static func newerSchema(version: Int) -> CalpipeError {
        CalpipeError("the database has schema version \(version), newer than this calpipe knows (\(SQLiteSchema.currentVersion)); use a newer calpipe or another file")
    }

    /// A database calpipe did not make (checked before anything is changed in it).
    static func foreignDatabase(path: String, tables: [String]) -> CalpipeError {
        let shown = tables.prefix(4).joined(separator: ", ") + (tables.count > 4 ? ", ..." : "")
        return .sqlite(path, "this database was not made by calpipe (it has the tables \(shown)); nothing was changed; use another file")
    }

    /// Any error from the SQLite layer in our words, naming the database: SQLite's own text never reaches the
    /// user (docs/sqlite-schema.md, "Errors"). Ours pass through (given the file when they have none).
    /// `file`: the database's real path, to say why it cannot be opened (a folder in the way, a missing folder).
    static func sqlite(wrapping error: any Error, path: String, file: String? = nil, busyTimeout: Int) -> CalpipeError {
        switch error {
        case let e as SQLiteError where e.isBusy: return sqliteBusy(path: path, waitedMilliseconds: busyTimeout)
        case let e as SQLiteError where e.code == 14 && file != nil:  // SQLITE_CANTOPEN
            let why = FileProblem.writeProblem(path: file!, label: path, errorNumber: 0)
            guard why != FileProblem.reason(errorNumber: 0) else { return .sqlite(path, SQLiteError.explain(e), cause: e) }
            return .sqlite(path, "cannot write: \(why); nothing was written", cause: e)
        case let e as SQLiteError: return .sqlite(path, SQLiteError.explain(e), cause: e)
        default:
            let e = CalpipeError(error)
            return e.file == nil && e.kind == .failure ? e.inFile("sqlite " + path) : e
        }
    }
}

/// An SQLite error that escaped without a database's name is still said in our words.
extension SQLiteError: CalpipeErrorConvertible {
    package var calpipeError: CalpipeError { CalpipeError(Self.explain(self), cause: self) }

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
        default:
            return e.reason + "; nothing was written"
        }
    }
}
