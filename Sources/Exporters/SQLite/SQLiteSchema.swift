import CalSQLite
import Pipeline

/// The agenda database's schema, as ordered migrations keyed by `PRAGMA user_version`.
/// docs/sqlite-schema.md documents every table; change both together.
///
/// A new database runs every migration from 1; a database written by an older calpipe runs the ones after its
/// version. Migrations run inside the run's transaction, so a failed upgrade leaves the file as it was.
/// Never edit a released migration: add the next one.
enum SQLiteSchema {
    /// The version this calpipe writes.
    static var currentVersion: Int { migrations.count }

    static let migrations: [String] = [version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11, version12]

    /// The indexes a bulk load (docs/sqlite-schema.md, "Speed") drops before it writes and builds again, in one
    /// pass each, before the run commits: the unique key of day entries and the agenda's index
    /// (`keyedIndexes`, version 12). The unique key of `events` stays (the load looks events up by it and finds
    /// duplicates with it). The SQL is exactly what migration 12 runs, so a rebuilt index is the same as a migrated one.
    static var bulkIndexes: [(name: String, sql: String)] { keyedIndexes }

    /// The indexes migration 3 made (versions 3 to 9 bulk-loaded these).
    static let version3Indexes: [(name: String, sql: String)] = [
        ("occurrences_key", "CREATE UNIQUE INDEX occurrences_key ON occurrences (event_id, instance)"),
        ("day_entries_key", "CREATE UNIQUE INDEX day_entries_key ON day_entries (occurrence_id, day)"),
        ("occurrences_by_start", "CREATE INDEX occurrences_by_start ON occurrences (start_utc)"),
        ("day_entries_by_day", "CREATE INDEX day_entries_by_day ON day_entries (day, sort_key)"),
    ]

    /// calpipe 0.1: events, attendees, occurrences, day entries, runs.
    static let version1 = """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            uid TEXT NOT NULL,
            recurrence_id TEXT NOT NULL DEFAULT '',
            title TEXT,
            description TEXT,
            location TEXT,
            latitude REAL,
            longitude REAL,
            organizer_name TEXT,
            organizer_email TEXT,
            categories TEXT,
            color TEXT,
            url TEXT,
            status TEXT,
            all_day INTEGER NOT NULL,
            dtstart TEXT NOT NULL,
            dtstart_tzid TEXT,
            start_utc INTEGER NOT NULL,
            dtend TEXT,
            dtend_tzid TEXT,
            duration TEXT,
            end_utc INTEGER NOT NULL,
            rrule TEXT,
            rdate TEXT,
            exdate TEXT,
            UNIQUE (source, uid, recurrence_id)
        );
        CREATE TABLE attendees (
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT,
            email TEXT,
            role TEXT,
            status TEXT,
            PRIMARY KEY (event_id, position)
        ) WITHOUT ROWID;
        CREATE TABLE occurrences (
            id INTEGER PRIMARY KEY,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            instance TEXT NOT NULL,
            all_day INTEGER NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            start_local TEXT NOT NULL,
            end_local TEXT NOT NULL,
            UNIQUE (event_id, instance)
        );
        CREATE TABLE day_entries (
            id INTEGER PRIMARY KEY,
            occurrence_id INTEGER NOT NULL REFERENCES occurrences (id) ON DELETE CASCADE,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            day TEXT NOT NULL,
            part INTEGER NOT NULL,
            parts INTEGER NOT NULL,
            all_day INTEGER NOT NULL,
            start_local TEXT NOT NULL,
            end_local TEXT NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            sort_key TEXT NOT NULL,
            UNIQUE (occurrence_id, day)
        );
        CREATE INDEX day_entries_by_day ON day_entries (day, sort_key);
        CREATE INDEX day_entries_by_event ON day_entries (event_id);
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            pipeline TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL,
            events INTEGER,
            day_entries INTEGER
        );
        """

    /// calpipe 0.2: lossless event columns, sync bookkeeping (created/updated/removed run), forecasts,
    /// richer runs, the `agenda` view.
    static let version2 = """
        ALTER TABLE events ADD COLUMN this_and_future INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE events ADD COLUMN organizer_parameters TEXT;
        ALTER TABLE events ADD COLUMN exrule TEXT;
        ALTER TABLE events ADD COLUMN span_end_utc INTEGER;
        ALTER TABLE events ADD COLUMN other_properties TEXT;
        ALTER TABLE events ADD COLUMN components TEXT;
        ALTER TABLE events ADD COLUMN field_parameters TEXT;
        ALTER TABLE events ADD COLUMN metadata TEXT;
        ALTER TABLE events ADD COLUMN origin TEXT;
        ALTER TABLE events ADD COLUMN source_text TEXT;
        ALTER TABLE events ADD COLUMN created_run INTEGER;
        ALTER TABLE events ADD COLUMN updated_run INTEGER;
        ALTER TABLE events ADD COLUMN removed_run INTEGER;
        UPDATE events SET span_end_utc = end_utc WHERE rrule IS NULL AND rdate IS NULL;
        ALTER TABLE attendees ADD COLUMN other_parameters TEXT;
        ALTER TABLE occurrences ADD COLUMN removed_run INTEGER;
        ALTER TABLE day_entries ADD COLUMN removed_run INTEGER;
        CREATE INDEX occurrences_by_start ON occurrences (start_utc);
        CREATE TABLE forecasts (
            day_entry_id INTEGER PRIMARY KEY REFERENCES day_entries (id) ON DELETE CASCADE,
            status TEXT NOT NULL,
            reason TEXT,
            latitude REAL,
            longitude REAL,
            provider TEXT,
            units TEXT,
            weather_code INTEGER,
            summary TEXT,
            temperature_max REAL,
            temperature_min REAL,
            precipitation_probability REAL,
            precipitation_amount REAL,
            wind_speed_max REAL
        );
        ALTER TABLE runs ADD COLUMN window_from TEXT;
        ALTER TABLE runs ADD COLUMN window_to TEXT;
        ALTER TABLE runs ADD COLUMN keep_removed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN events_inserted INTEGER;
        ALTER TABLE runs ADD COLUMN events_updated INTEGER;
        ALTER TABLE runs ADD COLUMN events_removed INTEGER;
        ALTER TABLE runs ADD COLUMN occurrences INTEGER;
        ALTER TABLE runs ADD COLUMN rows_changed INTEGER;
        ALTER TABLE runs ADD COLUMN rejected INTEGER;
        ALTER TABLE runs ADD COLUMN warnings INTEGER;
        \(agendaView)
        """

    /// The `agenda` view (version 2; created again unchanged by version 3, which rebuilds its tables).
    static let agendaView = """
        CREATE VIEW agenda AS
        SELECT
            d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local, d.start_utc, d.end_utc,
            d.end_utc - d.start_utc AS duration_seconds,
            e.title, e.location, e.color, e.status, e.description,
            (SELECT group_concat(label, ', ') FROM (
                SELECT coalesce(a.name, a.email, '') AS label FROM attendees a WHERE a.event_id = e.id ORDER BY a.position
            )) AS attendees,
            f.status AS forecast_status, f.reason AS forecast_reason, f.summary AS forecast_summary,
            f.weather_code, f.temperature_min, f.temperature_max, f.precipitation_probability,
            f.precipitation_amount, f.wind_speed_max, f.units AS forecast_units, f.provider AS forecast_provider,
            e.source, e.uid, e.recurrence_id, o.instance, d.sort_key,
            d.id AS day_entry_id, d.occurrence_id, d.event_id
        FROM day_entries d
        JOIN events e ON e.id = d.event_id
        JOIN occurrences o ON o.id = d.occurrence_id
        LEFT JOIN forecasts f ON f.day_entry_id = d.id
        WHERE d.removed_run IS NULL AND o.removed_run IS NULL AND e.removed_run IS NULL
        ORDER BY d.day, d.sort_key, e.title, e.uid, d.end_utc;
        """

    /// calpipe 0.3: the unique keys of events, occurrences and day entries become named unique indexes
    /// (`events_key`, `occurrences_key`, `day_entries_key`) instead of table constraints, so a bulk load can drop
    /// them and build them after the rows. A table constraint cannot be dropped, hence the rebuild: new table,
    /// copy (ids kept), drop, rename. Foreign keys are off on the sink's connection, so dropping a parent table
    /// deletes no child rows.
    static let version3 = """
        DROP VIEW agenda;
        CREATE TABLE events_v3 (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            uid TEXT NOT NULL,
            recurrence_id TEXT NOT NULL DEFAULT '',
            title TEXT,
            description TEXT,
            location TEXT,
            latitude REAL,
            longitude REAL,
            organizer_name TEXT,
            organizer_email TEXT,
            categories TEXT,
            color TEXT,
            url TEXT,
            status TEXT,
            all_day INTEGER NOT NULL,
            dtstart TEXT NOT NULL,
            dtstart_tzid TEXT,
            start_utc INTEGER NOT NULL,
            dtend TEXT,
            dtend_tzid TEXT,
            duration TEXT,
            end_utc INTEGER NOT NULL,
            rrule TEXT,
            rdate TEXT,
            exdate TEXT,
            this_and_future INTEGER NOT NULL DEFAULT 0,
            organizer_parameters TEXT,
            exrule TEXT,
            span_end_utc INTEGER,
            other_properties TEXT,
            components TEXT,
            field_parameters TEXT,
            metadata TEXT,
            origin TEXT,
            source_text TEXT,
            created_run INTEGER,
            updated_run INTEGER,
            removed_run INTEGER
        );
        INSERT INTO events_v3 SELECT * FROM events;
        DROP TABLE events;
        ALTER TABLE events_v3 RENAME TO events;
        CREATE UNIQUE INDEX events_key ON events (source, uid, recurrence_id);
        CREATE TABLE occurrences_v3 (
            id INTEGER PRIMARY KEY,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            instance TEXT NOT NULL,
            all_day INTEGER NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            start_local TEXT NOT NULL,
            end_local TEXT NOT NULL,
            removed_run INTEGER
        );
        INSERT INTO occurrences_v3 SELECT * FROM occurrences;
        DROP TABLE occurrences;
        ALTER TABLE occurrences_v3 RENAME TO occurrences;
        CREATE TABLE day_entries_v3 (
            id INTEGER PRIMARY KEY,
            occurrence_id INTEGER NOT NULL REFERENCES occurrences (id) ON DELETE CASCADE,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
            day TEXT NOT NULL,
            part INTEGER NOT NULL,
            parts INTEGER NOT NULL,
            all_day INTEGER NOT NULL,
            start_local TEXT NOT NULL,
            end_local TEXT NOT NULL,
            start_utc INTEGER NOT NULL,
            end_utc INTEGER NOT NULL,
            sort_key TEXT NOT NULL,
            removed_run INTEGER
        );
        INSERT INTO day_entries_v3 SELECT * FROM day_entries;
        DROP TABLE day_entries;
        ALTER TABLE day_entries_v3 RENAME TO day_entries;
        \(version3Indexes.map { $0.sql + ";" }.joined(separator: "\n"))
        \(agendaView)
        """

    /// Brings the database to `currentVersion`; returns the version it had. Run inside a transaction.
    static func migrate(_ db: Database) throws -> Int {
        let version = try db.userVersion
        if version > currentVersion { throw CalpipeError.newerSchema(version: version) }
        for index in version..<currentVersion {
            try db.execute(migrations[index])
        }
        if version != currentVersion { try db.setUserVersion(currentVersion) }
        return version
    }
}
