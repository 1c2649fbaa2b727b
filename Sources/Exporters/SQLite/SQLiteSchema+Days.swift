/// Migration 4 (calpipe 0.4, issue 17): the agenda's days and the pipeline's facts.
///
/// - `days`: one row per day of the window (or per day with entries without a window): its weekday names in
///   the pipeline's locale and the day's weather (the forecast stage's day header), so an app can draw a
///   calendar strip with empty days and one weather per day;
/// - `meta`: one row (`id` = 1) with the pipeline, zone, window, locale, the run's time and the schema version;
/// - the `agenda` view again, with the day's weather and the zone joined in (`day_*` and `timezone` columns).
///
/// Kept in its own file so that the days are a separate concern from the sync of events (SQLiteSyncWriter):
/// `SQLiteDaysWriter` writes both tables.
extension SQLiteSchema {
    static let version4 = """
        CREATE TABLE days (
            day TEXT PRIMARY KEY,
            weekday TEXT NOT NULL,
            weekday_short TEXT NOT NULL,
            weather_status TEXT,
            weather_reason TEXT,
            provider TEXT,
            place TEXT,
            latitude REAL,
            longitude REAL,
            weather_code INTEGER,
            icon TEXT,
            summary TEXT,
            temperature_max REAL,
            temperature_min REAL,
            precipitation_probability REAL,
            precipitation_amount REAL,
            wind_speed_max REAL,
            units TEXT,
            fetched_at TEXT,
            updated_run INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            pipeline TEXT NOT NULL,
            timezone TEXT NOT NULL,
            window_from TEXT,
            window_to TEXT,
            locale TEXT NOT NULL,
            generated_at TEXT NOT NULL,
            schema_version INTEGER NOT NULL
        );
        DROP VIEW agenda;
        \(agendaViewV4)
        """

    /// The `agenda` view of version 4: version 2's columns, then the day's weather and the zone.
    static let agendaViewV4 = """
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
            d.id AS day_entry_id, d.occurrence_id, d.event_id,
            dy.weekday AS day_weekday, dy.weather_status AS day_weather_status, dy.weather_reason AS day_weather_reason,
            dy.icon AS day_icon, dy.summary AS day_summary, dy.temperature_max AS day_temperature_max,
            dy.temperature_min AS day_temperature_min, dy.precipitation_probability AS day_precipitation_probability,
            dy.units AS day_units, m.timezone
        FROM day_entries d
        JOIN events e ON e.id = d.event_id
        JOIN occurrences o ON o.id = d.occurrence_id
        LEFT JOIN forecasts f ON f.day_entry_id = d.id
        LEFT JOIN days dy ON dy.day = d.day
        LEFT JOIN meta m ON m.id = 1
        WHERE d.removed_run IS NULL AND o.removed_run IS NULL AND e.removed_run IS NULL
        ORDER BY d.day, d.sort_key, e.title, e.uid, d.end_utc;
        """

    /// Version 8 (issue 30): the `days` table's date column is `date`, the name the days document gives it
    /// (docs/agenda-days.schema.json), instead of `day`. Renamed in place (rows and their values kept; SQLite
    /// 3.25+ `RENAME COLUMN`), and the `agenda` view made again to join on it; the view's own `day` column (the
    /// day entry's day) keeps its name. No alias for the old name: docs/sqlite-schema.md says why.
    static let version8 = """
        DROP VIEW agenda;
        ALTER TABLE days RENAME COLUMN day TO date;
        \(agendaViewV8)
        """

    /// The `agenda` view of version 8: version 4's, joined to `days` on its `date` column.
    static let agendaViewV8 = agendaViewV4.replacingOccurrences(of: "LEFT JOIN days dy ON dy.day = d.day", with: "LEFT JOIN days dy ON dy.date = d.day")
}
