import CSQLite

/// The one owner of a prepared `sqlite3_stmt`, finalized in `deinit`. Not Sendable.
///
/// A statement belongs to the `Database` that prepared it and must not outlive it (it refers to it
/// `unowned`, like GRDB's statements: using one after its database is gone traps instead of touching freed
/// memory). Parameters are numbered from 1, columns from 0, as in SQLite's C API.
///
/// Typical use: `bind` the parameters, then `run()` for a statement that returns no rows, or `step()` while it
/// returns true and read the columns of the current row. `reset()` makes it ready for the next execution.
package final class Statement {
    let handle: OpaquePointer
    package unowned let database: Database
    /// The SQL as prepared.
    package let sql: String
    /// Per parameter (index - 1), a buffer holding the bytes of the text last bound to it, or nil. Text is
    /// bound SQLITE_STATIC from here: SQLite reads it in place instead of copying it into a fresh allocation
    /// on every bind (which was most of a bind's cost). A buffer changes only when its own parameter is bound
    /// again, and is freed after `sqlite3_finalize`, so SQLite never sees freed or changed bytes.
    private var textBuffers: [UnsafeMutableRawBufferPointer?] = []

    init(database: Database, sql: String, persistent: Bool) throws {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = UInt32(persistent ? SQLITE_PREPARE_PERSISTENT : 0)
        let rc = sql.withCString { text in
            let rc = sqlite3_prepare_v3(database.handle, text, -1, flags, &statement, &tail)
            // Anything but whitespace and semicolons after the first statement would be silently ignored.
            if rc == SQLITE_OK, let tail, Statement.hasMoreSQL(tail) { return SQLITE_MISUSE }
            return rc
        }
        guard rc == SQLITE_OK, let statement else {
            if rc == SQLITE_MISUSE, statement != nil {
                sqlite3_finalize(statement)
                throw SQLiteError(code: SQLITE_MISUSE, message: "more than one statement in SQL given to prepare; use execute(_:) for scripts", sql: sql)
            }
            if rc == SQLITE_OK {
                throw SQLiteError(code: SQLITE_MISUSE, message: "no SQL statement to prepare (empty or only a comment)", sql: sql)
            }
            throw SQLiteError(connection: database.handle, code: rc, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
        parameterCount = Int(sqlite3_bind_parameter_count(statement))
    }

    deinit {
        // sqlite3_finalize returns the error of the last failed step, already reported by step(): nothing new.
        sqlite3_finalize(handle)
        for buffer in textBuffers { buffer?.deallocate() }
    }

    private static func hasMoreSQL(_ tail: UnsafePointer<CChar>) -> Bool {
        var p = tail
        while p.pointee != 0 {
            switch UInt8(bitPattern: p.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: ";"): p += 1
            default: return true
            }
        }
        return false
    }

    private func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(connection: database.handle, code: rc, sql: sql)
    }

    private func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw error(rc) }
    }

    // MARK: Parameters

    /// The number of parameters (the largest index for numbered ones); fixed once prepared.
    package let parameterCount: Int

    /// The index of a named parameter (":uid", "$uid", "@uid"), or nil.
    package func parameterIndex(_ name: String) -> Int? {
        let i = sqlite3_bind_parameter_index(handle, name)
        return i == 0 ? nil : Int(i)
    }

    package func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    package func bind(_ value: Int, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), Int64(value)))
    }

    package func bind(_ value: Bool, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value ? 1 : 0))
    }

    package func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    /// Binds text. The string need not outlive the call: its UTF-8 bytes are copied into this parameter's
    /// own buffer, which SQLite reads in place (see `textBuffers`).
    package func bind(_ value: String, at index: Int) throws {
        var text = value
        let rc = text.withUTF8 { bytes in bindText(UnsafeRawBufferPointer(bytes), at: index) }
        try check(rc)
    }

    private func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int32 {
        bindText(at: index, capacity: bytes.count) { buffer in
            if let source = bytes.baseAddress, bytes.count > 0 { buffer.baseAddress!.copyMemory(from: source, byteCount: bytes.count) }
            return bytes.count
        }
    }

    /// Binds text that `write` puts straight into this parameter's buffer (see `textBuffers`): it gets room for
    /// at least `capacity` bytes and returns how many UTF-8 bytes it wrote (at most `capacity`). No String is
    /// made: for values formatted per row (dates, times, keys) this is a bind without a heap allocation.
    package func bindText(at index: Int, capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) throws {
        try check(bindText(at: index, capacity: capacity, write))
    }

    private func bindText(at index: Int, capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) -> Int32 {
        // An index SQLite rejects gets its SQLITE_RANGE, and a statement that is running (stepped, not reset)
        // its SQLITE_MISUSE, from SQLite, with no buffer touched: the current binding stays valid.
        guard index >= 1, index <= parameterCount, sqlite3_stmt_busy(handle) == 0 else {
            return sqlite3_bind_text64(handle, Int32(index), "", 0, calpipe_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        if textBuffers.count < index { textBuffers.append(contentsOf: repeatElement(nil, count: index - textBuffers.count)) }
        var old: UnsafeMutableRawBufferPointer?
        var buffer: UnsafeMutableRawBufferPointer
        if let current = textBuffers[index - 1], current.count >= capacity {
            buffer = current
        } else {
            // At least 1 byte, so an empty string binds as '' (a non-nil pointer) and not as NULL.
            old = textBuffers[index - 1]
            buffer = .allocate(byteCount: max(32, capacity + capacity / 2), alignment: 1)
            textBuffers[index - 1] = buffer
        }
        // Only the first `capacity` bytes are offered, so a writer that respects its room stays in the buffer.
        let count = min(capacity, max(0, write(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<capacity]))))
        let rc = sqlite3_bind_text64(handle, Int32(index), buffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(count),
                                     nil /* SQLITE_STATIC */, UInt8(SQLITE_UTF8))
        // The old buffer is free to go only now that SQLite holds the new one for this parameter.
        old?.deallocate()
        return rc
    }

    /// Binds a blob; SQLite copies it.
    package func bind(_ value: [UInt8], at index: Int) throws {
        let rc = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob64(handle, Int32(index), bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, UInt64(bytes.count),
                                calpipe_sqlite_transient())
        }
        try check(rc)
    }

    package func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    package func bind(_ value: SQLiteValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let i): try bind(i, at: index)
        case .real(let d): try bind(d, at: index)
        case .text(let s): try bind(s, at: index)
        case .blob(let b): try bind(b, at: index)
        }
    }

    // Concrete optional forms: no generic dispatch on the hot path.
    package func bind(_ value: String?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    package func bind(_ value: Int64?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    package func bind(_ value: Int?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    package func bind(_ value: Double?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Binds any bindable value; nil binds NULL.
    package func bind<T: SQLiteBindable>(_ value: T?, at index: Int) throws {
        guard let value else { return try bindNull(at: index) }
        try bind(value.sqliteValue, at: index)
    }

    /// Binds `values` to parameters 1, 2, ...; their number must match the statement's parameters.
    package func bind(_ values: [SQLiteValue]) throws {
        guard values.count == parameterCount else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(values.count) argument\(values.count == 1 ? "" : "s") for \(parameterCount) parameter\(parameterCount == 1 ? "" : "s")", sql: sql)
        }
        for (i, v) in values.enumerated() { try bind(v, at: i + 1) }
    }

    /// Sets every parameter back to NULL.
    package func clearBindings() throws {
        try check(sqlite3_clear_bindings(handle))
    }

    // MARK: Execution

    /// Advances to the next row: true when a row is available, false when the statement is done.
    /// On failure the statement is reset (so it can be reused) and the error thrown.
    @discardableResult
    package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = error(rc)
            // sqlite3_reset repeats the step's error code; the error is the one just captured.
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Makes the statement ready to run again; bindings are kept.
    package func reset() throws {
        try check(sqlite3_reset(handle))
    }

    /// Runs a statement that returns no rows (INSERT, UPDATE, DDL...) to completion, then resets it.
    /// Throws if it returns a row, which would mean the caller meant to query.
    package func run() throws {
        if try step() {
            try reset()
            throw SQLiteError(code: SQLITE_MISUSE, message: "statement returned rows; read them with step()", sql: sql)
        }
        try reset()
    }

    /// Binds `values`, runs to completion, resets.
    package func run(_ values: [SQLiteValue]) throws {
        try bind(values)
        try run()
    }

    /// Steps through every row, calling `body` with the statement positioned on it, then resets.
    package func forEachRow(_ body: (Statement) throws -> Void) throws {
        do {
            while try step() { try body(self) }
        } catch {
            try? reset()
            throw error
        }
        try reset()
    }

    /// Every row as values, then resets.
    package func allRows() throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try forEachRow { s in rows.append((0..<s.columnCount).map { s.value(at: $0) }) }
        return rows
    }

    // MARK: Columns of the current row

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    package func columnName(at index: Int) -> String {
        guard let name = sqlite3_column_name(handle, Int32(index)) else { return "" }
        return String(cString: name)
    }

    package var columnNames: [String] { (0..<columnCount).map(columnName(at:)) }

    package func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// The column as an integer (0 for NULL, SQLite's conversion for other types).
    package func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    package func int(at index: Int) -> Int { Int(sqlite3_column_int64(handle, Int32(index))) }
    package func bool(at index: Int) -> Bool { sqlite3_column_int64(handle, Int32(index)) != 0 }
    package func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    package func optionalInt64(at index: Int) -> Int64? { isNull(at: index) ? nil : int64(at: index) }
    package func optionalInt(at index: Int) -> Int? { isNull(at: index) ? nil : int(at: index) }
    package func optionalDouble(at index: Int) -> Double? { isNull(at: index) ? nil : double(at: index) }

    /// The column as text, nil for NULL.
    package func text(at index: Int) -> String? {
        let i = Int32(index)
        guard sqlite3_column_type(handle, i) != SQLITE_NULL, let bytes = sqlite3_column_text(handle, i) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Calls `body` with the column's text as UTF-8 bytes (empty for NULL) where SQLite keeps them, valid only
    /// during the call: no String is made (hot loops that only hash or compare the text).
    package func withTextBytes<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let i = Int32(index)
        guard let bytes = sqlite3_column_text(handle, i) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, i))))
    }

    /// The column as bytes, nil for NULL.
    package func blob(at index: Int) -> [UInt8]? {
        let i = Int32(index)
        guard sqlite3_column_type(handle, i) != SQLITE_NULL else { return nil }
        let pointer = sqlite3_column_blob(handle, i)
        let count = Int(sqlite3_column_bytes(handle, i))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column with its storage class.
    package func value(at index: Int) -> SQLiteValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        case SQLITE_BLOB: return .blob(blob(at: index) ?? [])
        default: return .null
        }
    }
}
