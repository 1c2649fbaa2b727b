import CalSQLite

/// The statements of the sqlite sink's write path, prepared once per run (not looked up by SQL text per row).
struct SQLiteSyncStatements {
    let insertEvent: Statement
    let upsertEvent: Statement
    let selectEvent: Statement
    let insertAttendee: Statement
    let markSeenEvent: Statement
    let markSeenOccurrence: Statement
    let markSeenDay: Statement
    let insertOccurrence: Statement
    let insertDay: Statement
    let upsertForecast: Statement
    let deleteForecast: Statement
    let sourceHasRows: Statement

    init(_ db: Database) throws {
        // The hashes are compared like the content: a row of an older file (no hash yet) gets its hashes.
        let content = SQLiteRowEncoding.eventContentColumns + ["content_hash", "text_hash"]
        let e = ["source", "uid", "recurrence_id"] + content + ["origin", "created_run", "updated_run"]
        insertEvent = try db.prepare(Self.insertSQL(table: "events", columns: e))
        upsertEvent = try db.prepare(Self.upsertSQL(
            table: "events", key: ["source", "uid", "recurrence_id"], content: content,
            alsoSet: ["origin", "updated_run"], extraColumns: ["origin", "created_run", "updated_run"], removable: true))
        selectEvent = try db.prepare("SELECT id FROM events WHERE source = ?1 AND uid = ?2 AND recurrence_id = ?3")
        insertAttendee = try db.prepare("INSERT INTO attendees (event_id, position, name, email, role, status, other_parameters) VALUES (?, ?, ?, ?, ?, ?, ?)")
        markSeenEvent = try db.prepare("INSERT OR IGNORE INTO temp.seen_events (id) VALUES (?)")
        markSeenOccurrence = try db.prepare("INSERT OR IGNORE INTO temp.seen_occurrences (id) VALUES (?)")
        markSeenDay = try db.prepare("INSERT OR IGNORE INTO temp.seen_days (id) VALUES (?)")
        let o = ["event_id", "instance"] + SQLiteRowEncoding.occurrenceContentColumns
        insertOccurrence = try db.prepare(Self.insertSQL(table: "occurrences", columns: o))
        let d = ["occurrence_id", "day"] + SQLiteRowEncoding.dayContentColumns
        insertDay = try db.prepare(Self.insertSQL(table: "day_entries", columns: d))
        upsertForecast = try db.prepare(Self.upsertSQL(
            table: "forecasts", key: ["day_entry_id"], content: SQLiteRowEncoding.forecastContentColumns, removable: false,
            returning: "day_entry_id"))
        deleteForecast = try db.prepare("DELETE FROM forecasts WHERE day_entry_id = ?")
        sourceHasRows = try db.prepare("SELECT EXISTS (SELECT 1 FROM events WHERE source = ?)")
    }

    /// The keyed writes of occurrences and day entries: their upserts name the unique keys, which a bulk load
    /// drops, so they are prepared once the keys exist (`SQLiteSyncWriter.keyedChildren()`).
    struct KeyedChildren {
        let upsertOccurrence: Statement
        let selectOccurrence: Statement
        let upsertDay: Statement
        let selectDay: Statement

        init(_ db: Database) throws {
            upsertOccurrence = try db.prepare(SQLiteSyncStatements.upsertSQL(
                table: "occurrences", key: ["event_id", "instance"], content: SQLiteRowEncoding.occurrenceContentColumns, removable: true))
            selectOccurrence = try db.prepare("SELECT id FROM occurrences WHERE event_id = ? AND instance = ?")
            upsertDay = try db.prepare(SQLiteSyncStatements.upsertSQL(
                table: "day_entries", key: ["occurrence_id", "day"], content: SQLiteRowEncoding.dayContentColumns, removable: true))
            selectDay = try db.prepare("SELECT id FROM day_entries WHERE occurrence_id = ? AND day = ?")
        }
    }

    static func insertSQL(table: String, columns: [String]) -> String {
        let placeholders = (1...columns.count).map { "?\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// INSERT, or on a key conflict UPDATE only when a content column differs (or the row was marked removed),
    /// RETURNING the id of a row inserted or changed: no row back means "present and unchanged".
    static func upsertSQL(table: String, key: [String], content: [String], alsoSet: [String] = [], extraColumns: [String] = [],
                          removable: Bool, returning: String = "id") -> String {
        let sets = (content + alsoSet).map { "\($0) = excluded.\($0)" } + (removable ? ["removed_run = NULL"] : [])
        var differs = content.map { "\(table).\($0) IS NOT excluded.\($0)" }
        if removable { differs.append("\(table).removed_run IS NOT NULL") }
        return insertSQL(table: table, columns: key + content + extraColumns) + """

            ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(sets.joined(separator: ", "))
            WHERE \(differs.joined(separator: " OR "))
            RETURNING \(returning)
            """
    }
}
