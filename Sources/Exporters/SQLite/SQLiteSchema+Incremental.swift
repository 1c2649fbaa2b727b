extension SQLiteSchema {
    /// Version 5, calpipe 0.4 (issue 18, incremental runs; docs/incremental.md): `events.content_hash` (the event's
    /// content hash as written: an unchanged event is not written again) and `source_state` (per source, what
    /// its last run read: the input's fingerprint, the config's and the window), so that a run can leave an
    /// unchanged source unread. Rows of an upgraded file have no hash yet: their first run writes it.
    static let version5 = """
        ALTER TABLE events ADD COLUMN content_hash INTEGER;
        CREATE TABLE source_state (
            source TEXT PRIMARY KEY,
            pipeline TEXT NOT NULL,
            input_fingerprint TEXT,
            config_fingerprint TEXT NOT NULL,
            window TEXT NOT NULL,
            keep_removed INTEGER NOT NULL,
            run_id INTEGER NOT NULL
        );
        """
}
