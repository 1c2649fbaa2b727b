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
    let insertDay: Statement
    let upsertForecast: Statement
    let deleteForecast: Statement
    let sourceHasRows: Statement

    /// The columns of a day entry row in bind order (`SQLiteSchema.dayTable`, schema 12): id, occurrence id (the id of
    /// the occurrence's first row; NULL on that row), the day's values from `event_id`
    /// (`SQLiteRowEncoding.bindNarrowDayValues`, parameters 3 to 12), the key's `instance_key` and `day`, the
    /// occurrence's values where they differ from the day's (parameters 15 to 19), and the instance's text where its
    /// key cannot give it (20).
    static let dayColumns = ["id", "occurrence_id"] + SQLiteRowEncoding.narrowDayColumns + ["instance_key", "day"]
        + SQLiteRowEncoding.foldedOccurrenceColumns + ["instance_text"]

    /// What an upsert of a day entry compares and updates: all but the key and the ids.
    static let dayUpdatedColumns = Array(SQLiteRowEncoding.narrowDayColumns.dropFirst()) + SQLiteRowEncoding.foldedOccurrenceColumns

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
        insertDay = try db.prepare(Self.insertSQL(table: SQLiteSchema.dayTable, columns: Self.dayColumns))
        upsertForecast = try db.prepare(Self.upsertSQL(
            table: "forecasts", key: ["day_entry_id"], content: SQLiteRowEncoding.forecastContentColumns, removable: false,
            returning: "day_entry_id"))
        deleteForecast = try db.prepare("DELETE FROM forecasts WHERE day_entry_id = ?")
        sourceHasRows = try db.prepare("SELECT EXISTS (SELECT 1 FROM events WHERE source = ?)")
    }

    /// The keyed writes of day entries and the lookups of occurrences: they use the unique key of day entries,
    /// which a bulk load drops, so they are prepared once the key exists (`SQLiteSyncWriter.keyedChildren()`).
    struct KeyedChildren {
        /// An occurrence's id and values (every day entry of it carries them), and whether it is marked removed.
        let selectOccurrence: Statement
        /// Writes an occurrence's values (parameters 3 to 7) into every day entry of it and unmarks it.
        let updateOccurrence: Statement
        let upsertDay: Statement
        let selectDay: Statement

        init(_ db: Database) throws {
            let t = SQLiteSchema.dayTable
            let value = { (column: String) in SQLiteSchema.occurrenceValue(column, of: t) }
            selectOccurrence = try db.prepare("""
                SELECT coalesce(occurrence_id, id), \(value("all_day")), \(value("start_utc")), \(value("end_utc")),
                    coalesce(occurrence_start_local, \(SQLiteSchema.startLocal(of: t))), coalesce(occurrence_end_local, \(SQLiteSchema.endLocal(of: t))),
                    occurrence_removed_run
                FROM \(t) WHERE event_id = ?1 AND instance_key = ?2 LIMIT 1
                """)
            updateOccurrence = try db.prepare("""
                UPDATE \(SQLiteSchema.dayTable) SET occurrence_all_day = nullif(?3, all_day), occurrence_start_utc = nullif(?4, start_utc),
                    occurrence_end_utc = nullif(?5, end_utc), occurrence_start_local = nullif(?6, \(SQLiteSchema.startLocal())),
                    occurrence_end_local = nullif(?7, \(SQLiteSchema.endLocal())), occurrence_removed_run = NULL
                WHERE event_id = ?1 AND instance_key = ?2
                """)
            let columns = SQLiteSyncStatements.dayUpdatedColumns
            upsertDay = try db.prepare(SQLiteSyncStatements.insertSQL(table: SQLiteSchema.dayTable, columns: SQLiteSyncStatements.dayColumns) + """

                ON CONFLICT (event_id, instance_key, day) DO UPDATE SET \(columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")), removed_run = NULL
                WHERE \(columns.map { "\(SQLiteSchema.dayTable).\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")) OR \(SQLiteSchema.dayTable).removed_run IS NOT NULL
                RETURNING id
                """)
            selectDay = try db.prepare("SELECT id FROM \(SQLiteSchema.dayTable) WHERE event_id = ?1 AND instance_key = ?2 AND day = ?3")
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
