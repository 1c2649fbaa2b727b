extension SQLiteSchema {
    /// The table that stores day entries from version 11 (issue 30, "drop what no query needs"; docs/sqlite-schema.md,
    /// "Why day_entries is a view"). `day_entries` is a view over it with version 10's columns and rows.
    static let dayTable = "day_rows"

    /// Version 11: day entries are stored without what can be computed from what they keep. `start_local` and
    /// `end_local` are the UTC instants plus the offset of the pipeline's zone at them (`start_offset`, and
    /// `end_offset` only where it differs from the start's: NULL otherwise), and `sort_key` is the all-day flag and
    /// the start instant: `day_entries` computes all three. Only a value the computation cannot give (a year
    /// outside 1 to 9999; a sort key an older calpipe wrote otherwise) is stored, in `start_local_text`,
    /// `end_local_text` or `sort_key_text` (NULL for every row this calpipe writes in those years). The agenda's
    /// index holds the day only (a day's entries are sorted when read). Ids, keys and the folded occurrence columns
    /// stay as version 10 made them. The old table is renamed first, so that SQLite points the foreign key of
    /// `forecasts` at the new name (SQLite 3.26+), which the new table then takes.
    static let version11 = """
        DROP VIEW agenda;
        DROP VIEW occurrences;
        ALTER TABLE day_entries RENAME TO \(dayTable);
        CREATE TABLE day_rows_v11 (
            id INTEGER PRIMARY KEY,
            occurrence_id INTEGER NOT NULL,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            instance TEXT NOT NULL,
            day TEXT NOT NULL,
            part INTEGER NOT NULL,
            parts INTEGER NOT NULL,
            all_day INTEGER NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            start_offset INTEGER,
            end_offset INTEGER,
            removed_run INTEGER,
            occurrence_all_day INTEGER,
            occurrence_start_utc INTEGER,
            occurrence_end_utc INTEGER,
            occurrence_start_local TEXT,
            occurrence_end_local TEXT,
            occurrence_removed_run INTEGER,
            start_local_text TEXT,
            end_local_text TEXT,
            sort_key_text TEXT
        );
        INSERT INTO day_rows_v11
            SELECT id, occurrence_id, event_id, instance, day, part, parts, all_day, start_utc, end_utc,
                   start_offset, CASE WHEN end_offset IS start_offset THEN NULL ELSE end_offset END, removed_run,
                   occurrence_all_day, occurrence_start_utc, occurrence_end_utc, occurrence_start_local, occurrence_end_local,
                   occurrence_removed_run,
                   CASE WHEN \(localText("start_utc", offset: "start_offset")) IS start_local THEN NULL ELSE start_local END,
                   CASE WHEN \(localText("end_utc", offset: "end_offset")) IS end_local THEN NULL ELSE end_local END,
                   CASE WHEN \(computedSortKey) IS sort_key THEN NULL ELSE sort_key END
            FROM (SELECT *, \(storedOffset("start_local", "start_utc")) AS start_offset, \(storedOffset("end_local", "end_utc")) AS end_offset
                  FROM \(dayTable))
            ORDER BY id;
        DROP TABLE \(dayTable);
        ALTER TABLE day_rows_v11 RENAME TO \(dayTable);
        \(narrowIndexes.map { $0.sql + ";" }.joined(separator: "\n"))
        \(dayEntriesView)
        \(occurrencesView)
        \(agendaViewV10)
        """

    /// The indexes of version 11 that a bulk load drops and builds again before it commits: the unique key of day
    /// entries (as version 10's) and the agenda's index by day alone.
    static let narrowIndexes: [(name: String, sql: String)] = [
        ("day_entries_key", "CREATE UNIQUE INDEX day_entries_key ON \(dayTable) (event_id, instance, day)"),
        ("day_entries_by_day", "CREATE INDEX day_entries_by_day ON \(dayTable) (day)"),
    ]

    /// The offset a migrated row's local text has from its UTC instant, when SQLite reads the text (else NULL).
    private static func storedOffset(_ local: String, _ utc: String) -> String {
        "CAST(strftime('%s', \(local)) AS INTEGER) - \(utc)"
    }

    /// "YYYY-MM-DDTHH:MM:SS" of the instant `utc` shifted by `offset` seconds (NULL when the offset is).
    static func localText(_ utc: String, offset: String) -> String {
        "strftime('%Y-%m-%dT%H:%M:%S', \(utc) + \(offset), 'unixepoch')"
    }

    /// A row's start and end as local text, from the columns of `dayTable` (qualified by `table` when given).
    static func startLocal(of table: String = "") -> String {
        let t = table.isEmpty ? "" : table + "."
        return "coalesce(\(t)start_local_text, \(localText(t + "start_utc", offset: t + "start_offset")))"
    }

    static func endLocal(of table: String = "") -> String {
        let t = table.isEmpty ? "" : table + "."
        return "coalesce(\(t)end_local_text, \(localText(t + "end_utc", offset: "coalesce(\(t)end_offset, \(t)start_offset)")))"
    }

    /// `SQLiteRowEncoding.sortKey` in SQL: "0" for all-day entries, else "1", then the start instant as 12 digits
    /// (seconds from year 0, clamped).
    private static let computedSortKey = """
        (CASE WHEN all_day THEN '0' ELSE '1' END || printf('%012d', max(0, min(999999999999, start_utc + 62167219200))))
        """

    /// `day_entries` as version 10 stored it: the same columns in the same order, and the same rows.
    static let dayEntriesView = """
        CREATE VIEW day_entries AS
        SELECT r.id, r.occurrence_id, r.event_id, r.instance, r.day, r.part, r.parts, r.all_day,
            \(startLocal(of: "r")) AS start_local, \(endLocal(of: "r")) AS end_local, r.start_utc, r.end_utc,
            coalesce(r.sort_key_text, \(computedSortKey.replacingOccurrences(of: "all_day", with: "r.all_day").replacingOccurrences(of: "start_utc", with: "r.start_utc"))) AS sort_key,
            r.removed_run, r.occurrence_all_day, r.occurrence_start_utc, r.occurrence_end_utc, r.occurrence_start_local,
            r.occurrence_end_local, r.occurrence_removed_run
        FROM \(dayTable) r;
        """
}
