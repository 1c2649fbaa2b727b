import CSQLite

/// An error reported by SQLite: its result code, SQLite's own message and the SQL that failed.
///
/// `code` is the primary result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, ...); `extendedCode` the
/// extended one when SQLite gave it (`SQLITE_CONSTRAINT_UNIQUE` = 2067), else equal to `code`.
public struct SQLiteError: Error, CustomStringConvertible, Equatable, Sendable {
    public let code: Int32
    public let extendedCode: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code & 0xff
        self.extendedCode = code
        self.message = message
        self.sql = sql
    }

    /// The error the connection reports right now (after a failed call), with the SQL that failed.
    init(connection: OpaquePointer, code: Int32, sql: String?) {
        let extended = sqlite3_extended_errcode(connection)
        // The connection's errcode may belong to another call when `code` came from elsewhere: prefer `code`.
        let full = (extended & 0xff) == (code & 0xff) ? extended : code
        self.init(code: full, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// What went wrong, in our words, for messages ("the disk is full"): SQLite's own text (`message`,
    /// `description`) is for debug logs only, never for a user.
    public var reason: String {
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED: return "the database is locked by another program"
        case SQLITE_CORRUPT: return "the database file is damaged"
        case SQLITE_NOTADB: return "the file is damaged or is not a SQLite database"
        case SQLITE_READONLY: return "the database is read-only"
        case SQLITE_CANTOPEN: return "cannot open or create the file"
        case SQLITE_PERM, SQLITE_AUTH: return "permission denied"
        case SQLITE_FULL: return "the disk is full"
        case SQLITE_IOERR: return "an input/output error occurred"
        case SQLITE_NOMEM: return "out of memory"
        case SQLITE_CONSTRAINT: return "a constraint failed"
        default: return "unexpected database error (SQLite code \(extendedCode))"
        }
    }

    /// Another connection holds the lock and the busy timeout ran out.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }
}
