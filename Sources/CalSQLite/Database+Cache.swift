import CSQLite

// Temporary bridge for the HTTP cache (Fetch target) until the typed statement API of the sqlite branch
// reaches main: the same names and shapes (`SQLiteValue`, `execute(_:arguments:)`, `rows(_:arguments:)`),
// so this file is simply deleted when main brings the real ones.

/// One SQLite value, as bound to a parameter or read from a column.
public enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension Database {
    /// Runs one statement with arguments.
    public func execute(_ sql: String, arguments: [SQLiteValue]) throws {
        _ = try rows(sql, arguments: arguments)
    }

    /// Every row of a query, as values.
    public func rows(_ sql: String, arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        defer { sqlite3_finalize(statement) }
        for (i, value) in arguments.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let v): code = sqlite3_bind_int64(statement, index, v)
            case .real(let v): code = sqlite3_bind_double(statement, index, v)
            case .text(let v): code = sqlite3_bind_text(statement, index, v, -1, calpipe_sqlite_transient())
            case .blob(let v):
                code = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), calpipe_sqlite_transient()) }
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql) }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw SQLiteError(code: step, message: String(cString: sqlite3_errmsg(handle)), sql: sql) }
            var row: [SQLiteValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let bytes = sqlite3_column_blob(statement, column), count > 0 {
                        row.append(.blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count))))
                    } else {
                        row.append(.blob([]))
                    }
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }
}
