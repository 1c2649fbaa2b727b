#if Postgres
import Exporters
import Foundation
import Pipeline
import PostgresNIO

/// One run's write into PostgreSQL (docs/postgres.md): one transaction from `init` to `commit`. Rows stream into
/// temporary staging tables with COPY as batches arrive (memory: one flush of rows); at commit set-based statements
/// merge them into the tables and mirror each source inside the window, as the sqlite sink does: unchanged rows are
/// not written, changed ones are updated in place (same `id`), what a source no longer has inside the window is
/// deleted or, with `keep_removed`, marked. Each of the run's sources is held by an advisory lock until the commit,
/// so two workers never sync the same source at once.
final class PostgresSyncWriter {
    struct Counts {
        var eventsInserted = 0
        var eventsUpdated = 0
        var eventsRemoved = 0
        var eventsUnchanged = 0
        var otherRowsChanged = 0
        var dayEntriesSeen = 0
        var cancelledSkipped = 0
        var rowsChanged: Int { eventsInserted + eventsUpdated + eventsRemoved + otherRowsChanged }
    }

    let link: PostgresLink
    let label: String
    let keepRemoved: Bool
    let keepSourceText: Bool
    let context: RunContext
    let runID: Int64
    var counts = Counts()
    /// Orders what the run staged: the last copy of a key wins, a deletion removes what was staged before it.
    private var seq: Int64 = 0
    /// Per source of the run: true when the database held no event of it at open (its sync has nothing to remove).
    private var sourceIsNew: [String: Bool] = [:]
    /// Whether `forecasts` held any row at open (else a day entry staged without weather has none to lose).
    private var hadForecasts = false
    /// Whether `events` held no row at open: then no staged row can meet a stored one (every key of this run's rows
    /// names one of its sources, which its advisory locks keep to it), and the merges insert without `ON CONFLICT`.
    private var freshSchema = false
    private let events = PostgresCopyText()
    private let attendees = PostgresCopyText()
    private let occurrences = PostgresCopyText()
    private let days = PostgresCopyText()
    private let deletions = PostgresCopyText()
    private let forecasts = PostgresCopyText()
    private var staged = (attendees: 0, deletions: 0, forecasts: 0)
    private let hasher = EventHasher()
    private var json = SQLiteJSONText()
    private let daysWriter = SQLiteDaysWriter()
    /// A buffer is sent when it holds this much: the writer's memory does not grow with the input.
    static let flushBytes = 4 << 20

    init(link: PostgresLink, settings: PostgresSettings, keepRemoved: Bool, keepSourceText: Bool, context: RunContext) throws {
        self.link = link
        label = settings.label
        self.keepRemoved = keepRemoved
        self.keepSourceText = keepSourceText
        self.context = context
        try PostgresMigrator(link: link, settings: settings, context: context).migrate()
        try link.execute("BEGIN")
        do {
            let sources = Set(context.runState.sourceLabels)
            try PostgresSourceLocks.acquire(sources, schema: settings.schema, link: link, label: label, context: context)
            for statement in PostgresSchema.staging { try link.execute(statement) }
            let env = context.environment
            let window = env.window
            runID = try link.integer("""
                INSERT INTO runs (pipeline, started_at, status, window_from, window_to, keep_removed)
                VALUES ($1, $2, 'running', $3, $4, $5) RETURNING id::text
                """, [.text(Self.pipelineName(env)), .text(Self.timestamp()), .optional(window?.from.iso8601), .optional(window?.to.iso8601),
                      .integer(keepRemoved ? 1 : 0)])
            // The merges' hash joins and sorts in memory rather than in temporary files (the server's default is 4 MB).
            try link.execute("SET LOCAL work_mem = '64MB'")
            freshSchema = try link.integer("SELECT count(*)::text FROM (SELECT 1 FROM events LIMIT 1) x") == 0
            hadForecasts = try link.integer("SELECT count(*)::text FROM (SELECT 1 FROM forecasts LIMIT 1) x") > 0
            for source in sources {
                sourceIsNew[source] = try link.integer("SELECT count(*)::text FROM (SELECT 1 FROM events WHERE source = $1 LIMIT 1) x", [.text(source)]) == 0
            }
        } catch {
            try? link.execute("ROLLBACK")
            throw error
        }
    }

    static func pipelineName(_ env: PipelineEnvironment) -> String { env.name.isEmpty ? env.pipelineFile : env.name }

    static func timestamp(_ date: Date = Date()) -> String {
        CivilDateTime(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down))).iso8601 + "Z"
    }

    // MARK: Staging

    private func key(_ event: borrowing Event, into row: PostgresCopyText) throws {
        try row.bind(SQLiteRowEncoding.source(of: event), at: 0)
        try row.bind(event.uid, at: 0)
        try row.bind(SQLiteRowEncoding.recurrenceIDText(event), at: 0)
    }

    private func nextSeq(_ row: PostgresCopyText) throws {
        seq += 1
        try row.bind(seq, at: 0)
    }

    func write(_ batch: Batch) throws {
        for d in batch.deletions {
            try nextSeq(deletions)
            try deletions.bind(d.source, at: 0)
            try deletions.bind(d.uid, at: 0)
            try deletions.bind(d.recurrenceID.map { SQLiteRowEncoding.iso($0, startUTC: nil) }, at: 0)
            deletions.endRow()
            staged.deletions += 1
        }
        let zone = context.zone
        for i in batch.events.indices {
            if batch.events[i].isCancelled {
                counts.cancelledSkipped += 1
                continue
            }
            try nextSeq(events)
            try key(batch.events[i], into: events)
            _ = try SQLiteRowEncoding.bindEventValues(batch.events[i], zone: zone, to: events, from: 4, json: &json, keepSourceText: keepSourceText)
            try events.bind(hasher.hash(batch.events[i]), at: 0)
            if let text = batch.events[i].rawTextHash { try events.bind(text, at: 0) } else { try events.bindNull(at: 0) }
            try events.bind(batch.events[i].origin?.description, at: 0)
            events.endRow()
            let people = batch.events[i].attendees
            for position in people.indices {
                try attendees.bind(seq, at: 0)
                try attendees.bind(position, at: 1)
                try SQLiteRowEncoding.bindAttendeeValues(people[position], to: attendees, from: 2, json: &json)
                attendees.endRow()
                staged.attendees += 1
            }
            if !batch.content.contains(.occurrences) {
                // Not expanded: each event is its own single occurrence (Batch.effectiveOccurrences).
                try stageOccurrence(.init(singleOf: batch.events[i]), of: batch.events[i])
            }
        }
        if batch.content.contains(.occurrences) {
            for i in batch.occurrences.indices {
                try batch.occurrences[i].withEvent { event in
                    if event.isCancelled { return }
                    try stageOccurrence(.init(batch.occurrences[i]), of: event)
                }
            }
        }
        for i in batch.days.indices {
            try batch.days[i].occurrence.withEvent { event in
                if event.isCancelled { return }
                try nextSeq(days)
                try key(event, into: days)
                try days.bind(SQLiteRowEncoding.OccurrenceTimes(batch.days[i].occurrence).instance, at: 0)
                try days.bind(SQLiteRowEncoding.isoDate(batch.days[i].day), at: 0)
                // event_id is found at commit; the column is written as 0 here.
                try SQLiteRowEncoding.bindDayValues(batch.days[i], eventID: 0, to: days, from: 0)
                days.endRow()
                counts.dayEntriesSeen += 1
                if let forecast = batch.days[i].forecast {
                    try forecasts.bind(seq, at: 0)
                    for value in SQLiteRowEncoding.forecastValues(forecast) { try forecasts.bind(value, at: 0) }
                    forecasts.endRow()
                    staged.forecasts += 1
                }
            }
        }
        daysWriter.note(batch, window: context.window)
        try flush(atLeast: Self.flushBytes)
    }

    private func stageOccurrence(_ o: SQLiteRowEncoding.OccurrenceTimes, of event: borrowing Event) throws {
        try nextSeq(occurrences)
        try key(event, into: occurrences)
        try occurrences.bind(o.instance, at: 0)
        try SQLiteRowEncoding.bindOccurrenceValues(o, zone: context.zone, to: occurrences, from: 0)
        occurrences.endRow()
    }

    static let eventKey = ["seq", "source", "uid", "recurrence_id"]

    /// Sends every buffer holding at least `bytes` (0: every non-empty one) with COPY.
    private func flush(atLeast bytes: Int) throws {
        let tables: [(PostgresCopyText, String, [String])] = [
            (events, "s_events", Self.eventKey + PostgresSchema.eventValueColumns),
            (attendees, "s_attendees", ["seq", "position", "name", "email", "role", "status", "other_parameters"]),
            (occurrences, "s_occurrences", Self.eventKey + ["instance"] + SQLiteRowEncoding.occurrenceContentColumns),
            (days, "s_days", Self.eventKey + ["instance", "day"] + SQLiteRowEncoding.dayContentColumns),
            (deletions, "s_deletions", Self.eventKey),
            (forecasts, "s_forecasts", ["seq"] + SQLiteRowEncoding.forecastContentColumns),
        ]
        for (rows, table, columns) in tables where !rows.isEmpty && rows.buffer.readableBytes >= bytes {
            try link.copy(into: table, columns: columns, data: rows.take())
        }
    }

    // MARK: Commit

    func commit() throws {
        try flush(atLeast: 0)
        // Statistics for the merges' plans, from a small sample (the default target reads 30,000 rows of each table).
        try link.execute("SET LOCAL default_statistics_target = 10")
        for table in ["s_events", "s_attendees", "s_occurrences", "s_days", "s_deletions", "s_forecasts"] { try link.execute("ANALYZE \(table)") }
        if staged.deletions > 0 { try applyDeletions() }
        let wEvents = try deduplicated("s_events", key: "source, uid, recurrence_id", warn: true)
        let wOccurrences = try deduplicated("s_occurrences", key: "source, uid, recurrence_id, instance", warn: false)
        let wDays = try deduplicated("s_days", key: "source, uid, recurrence_id, instance, day", warn: false)
        try upsertEvents(from: wEvents)
        try upsertChildren(events: wEvents, occurrences: wOccurrences, days: wDays)
        try upsertForecasts(days: wDays)
        let report = context.report
        if report.rejections.isEmpty {
            for source in Set(context.runState.sourceLabels).sorted() {
                let delta = context.runState.deltaSources.contains(source)
                switch context.runState.incremental?.plan(for: source) ?? .full {
                case .skipped, .kept: continue
                default: break
                }
                if sourceIsNew[source] == true { continue }
                try sync(source: source, delta: delta, events: wEvents, occurrences: wOccurrences, days: wDays)
            }
        } else {
            let n = report.rejections.count
            context.warn("\(label): \(n) record\(n == 1 ? " was" : "s were") rejected, so this run removed nothing (a rejected record may be an event still in its feed)")
        }
        try writeDaysAndMeta()
        try saveSourceState()
        try link.execute("""
            UPDATE runs SET finished_at = $1, status = $2, events = $3, day_entries = $4, events_inserted = $5, events_updated = $6,
                events_removed = $7, occurrences = $8, rows_changed = $9, rejected = $10, warnings = $11
            WHERE id = $12
            """, [.text(Self.timestamp()), .text(report.rejections.isEmpty ? "ok" : "ok-with-rejections"),
                  .integer(Int64(report.eventsRead)), .integer(Int64(counts.dayEntriesSeen)), .integer(Int64(counts.eventsInserted)),
                  .integer(Int64(counts.eventsUpdated)), .integer(Int64(counts.eventsRemoved)), .integer(Int64(report.occurrences)),
                  .integer(Int64(counts.rowsChanged)), .integer(Int64(report.rejections.count)), .integer(Int64(report.warnings.count)),
                  .integer(runID)])
    }

    /// The plugins' states, in the run's transaction (`plugin_state`).
    func savePluginStates(_ states: [String: PluginState], pipeline: String) throws {
        try PostgresPluginStates.save(link, states: states, pipeline: pipeline, runID: runID)
    }

    /// Commits the transaction; a signal until here rolls it back.
    func finish() throws {
        try context.checkCancellation()
        try link.execute("COMMIT")
    }

    func rollback() {
        try? link.execute("ROLLBACK")
    }

    /// The staging table without repeated keys (the last copy wins: `seq`), warning about repeated events as
    /// the sqlite sink does. The table itself when no key repeats.
    private func deduplicated(_ table: String, key: String, warn: Bool) throws -> String {
        let repeated = try link.rows("SELECT \(key) FROM \(table) GROUP BY \(key) HAVING count(*) > 1 ORDER BY \(key) LIMIT 20")
        if repeated.isEmpty { return table }
        if warn {
            for row in repeated {
                let (source, uid, rid) = (row[0] ?? "", row[1] ?? "", row[2] ?? "")
                context.warn("\(label): source \"\(source)\" has event uid \"\(uid)\"\(rid.isEmpty ? "" : " recurrence-id \(rid)") more than once; the last one is kept")
            }
        }
        try link.execute("CREATE TEMP TABLE w_\(table) ON COMMIT DROP AS SELECT DISTINCT ON (\(key)) * FROM \(table) ORDER BY \(key), seq DESC")
        try link.execute("ANALYZE w_\(table)")
        return "w_" + table
    }

    /// A merge's `ON CONFLICT` clause, left out for a fresh schema (`freshSchema`): a plain insert spares the server a
    /// speculative insertion per row.
    private func onConflict(_ clause: String) -> String { freshSchema ? "" : clause }

    /// The event key of staging row `s` equals that of event row `e`.
    private static func sameKey(_ s: String, _ e: String) -> String {
        "\(s).source = \(e).source AND \(s).uid = \(e).uid AND \(s).recurrence_id = \(e).recurrence_id"
    }

    private func upsertEvents(from staged: String) throws {
        let values = PostgresSchema.eventValueColumns
        let list = values.joined(separator: ", ")
        try link.execute("""
            WITH up AS (
                INSERT INTO events AS e (source, uid, recurrence_id, \(list), created_run, updated_run)
                SELECT source, uid, recurrence_id, \(list), $1, $1 FROM \(staged)
                \(onConflict("""
                ON CONFLICT (source, uid, recurrence_id) DO UPDATE
                    SET (\(list), updated_run, removed_run) = (\(values.map { "EXCLUDED.\($0)" }.joined(separator: ", ")), EXCLUDED.updated_run, NULL)
                    WHERE e.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR e.text_hash IS DISTINCT FROM EXCLUDED.text_hash
                        OR e.removed_run IS NOT NULL
                """))
                RETURNING e.id, (e.xmax = 0) AS inserted)
            INSERT INTO changed_events SELECT id, inserted FROM up
            """, [.integer(runID)])
        let row = try link.rows("""
            SELECT (count(*) FILTER (WHERE inserted))::text, (count(*) FILTER (WHERE NOT inserted))::text,
                (SELECT count(*) FROM \(staged))::text FROM changed_events
            """)[0]
        let (inserted, updated, all) = (Int(row[0] ?? "0") ?? 0, Int(row[1] ?? "0") ?? 0, Int(row[2] ?? "0") ?? 0)
        counts.eventsInserted += inserted
        counts.eventsUpdated += updated
        counts.eventsUnchanged += all - inserted - updated
        // A changed event's attendees are written again (its content hash covers them).
        try link.execute("DELETE FROM attendees WHERE event_id IN (SELECT id FROM changed_events WHERE NOT inserted)")
        if self.staged.attendees > 0 {
            try link.execute("""
                INSERT INTO attendees (event_id, position, name, email, role, status, other_parameters)
                SELECT c.id, a.position, a.name, a.email, a.role, a.status, a.other_parameters
                FROM s_attendees a JOIN \(staged) w ON w.seq = a.seq JOIN events e ON \(Self.sameKey("w", "e"))
                JOIN changed_events c ON c.id = e.id
                """)
        }
    }

    private func upsertChildren(events wEvents: String, occurrences wOccurrences: String, days wDays: String) throws {
        let o = SQLiteRowEncoding.occurrenceContentColumns
        counts.otherRowsChanged += Int(try link.integer("""
            WITH up AS (
                INSERT INTO occurrences AS o (event_id, instance, \(o.joined(separator: ", ")))
                SELECT e.id, s.instance, \(o.map { "s.\($0)" }.joined(separator: ", "))
                FROM \(wOccurrences) s JOIN events e ON \(Self.sameKey("s", "e"))
                \(onConflict("""
                ON CONFLICT (event_id, instance) DO UPDATE
                    SET (\(o.joined(separator: ", ")), removed_run) = (\(o.map { "EXCLUDED.\($0)" }.joined(separator: ", ")), NULL)
                    WHERE (\(o.map { "o.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(o.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                        OR o.removed_run IS NOT NULL
                """))
                RETURNING 1)
            SELECT count(*)::text FROM up
            """))
        let d = SQLiteRowEncoding.dayContentColumns
        let dValues = d.dropFirst()
        counts.otherRowsChanged += Int(try link.integer("""
            WITH up AS (
                INSERT INTO day_entries AS d (occurrence_id, day, \(d.joined(separator: ", ")))
                SELECT o.id, s.day, e.id, \(dValues.map { "s.\($0)" }.joined(separator: ", "))
                FROM \(wDays) s JOIN events e ON \(Self.sameKey("s", "e")) JOIN occurrences o ON o.event_id = e.id AND o.instance = s.instance
                \(onConflict("""
                ON CONFLICT (occurrence_id, day) DO UPDATE
                    SET (\(d.joined(separator: ", ")), removed_run) = (\(d.map { "EXCLUDED.\($0)" }.joined(separator: ", ")), NULL)
                    WHERE (\(d.map { "d.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(d.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                        OR d.removed_run IS NOT NULL
                """))
                RETURNING 1)
            SELECT count(*)::text FROM up
            """))
        _ = wEvents
    }

    /// The day entry row of staging day row `s` (joined to `events e`, `occurrences o`, `day_entries d`).
    private static func dayEntryOf(_ s: String) -> String {
        """
        JOIN events e ON \(sameKey(s, "e")) JOIN occurrences o ON o.event_id = e.id AND o.instance = \(s).instance
        JOIN day_entries d ON d.occurrence_id = o.id AND d.day = \(s).day
        """
    }

    /// The weather of each day entry written in this run, as the sqlite sink keeps it: a staged forecast is written
    /// (changed only when a value differs); a day entry staged without one loses the one it had.
    private func upsertForecasts(days wDays: String) throws {
        let f = SQLiteRowEncoding.forecastContentColumns
        if staged.forecasts > 0 {
            counts.otherRowsChanged += Int(try link.integer("""
                WITH up AS (
                    INSERT INTO forecasts AS f (day_entry_id, \(f.joined(separator: ", ")))
                    SELECT d.id, \(f.map { "x.\($0)" }.joined(separator: ", "))
                    FROM s_forecasts x JOIN \(wDays) s ON s.seq = x.seq \(Self.dayEntryOf("s"))
                    ON CONFLICT (day_entry_id) DO UPDATE SET (\(f.joined(separator: ", "))) = (\(f.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                        WHERE (\(f.map { "f.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(f.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                    RETURNING 1)
                SELECT count(*)::text FROM up
                """))
        }
        // A fresh load (no forecast stored before) has nothing to delete.
        guard hadForecasts else { return }
        counts.otherRowsChanged += Int(try link.integer("""
            WITH gone AS (
                DELETE FROM forecasts g USING \(wDays) s \(Self.dayEntryOf("s"))
                WHERE g.day_entry_id = d.id AND NOT EXISTS (SELECT 1 FROM s_forecasts x WHERE x.seq = s.seq)
                RETURNING 1)
            SELECT count(*)::text FROM gone
            """))
    }

    /// Stores what this run read of each source (`source_state`), for the next run's plan, as the sqlite sink does:
    /// a skipped or kept source keeps its row; a run with rejected records stores no input fingerprint (the next run
    /// reads the source again); a run that is not incremental forgets the source.
    private func saveSourceState() throws {
        let incremental = context.runState.incremental
        for source in Set(context.runState.sourceLabels).sorted() {
            switch incremental?.plan(for: source) ?? .full {
            case .skipped, .kept: continue
            default: break
            }
            guard let incremental, let current = incremental.current[source] else {
                try link.execute("DELETE FROM source_state WHERE source = $1", [.text(source)])
                continue
            }
            let clean = context.report.rejections.isEmpty
            try link.execute("""
                INSERT INTO source_state AS t (source, pipeline, input_fingerprint, config_fingerprint, "window", keep_removed, run_id, context_hash, source_text)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                ON CONFLICT (source) DO UPDATE SET (pipeline, input_fingerprint, config_fingerprint, "window", keep_removed, run_id, context_hash, source_text) =
                    (EXCLUDED.pipeline, EXCLUDED.input_fingerprint, EXCLUDED.config_fingerprint, EXCLUDED."window", EXCLUDED.keep_removed,
                     EXCLUDED.run_id, EXCLUDED.context_hash, EXCLUDED.source_text)
                """, [.text(source), .text(Self.pipelineName(context.environment)), clean ? .optional(current.input) : .null, .text(current.config),
                      .text(current.window), .integer(keepRemoved ? 1 : 0), .integer(runID),
                      clean ? .optional(incremental.context(for: source)) : .null, .integer(keepSourceText ? 1 : 0)])
        }
    }

    /// Deletions (`Batch.deletions`): every event row of the UID, or for an instance its override and its occurrence,
    /// whatever the window; then staged rows that came before a deletion of them are dropped (a later batch may bring
    /// the UID back).
    private func applyDeletions() throws {
        let run = PostgresBind.integer(runID)
        if keepRemoved {
            counts.eventsRemoved += Int(try link.integer("""
                WITH m AS (UPDATE events e SET removed_run = $1 FROM s_deletions d
                    WHERE e.removed_run IS NULL AND e.source = d.source AND e.uid = d.uid AND (d.recurrence_id IS NULL OR e.recurrence_id = d.recurrence_id)
                    RETURNING 1) SELECT count(*)::text FROM m
                """, [run]))
            try link.execute("""
                UPDATE occurrences o SET removed_run = $1 FROM events e WHERE o.removed_run IS NULL AND e.id = o.event_id AND (e.removed_run = $1
                    OR EXISTS (SELECT 1 FROM s_deletions d WHERE e.source = d.source AND e.uid = d.uid AND o.instance = d.recurrence_id))
                """, [run])
            try link.execute("""
                UPDATE day_entries SET removed_run = $1 WHERE removed_run IS NULL
                    AND occurrence_id IN (SELECT id FROM occurrences WHERE removed_run = $1)
                """, [run])
        } else {
            counts.eventsRemoved += Int(try link.integer("""
                WITH m AS (DELETE FROM events e USING s_deletions d
                    WHERE e.source = d.source AND e.uid = d.uid AND (d.recurrence_id IS NULL OR e.recurrence_id = d.recurrence_id)
                    RETURNING 1) SELECT count(*)::text FROM m
                """))
            try link.execute("""
                DELETE FROM occurrences o USING events e, s_deletions d
                WHERE e.id = o.event_id AND e.source = d.source AND e.uid = d.uid AND o.instance = d.recurrence_id
                """)
        }
        let earlier = "d.seq > s.seq AND s.source = d.source AND s.uid = d.uid AND (d.recurrence_id IS NULL OR s.recurrence_id = d.recurrence_id"
        try link.execute("DELETE FROM s_events s USING s_deletions d WHERE \(earlier))")
        try link.execute("DELETE FROM s_occurrences s USING s_deletions d WHERE \(earlier) OR s.instance = d.recurrence_id)")
        try link.execute("DELETE FROM s_days s USING s_deletions d WHERE \(earlier) OR s.instance = d.recurrence_id)")
    }

    /// Deletes (or marks) what this run did not bring of `source` inside the window: events (not for a delta
    /// source), occurrences and day entries (for a delta source only those of events it sent).
    private func sync(source: String, delta: Bool, events wEvents: String, occurrences wOccurrences: String, days wDays: String) throws {
        var binds: [PostgresBind] = [.text(source), .integer(runID)]
        var eventWindow = "", occurrenceWindow = "", dayWindow = ""
        if let window = context.window {
            let (start, end) = window.utcRange(in: context.zone)
            eventWindow = " AND e.start_utc < \(end) AND (e.span_end_utc IS NULL OR e.span_end_utc > \(start) OR (e.span_end_utc <= e.start_utc AND e.start_utc >= \(start)))"
            occurrenceWindow = " AND o.start_utc < \(end) AND (o.end_utc > \(start) OR (o.end_utc <= o.start_utc AND o.start_utc >= \(start)))"
            dayWindow = " AND d.day >= $3 AND d.day < $4"
            binds += [.text(window.from.iso8601), .text(window.to.iso8601)]
        }
        let unseenEvent = "NOT EXISTS (SELECT 1 FROM \(wEvents) w WHERE \(Self.sameKey("w", "e")))"
        let sentEvent = delta ? " AND EXISTS (SELECT 1 FROM \(wEvents) w WHERE \(Self.sameKey("w", "e")))" : ""
        let unseenOccurrence = "NOT EXISTS (SELECT 1 FROM \(wOccurrences) s WHERE \(Self.sameKey("s", "e")) AND s.instance = o.instance)"
        let unseenDay = "NOT EXISTS (SELECT 1 FROM \(wDays) s WHERE \(Self.sameKey("s", "e")) AND s.instance = o.instance AND s.day = d.day)"
        func count(_ sql: String) throws -> Int {
            Int(try link.integer("WITH m AS (\(sql) RETURNING 1) SELECT count(*)::text FROM m", binds))
        }
        if keepRemoved {
            if !delta {
                counts.eventsRemoved += try count("UPDATE events e SET removed_run = $2 WHERE e.source = $1 AND e.removed_run IS NULL\(eventWindow) AND \(unseenEvent)")
            }
            counts.otherRowsChanged += try count("""
                UPDATE occurrences o SET removed_run = $2 FROM events e WHERE e.id = o.event_id AND e.source = $1 AND o.removed_run IS NULL\(occurrenceWindow)\(sentEvent) AND \(unseenOccurrence)
                """)
            counts.otherRowsChanged += try count("""
                UPDATE day_entries d SET removed_run = $2 FROM occurrences o, events e
                WHERE o.id = d.occurrence_id AND e.id = o.event_id AND e.source = $1 AND d.removed_run IS NULL\(dayWindow)\(sentEvent) AND \(unseenDay)
                """)
        } else {
            // Deleting an event deletes its attendees, occurrences and day entries (ON DELETE CASCADE).
            if !delta {
                counts.eventsRemoved += try count("DELETE FROM events e WHERE e.source = $1\(eventWindow) AND \(unseenEvent)")
            }
            counts.otherRowsChanged += try count("""
                DELETE FROM occurrences o USING events e WHERE e.id = o.event_id AND e.source = $1\(occurrenceWindow)\(sentEvent) AND \(unseenOccurrence)
                """)
            counts.otherRowsChanged += try count("""
                DELETE FROM day_entries d USING occurrences o, events e
                WHERE o.id = d.occurrence_id AND e.id = o.event_id AND e.source = $1\(dayWindow)\(sentEvent) AND \(unseenDay)
                """)
        }
    }

    /// `days` (one row per day of the window, with its weather) and `meta`, written last and in date order, so two
    /// workers committing at once wait for each other's rows instead of deadlocking.
    private func writeDaysAndMeta() throws {
        try link.execute("CREATE TEMP TABLE s_dayrows (LIKE days) ON COMMIT DROP")
        let rows = PostgresCopyText()
        for values in daysWriter.dayRows(runID: runID, context: context) {
            for (i, value) in values.enumerated() { try rows.bind(value, at: i) }
            rows.endRow()
        }
        if !rows.isEmpty {
            try link.copy(into: "s_dayrows", columns: [], data: rows.take())
            let columns = ["weekday", "weekday_short", "weather_status", "weather_reason", "provider", "place", "latitude", "longitude",
                           "weather_code", "icon", "summary", "temperature_max", "temperature_min", "precipitation_probability",
                           "precipitation_amount", "wind_speed_max", "units", "fetched_at"]
            try link.execute("""
                INSERT INTO days AS t SELECT * FROM s_dayrows ORDER BY date
                ON CONFLICT (date) DO UPDATE SET (\(columns.joined(separator: ", ")), updated_run) =
                    (\(columns.map { "EXCLUDED.\($0)" }.joined(separator: ", ")), EXCLUDED.updated_run)
                WHERE (\(columns.map { "t.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(columns.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
                """)
        }
        try PostgresMigrator.writeMeta(link, context: context)
    }
}
#endif
