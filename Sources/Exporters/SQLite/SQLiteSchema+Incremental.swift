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

    /// Version 6 (issue 18, events left unparsed; docs/incremental.md): `events.text_hash` (the hash of the event's raw
    /// text, `Fingerprint.rawText`) and `source_state.context_hash` (what surrounded the events in the input). A
    /// reader skips the text of a stored single event without parsing it when the context is the stored one.
    /// Rows of an upgraded file have no text hash: the config fingerprints are cleared, so that the next run reads
    /// and writes every source in full and stores them (each event's `updated_run` changes once).
    static let version6 = """
        ALTER TABLE events ADD COLUMN text_hash INTEGER;
        ALTER TABLE source_state ADD COLUMN context_hash TEXT;
        UPDATE source_state SET config_fingerprint = '';
        """

    /// Version 7 (issue 18, a smaller fresh load and fewer pages changed by a moved window): `events.source_text` is
    /// written only with the sink option `source_text: true`. `source_state.source_text` says whether a source's rows
    /// were written with it (1 for every row of an older file, which always wrote it): a run with the other setting
    /// reads the source in full, so that no kept row keeps text it should not have, or lacks text it should.
    /// `day_entries_by_event` goes: the sync finds an event's day entries through its occurrences (`occurrences_key`,
    /// then `day_entries_key`), and the index put every series' new and deleted day rows on a page of their own.
    static let version7 = """
        ALTER TABLE source_state ADD COLUMN source_text INTEGER NOT NULL DEFAULT 1;
        DROP INDEX IF EXISTS day_entries_by_event;
        """
}
