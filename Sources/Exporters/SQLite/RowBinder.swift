import CalSQLite

/// Where `SQLiteRowEncoding` puts a row's column values, in parameter order: a prepared SQLite statement, or
/// another sink's row buffer (the postgres sink's COPY text: CalPostgres). Values are bound in increasing
/// `index` order, one per column.
package protocol RowBinder {
    func bind(_ value: Int64, at index: Int) throws
    func bind(_ value: Int, at index: Int) throws
    func bind(_ value: Bool, at index: Int) throws
    func bind(_ value: String?, at index: Int) throws
    func bind(_ value: Double?, at index: Int) throws
    func bind(_ value: SQLiteValue, at index: Int) throws
    func bindNull(at index: Int) throws
    /// Text of at most `capacity` UTF-8 bytes, written by `write` (which returns how many it wrote).
    func bindText(at index: Int, capacity: Int, _ write: (UnsafeMutableRawBufferPointer) -> Int) throws
}

extension Statement: RowBinder {}
