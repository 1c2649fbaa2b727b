extension SQLiteSchema {
    /// Version 10 (issue 30, a fresh load nearer the floor; docs/sqlite-schema.md, "Why occurrences are a view"): the
    /// occurrences are folded into their day entries. Each `day_entries` row carries its occurrence's key (`event_id`,
    /// `instance`) and the occurrence's values where they differ from the row's own (`occurrence_*`, NULL when equal:
    /// for an occurrence of one day, nearly all of them); `occurrences` becomes a view with the old table's columns
    /// and rows, read off the first day entry of each occurrence. The unique key of day entries is (`event_id`,
    /// `instance`, `day`), which also finds an occurrence's rows; `occurrences_key`, `occurrences_by_start` and
    /// the old `day_entries_key` go. An occurrence's id is the id of the first day entry written for it: the
    /// upgrade renumbers occurrences once that way (day entry and event ids are kept), so that a new occurrence's
    /// id (its first row's, above every row id) never meets an old one. An occurrence without any day entry (none
    /// is written since the sink needs `split`) has nothing to carry it and is not kept.
    static let version10 = """
        DROP VIEW agenda;
        CREATE TABLE day_entries_v10 (
            id INTEGER PRIMARY KEY,
            occurrence_id INTEGER NOT NULL,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            instance TEXT NOT NULL,
            day TEXT NOT NULL,
            part INTEGER NOT NULL,
            parts INTEGER NOT NULL,
            all_day INTEGER NOT NULL,
            start_local TEXT NOT NULL,
            end_local TEXT NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            sort_key TEXT NOT NULL,
            removed_run INTEGER,
            occurrence_all_day INTEGER,
            occurrence_start_utc INTEGER,
            occurrence_end_utc INTEGER,
            occurrence_start_local TEXT,
            occurrence_end_local TEXT,
            occurrence_removed_run INTEGER
        );
        INSERT INTO day_entries_v10
            SELECT d.id, (SELECT min(x.id) FROM day_entries x WHERE x.occurrence_id = d.occurrence_id), d.event_id, o.instance, d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local,
                   d.start_utc, d.end_utc, d.sort_key, d.removed_run,
                   nullif(o.all_day, d.all_day), nullif(o.start_utc, d.start_utc), nullif(o.end_utc, d.end_utc),
                   nullif(o.start_local, d.start_local), nullif(o.end_local, d.end_local), o.removed_run
            FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id
            ORDER BY d.id;
        DROP TABLE day_entries;
        DROP TABLE occurrences;
        ALTER TABLE day_entries_v10 RENAME TO day_entries;
        \(foldedIndexes.map { $0.sql + ";" }.joined(separator: "\n"))
        \(occurrencesView)
        \(agendaViewV10)
        """

    /// The indexes of version 10 that a bulk load drops and builds again before it commits.
    static let foldedIndexes: [(name: String, sql: String)] = [
        ("day_entries_key", "CREATE UNIQUE INDEX day_entries_key ON day_entries (event_id, instance, day)"),
        ("day_entries_by_day", "CREATE INDEX day_entries_by_day ON day_entries (day, sort_key)"),
    ]

    /// The day entry columns an occurrence's values are read from: the `occurrence_` column when set, else the
    /// row's own (equal values are stored once).
    static func occurrenceValue(_ column: String, of table: String = "d") -> String {
        "coalesce(\(table).occurrence_\(column), \(table).\(column))"
    }

    /// `occurrences` as readers knew the table (columns and rows): one row per occurrence, from its first day.
    static let occurrencesView = """
        CREATE VIEW occurrences AS
        SELECT d.occurrence_id AS id, d.event_id, d.instance, \(occurrenceValue("all_day")) AS all_day,
            \(occurrenceValue("start_utc")) AS start_utc, \(occurrenceValue("end_utc")) AS end_utc,
            \(occurrenceValue("start_local")) AS start_local, \(occurrenceValue("end_local")) AS end_local,
            d.occurrence_removed_run AS removed_run
        FROM day_entries d
        WHERE NOT EXISTS (SELECT 1 FROM day_entries x WHERE x.event_id = d.event_id AND x.instance = d.instance AND x.day < d.day);
        """

    /// The `agenda` view of version 10: version 8's columns, the occurrence's read from the day entry.
    static let agendaViewV10 = agendaViewV8
        .replacingOccurrences(of: "JOIN occurrences o ON o.id = d.occurrence_id\n", with: "")
        .replacingOccurrences(of: "o.instance", with: "d.instance")
        .replacingOccurrences(of: "o.removed_run IS NULL", with: "d.occurrence_removed_run IS NULL")
}
