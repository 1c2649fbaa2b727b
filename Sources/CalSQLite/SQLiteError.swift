import CSQLite

/// An error reported by SQLite: its result code, SQLite's own message and the SQL that failed.
public struct SQLiteError: Error, CustomStringConvertible, Equatable, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql))" }
        return text
    }
}
