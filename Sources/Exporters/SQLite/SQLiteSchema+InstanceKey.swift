extension SQLiteSchema {
    /// Version 12 (issue 30 item 6; docs/sqlite-schema.md, "Why the instance is a number"): a day row keeps its
    /// occurrence's instance as one integer, `instance_key` (`SQLiteRowEncoding.instanceKey`: the instant in the
    /// upper bits, the text's form and offset in the lower 12), not as 10 to 25 bytes of text twice (row and unique
    /// key); `day_entries` and `occurrences` compute the text. Only an instance the number cannot give back keeps
    /// its text in `instance_text` (a 28-character offset with seconds, a year outside 1 to 9999: then the key is
    /// a hash of the text, or, for a row migrated from an older version, minus its occurrence id). `occurrence_id` is
    /// NULL on an occurrence's first row (the occurrence's id is that row's id): the views read
    /// `coalesce(occurrence_id, id)`. The unique key is (`event_id`, `instance_key`, `day`).
    static let version12 = """
        DROP VIEW agenda;
        DROP VIEW occurrences;
        DROP VIEW day_entries;
        CREATE TABLE day_rows_v12 (
            id INTEGER PRIMARY KEY,
            occurrence_id INTEGER,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            instance_key INTEGER NOT NULL,
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
            sort_key_text TEXT,
            instance_text TEXT
        );
        INSERT INTO day_rows_v12
            SELECT id, nullif(occurrence_id, id), event_id, k, day, part, parts, all_day, start_utc, end_utc, start_offset, end_offset,
                   removed_run, occurrence_all_day, occurrence_start_utc, occurrence_end_utc, occurrence_start_local,
                   occurrence_end_local, occurrence_removed_run, start_local_text, end_local_text, sort_key_text,
                   CASE WHEN \(instanceText("k")) IS instance THEN NULL ELSE instance END
            FROM (SELECT *, CASE WHEN \(instanceText(parsedKey)) IS instance THEN \(parsedKey) ELSE -occurrence_id * 4096 + 4095 END AS k
                  FROM \(dayTable))
            ORDER BY id;
        DROP TABLE \(dayTable);
        ALTER TABLE day_rows_v12 RENAME TO \(dayTable);
        \(keyedIndexes.map { $0.sql + ";" }.joined(separator: "\n"))
        \(dayEntriesViewV12)
        \(occurrencesViewV12)
        \(agendaViewV10)
        """

    /// The indexes of version 12 that a bulk load drops and builds again before it commits.
    static let keyedIndexes: [(name: String, sql: String)] = [
        ("day_entries_key", "CREATE UNIQUE INDEX day_entries_key ON \(dayTable) (event_id, instance_key, day)"),
        ("day_entries_by_day", "CREATE INDEX day_entries_by_day ON \(dayTable) (day)"),
        // The rows that name their occurrence (an occurrence's later days): `occurrences` finds by this id an
        // occurrence whose earliest row is not the one that gave it its id. Only multi-day occurrences have such rows.
        ("day_entries_occurrence", "CREATE INDEX day_entries_occurrence ON \(dayTable) (occurrence_id) WHERE occurrence_id IS NOT NULL"),
    ]

    /// The instance text a key stands for (`SQLiteRowEncoding.instanceKey`), in SQL: the form in the low 12 bits
    /// (0 UTC "Z", 1 floating, 2 date, 3 none, 4 to 1684 an offset of -840 to +840 minutes), the instant above them.
    static func instanceText(_ key: String) -> String {
        let form = "(\(key) & 4095)", instant = "(\(key) >> 12)", minutes = "((\(key) & 4095) - 844)"
        return """
            (CASE \(form) WHEN 3 THEN '' WHEN 2 THEN strftime('%Y-%m-%d', \(instant), 'unixepoch') \
            WHEN 1 THEN strftime('%Y-%m-%dT%H:%M:%S', \(instant), 'unixepoch') \
            WHEN 0 THEN strftime('%Y-%m-%dT%H:%M:%SZ', \(instant), 'unixepoch') \
            ELSE strftime('%Y-%m-%dT%H:%M:%S', \(instant) + \(minutes) * 60, 'unixepoch') \
            || printf('%s%02d:%02d', CASE WHEN \(minutes) < 0 THEN '-' ELSE '+' END, abs(\(minutes)) / 60, abs(\(minutes)) % 60) END)
            """
    }

    /// A row's instance text, stored or computed.
    static func instance(of table: String) -> String {
        "coalesce(\(table).instance_text, \(instanceText(table + ".instance_key")))"
    }

    /// The key of the text in column `instance` of an older row (NULL when no form fits; the upgrade checks that
    /// the key gives the text back).
    private static let parsedKey = """
        (CASE WHEN instance = '' THEN 3
              WHEN length(instance) = 10 THEN CAST(strftime('%s', instance) AS INTEGER) * 4096 + 2
              WHEN length(instance) = 19 THEN CAST(strftime('%s', instance) AS INTEGER) * 4096 + 1
              WHEN length(instance) = 20 AND substr(instance, 20) = 'Z' THEN CAST(strftime('%s', substr(instance, 1, 19)) AS INTEGER) * 4096
              WHEN length(instance) = 25 THEN CAST(strftime('%s', instance) AS INTEGER) * 4096 + 844
                  + (CASE substr(instance, 20, 1) WHEN '-' THEN -1 ELSE 1 END)
                  * (CAST(substr(instance, 21, 2) AS INTEGER) * 60 + CAST(substr(instance, 24, 2) AS INTEGER))
         END)
        """

    /// `day_entries` as versions 10 and 11 gave it: the same columns in the same order, and the same rows.
    static let dayEntriesViewV12 = dayEntriesView
        .replacingOccurrences(of: "r.id, r.occurrence_id, r.event_id, r.instance,", with: "r.id, coalesce(r.occurrence_id, r.id) AS occurrence_id, r.event_id, \(instance(of: "r")) AS instance,")

    /// `occurrences` as readers knew the table (columns and rows): one row per occurrence, read off its first day
    /// row by the unique key. Two parts, so that the id is a column SQLite can seek, not `coalesce(occurrence_id,
    /// id)`: a join `day_entries d JOIN occurrences o ON o.id = d.occurrence_id` or a lookup `WHERE id = ?` would
    /// otherwise scan every day row for each row it looks up. An occurrence's first row holds NULL in
    /// `occurrence_id`, its id is the row's (found by the rowid); where the earliest row is another (a window moved
    /// back gained a day before it, or that row went), the earliest row names the id (found by `day_entries_occurrence`).
    static let occurrencesViewV12 = """
        CREATE VIEW occurrences AS
        \(occurrencesPart(id: "r.id", where: "r.occurrence_id IS NULL"))
        UNION ALL
        \(occurrencesPart(id: "r.occurrence_id", where: "r.occurrence_id IS NOT NULL"));
        """

    /// One part of `occurrences`: the earliest day rows of their occurrence among those `where` admits.
    private static func occurrencesPart(id: String, where condition: String) -> String {
        """
        SELECT \(id) AS id, r.event_id, \(instance(of: "r")) AS instance,
            \(occurrenceValue("all_day", of: "r")) AS all_day, \(occurrenceValue("start_utc", of: "r")) AS start_utc,
            \(occurrenceValue("end_utc", of: "r")) AS end_utc,
            coalesce(r.occurrence_start_local, \(startLocal(of: "r"))) AS start_local,
            coalesce(r.occurrence_end_local, \(endLocal(of: "r"))) AS end_local,
            r.occurrence_removed_run AS removed_run
        FROM \(dayTable) r
        WHERE \(condition)
            AND NOT EXISTS (SELECT 1 FROM \(dayTable) x WHERE x.event_id = r.event_id AND x.instance_key = r.instance_key AND x.day < r.day)
        """
    }
}
