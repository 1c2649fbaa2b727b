import CalSQLite
import Foundation
import Pipeline

/// One run's write into the agenda database: one connection, one IMMEDIATE transaction from `init` to
/// `commit`, rows upserted as batches arrive and, at commit, rows of this run's sources that were not seen
/// inside the window deleted (or marked, with keep_removed). See docs/sqlite-schema.md for the rules.
final class SQLiteSyncWriter {
    struct Counts {
        var eventsInserted = 0
        var eventsUpdated = 0
        var eventsRemoved = 0
        var occurrencesWritten = 0
        var occurrencesRemoved = 0
        var daysWritten = 0
        var daysRemoved = 0
        var otherRowsChanged = 0
        var dayEntriesSeen = 0
        var cancelledSkipped = 0
        var duplicates = 0
        /// Events an incremental run kept as they were (not written).
        var eventsUnchanged = 0

        var rowsChanged: Int {
            eventsInserted + eventsUpdated + eventsRemoved + occurrencesWritten + occurrencesRemoved + daysWritten + daysRemoved + otherRowsChanged
        }
    }

    private struct EventKey: Hashable {
        var source: String
        var uid: String
        var recurrenceID: String
    }

    private struct OccurrenceKey: Hashable {
        var eventID: Int64
        var instance: SQLiteRowEncoding.InstanceKey
    }

    let db: Database
    let path: String
    let keepRemoved: Bool
    /// Whether `events.source_text` holds each event's original text (the sink option `source_text`).
    let keepSourceText: Bool
    let zone: Zone
    let window: Window?
    let runID: Int64
    /// True while this run bulk-loads (docs/sqlite-schema.md, "Speed"): the run's sources had no rows and the
    /// tables hold few rows of other sources, so the indexes of `SQLiteSchema.bulkIndexes` were dropped and rows
    /// are plain INSERTs; `endBulkLoad` builds the indexes again (at commit, or earlier when the run meets a
    /// duplicate event or a source with rows, which need the unique keys while writing).
    private(set) var bulkLoading = false
    /// Whether this run began as a bulk load.
    private(set) var bulkLoadStarted = false
    /// A bulk load rebuilds the dropped indexes over every row: worth it only when few rows exist already.
    static let bulkLoadMaxExistingRows: Int64 = 10_000
    /// Largest row ids before this run: rows above them were inserted by this run (seen by definition).
    private let maxEventID: Int64
    /// Occurrences live in their day entries (schema 10): an occurrence's id is the id of the first day entry written
    /// for it, so ids up to `maxDayID` are occurrences of earlier runs too.
    private let maxDayID: Int64
    /// The id the next day entry gets (bound explicitly): above every row id of the table, so that a new
    /// occurrence, which takes its first row's id, never meets an id of another.
    private var nextDayID: Int64
    var counts = Counts()
    private var sourcesSeen: Set<String> = []
    private var eventIDs: [EventKey: Int64] = [:]
    /// The batch's occurrences (by key: their index in `slots`), written with their day entries.
    private var occurrenceIDs: [OccurrenceKey: Int] = [:]
    private var slots: [OccurrenceSlot] = []
    private let context: RunContext

    private let statements: SQLiteSyncStatements
    /// The buffer JSON columns are written into, reused for every row.
    private var json = SQLiteJSONText()
    /// Prepared when first needed: during a bulk load the keys they name do not exist.
    private var keyed: SQLiteSyncStatements.KeyedChildren?
    /// Per source: true when the database held no event of it before this run (plain inserts, no lookups).
    private var sourceIsNew: [String: Bool] = [:]

    /// The content hash of events (`events.content_hash`).
    private let hasher = EventHasher()
    /// The incremental run's decisions (nil: not incremental) and, per source, the memory its plan was made with.
    private let incremental: IncrementalRun?
    private var memories: [String: any SourceMemory] = [:]

    /// True when the file did not exist (or was empty) at open: see `init`.
    private let createsFile: Bool

    static let newFilePageSize = 16_384

    static func isAbsentOrEmpty(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return true }
        return (attributes[.size] as? Int ?? 0) == 0
    }

    /// Opens the database, waits for the write lock, upgrades the schema and records the run.
    init(path: String, displayPath: String, keepRemoved: Bool, keepSourceText: Bool = false, busyTimeout: Int, bulkLoad: Bool = true,
         context: RunContext) throws {
        self.path = displayPath
        self.keepRemoved = keepRemoved
        self.keepSourceText = keepSourceText
        self.context = context
        zone = context.zone
        window = context.window
        incremental = context.runState.incremental
        // Foreign keys are not enforced on this connection: every child row is written with the id its parent
        // row just got, and the sync deletes children itself (`deleteRemoved`), so the checks (one parent
        // lookup per key per row, about a tenth of the sink's time) would only repeat what the writer does.
        // The schema keeps its REFERENCES ... ON DELETE CASCADE for other programs; tests run foreign_key_check.
        // A file this run creates is written through a rollback journal and switched to WAL after the commit: in
        // WAL mode every page of the first load would be written twice (into the WAL, then into the file by the
        // checkpoint). The journal of a new file holds next to nothing, and a kill still leaves it as before.
        createsFile = bulkLoad && Self.isAbsentOrEmpty(path)
            && !FileManager.default.fileExists(atPath: path + "-wal")
        // Opened without changing anything: someone else's database is refused untouched (below), before WAL.
        db = try Database(path: path, configuration: .init(busyTimeoutMilliseconds: busyTimeout, foreignKeys: false))
        if !createsFile {
            try Self.checkOwnership(db, path: displayPath)
            try db.setJournalMode(.wal)
        }
        // The run's TEMP tables (rows seen by the sync, which grow with the input) live in a temporary file with
        // its own small page cache, never in memory, whatever the SQLite build's default.
        try db.execute("PRAGMA temp_store = FILE")
        // A new file gets 16 KiB pages (SQLite's default is 4 KiB): measured on issue 8's task (c), 3% fewer
        // instructions for the whole run, less system time, a 5% smaller file, and re-runs as fast.
        if createsFile { try db.execute("PRAGMA page_size = \(Self.newFilePageSize)") }
        // IMMEDIATE: a second writer waits here (busy timeout), before it has read or written anything.
        try db.beginTransaction(.immediate)
        do {
            _ = try SQLiteSchema.migrate(db)
            maxEventID = Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM events") ?? 0)
            maxDayID = Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM \(SQLiteSchema.dayTable)") ?? 0)
            nextDayID = maxDayID + 1
            // Largest ids bound the row counts (max(id) is one index probe, count(*) a scan).
            if bulkLoad && maxDayID <= Self.bulkLoadMaxExistingRows {
                var allNew = true
                for source in Set(context.runState.sourceLabels) {
                    let new = try db.scalarInt("SELECT EXISTS (SELECT 1 FROM events WHERE source = ?)", arguments: [.text(source)]) == 0
                    sourceIsNew[source] = new
                    allNew = allNew && new
                }
                if allNew {
                    // In the run's transaction: a failed or killed run leaves the indexes as they were.
                    for index in SQLiteSchema.bulkIndexes { try db.execute("DROP INDEX IF EXISTS \(index.name)") }
                    bulkLoading = true
                    bulkLoadStarted = true
                }
            }
            try db.execute("""
                CREATE TEMP TABLE IF NOT EXISTS seen_events (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS seen_occurrences (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS seen_days (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS doomed (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS doomed_occurrences (event_id INTEGER, instance_key INTEGER, PRIMARY KEY (event_id, instance_key)) WITHOUT ROWID;
                """)
            statements = try SQLiteSyncStatements(db)
            let env = context.environment
            try db.execute("""
                INSERT INTO runs (pipeline, started_at, status, window_from, window_to, keep_removed)
                VALUES (?, ?, 'running', ?, ?, ?)
                """, arguments: [.text(env.name.isEmpty ? env.pipelineFile : env.name), .text(Self.timestamp()),
                                 SQLiteRowEncoding.text(window?.from.iso8601), SQLiteRowEncoding.text(window?.to.iso8601),
                                 .integer(keepRemoved ? 1 : 0)])
            runID = db.lastInsertRowID
        } catch {
            try? db.rollback()
            throw error
        }
    }

    /// Refuses a database calpipe did not make: tables but no schema version of ours, or a version of ours
    /// without our tables. Reads only.
    static func checkOwnership(_ db: Database, path: String) throws {
        let version = try db.userVersion
        let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").compactMap { $0.first?.text }
        if version == 0 && !tables.isEmpty { throw CalpipeError.foreignDatabase(path: path, tables: tables) }
        // (`occurrences` is a view from version 10, `day_entries` one over `day_rows` from version 11.)
        if version > 0 && version <= SQLiteSchema.currentVersion
            && !(["events", "runs"].allSatisfy(tables.contains) && (tables.contains("day_entries") || tables.contains(SQLiteSchema.dayTable))) {
            throw CalpipeError.foreignDatabase(path: path, tables: tables)
        }
    }

    static func timestamp(_ date: Date = Date()) -> String {
        CivilDateTime(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down))).iso8601 + "Z"
    }

    // MARK: Writing

    func write(_ batch: Batch) throws {
        try apply(batch.deletions)
        eventIDs.removeAll(keepingCapacity: true)
        occurrenceIDs.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        var ids: [Int64?] = []
        ids.reserveCapacity(batch.events.count)
        let duplicatesBefore = counts.duplicates
        // Index loops: elements are borrowed from the arrays instead of copied (an Event holds many references).
        for i in batch.events.indices {
            if batch.events[i].isCancelled {
                counts.cancelledSkipped += 1
                ids.append(nil)
                continue
            }
            if let id = keptID(batch.events[i]) {
                // Unchanged since the last run (incremental): its row stays as it is.
                ids.append(id)
                continue
            }
            ids.append(try writeEvent(batch.events[i], fromBatch: true))
        }
        // A key twice in one batch: the last event wins, and only its occurrences and days are written.
        var duplicated: [EventKey: Event] = [:]
        if counts.duplicates != duplicatesBefore {
            var lastIndex: [EventKey: Int] = [:]
            for (i, event) in batch.events.enumerated() {
                let k = key(event)
                if lastIndex.updateValue(i, forKey: k) != nil { duplicated[k] = event }
            }
            for k in duplicated.keys { duplicated[k] = batch.events[lastIndex[k]!] }
        }
        func wanted(_ event: Event) -> Bool {
            if event.isCancelled { return false }
            if duplicated.isEmpty { return true }
            guard let kept = duplicated[key(event)] else { return true }
            return kept == event
        }
        // This batch's occurrences in batch order (their `slots`; nil: left out), for the days that follow.
        var rows: [(occurrence: Int, event: Int64)?] = []
        if !batch.content.contains(.occurrences) {
            // Not expanded: each event is its own single occurrence (Batch.effectiveOccurrences), written with the
            // id at hand.
            rows.reserveCapacity(batch.events.count)
            for i in batch.events.indices {
                guard let id = ids[i], duplicated.isEmpty || wanted(batch.events[i]) else {
                    rows.append(nil)
                    continue
                }
                rows.append((try writeOccurrence(.init(singleOf: batch.events[i]), eventID: id), id))
            }
        } else {
            rows.reserveCapacity(batch.occurrences.count)
            // Reading isCancelled through `withEvent`: `occurrence.event` from this module copies the whole event
            // (dozens of references; a tenth of a fresh load's sink thread, perf), passing it to `wanted` too.
            for i in batch.occurrences.indices {
                guard !batch.occurrences[i].withEvent({ $0.isCancelled }) && (duplicated.isEmpty || wanted(batch.occurrences[i].event)) else {
                    rows.append(nil)
                    continue
                }
                rows.append(try occurrenceID(batch.occurrences[i]))
            }
        }
        /// Whether `o` is the occurrence at `j` of `rows` (a check of the link a stage kept: a wrong one is never
        /// trusted): the same value, or for unexpanded batches the single occurrence of event `j`.
        func isOccurrence(_ o: Occurrence, at j: Int) -> Bool {
            if batch.content.contains(.occurrences) { return batch.occurrences[j] == o }
            // One batch holds one source's events (the runner stamps them), so uid and recurrence id are the key.
            return o.start == batch.events[j].start && o.end == batch.events[j].end && o.event.uid == batch.events[j].uid
                && o.recurrenceID == batch.events[j].recurrenceID?.time
        }
        // A day's link (`DayEntry.occurrenceIndex`) finds its occurrence's row without building its key; a day
        // without one (held back by a stage) is looked up by key.
        for i in batch.days.indices
        where !batch.days[i].occurrence.withEvent({ $0.isCancelled }) && (duplicated.isEmpty || wanted(batch.days[i].occurrence.event)) {
            var found: (occurrence: Int, event: Int64)?
            if let j = batch.days[i].occurrenceIndex, j < rows.count, let row = rows[j], isOccurrence(batch.days[i].occurrence, at: j) {
                found = row
            }
            let row = try found ?? occurrenceRow(ofDay: batch.days[i].occurrence)
            try writeDay(batch.days[i], occurrenceID: row.occurrence, eventID: row.event)
        }
    }

    /// The row id of an event an incremental run keeps as it is (seen unchanged), else nil.
    private func keptID(_ event: Event) -> Int64? {
        guard let incremental, !memories.isEmpty else { return nil }
        let source = SQLiteRowEncoding.source(of: event)
        guard let memory = memories[source], let stored = memory.stored(uid: event.uid, recurrenceID: event.recurrenceID?.time),
              incremental.isKept(stored.id, source: source) else { return nil }
        return stored.id
    }

    private func key(_ event: Event) -> EventKey {
        EventKey(source: SQLiteRowEncoding.source(of: event), uid: event.uid, recurrenceID: SQLiteRowEncoding.recurrenceIDText(event))
    }

    private func isNew(source: String) throws -> Bool {
        if let known = sourceIsNew[source] { return known }
        let s = statements.sourceHasRows
        try s.bind(source, at: 1)
        _ = try s.step()
        let new = s.int64(at: 0) == 0
        try s.reset()
        sourceIsNew[source] = new
        // A source the pipeline did not list at open, with rows already: its sync needs the unique keys.
        if !new && bulkLoading { try endBulkLoad() }
        return new
    }

    private func keyedChildren() throws -> SQLiteSyncStatements.KeyedChildren {
        if let keyed { return keyed }
        // A bulk load inserts children of new parents only; should a keyed write come, the keys come first.
        try endBulkLoad()
        let made = try SQLiteSyncStatements.KeyedChildren(db)
        keyed = made
        return made
    }

    /// Builds the indexes a bulk load dropped (one sorted pass each) and goes on with keyed writes.
    func endBulkLoad() throws {
        guard bulkLoading else { return }
        bulkLoading = false
        for index in SQLiteSchema.bulkIndexes {
            do {
                try db.execute(index.sql)
            } catch let error as SQLiteError where error.isConstraintViolation && index.name != "events_key" {
                // A key written twice: a stage handed the same occurrence or day on twice, in different batches
                // (within a batch the writer notices). Merge the copies as keyed writes would have, then build.
                try mergeBulkDuplicates()
                do {
                    try db.execute(index.sql)
                } catch let error as SQLiteError where error.isConstraintViolation {
                    throw CalpipeError.sqlite(path, "internal error: the bulk load wrote a row twice (\(index.name)); nothing was written. Please report this with the pipeline")
                }
            }
        }
    }

    /// Merges day entries of a bulk load that share a key, as upserts would have: the first row (lowest id) stays
    /// with the last row's values, a later forecast replaces an earlier one, the others go; the copies of one
    /// occurrence take its first id. Only reached when a stage repeated rows across batches; keeps the run's counts
    /// as keyed writes count them.
    private func mergeBulkDuplicates() throws {
        // An occurrence handed on twice got an id per copy: the first one stays.
        try db.execute("""
            CREATE TEMP TABLE IF NOT EXISTS bulk_occurrences (event_id INTEGER, instance_key INTEGER, id INTEGER, extra INTEGER, PRIMARY KEY (event_id, instance_key)) WITHOUT ROWID;
            DELETE FROM temp.bulk_occurrences;
            INSERT INTO temp.bulk_occurrences SELECT event_id, instance_key, min(coalesce(occurrence_id, id)), count(DISTINCT coalesce(occurrence_id, id)) - 1 FROM \(SQLiteSchema.dayTable)
                GROUP BY event_id, instance_key HAVING count(DISTINCT coalesce(occurrence_id, id)) > 1;
            UPDATE \(SQLiteSchema.dayTable) SET occurrence_id = nullif((SELECT u.id FROM temp.bulk_occurrences u WHERE u.event_id = \(SQLiteSchema.dayTable).event_id AND u.instance_key = \(SQLiteSchema.dayTable).instance_key), id)
                WHERE (event_id, instance_key) IN (SELECT event_id, instance_key FROM temp.bulk_occurrences);
            """)
        counts.occurrencesWritten -= try db.scalarInt("SELECT coalesce(sum(extra), 0) FROM temp.bulk_occurrences") ?? 0
        let columns = SQLiteSyncStatements.dayUpdatedColumns
        try db.execute("""
            CREATE TEMP TABLE IF NOT EXISTS bulk_duplicates (id INTEGER PRIMARY KEY, keep INTEGER NOT NULL, last INTEGER NOT NULL);
            DELETE FROM temp.bulk_duplicates;
            INSERT INTO temp.bulk_duplicates (id, keep, last)
                SELECT o.id, g.keep, g.last FROM \(SQLiteSchema.dayTable) o
                JOIN (SELECT event_id, instance_key, day, min(id) AS keep, max(id) AS last FROM \(SQLiteSchema.dayTable) GROUP BY event_id, instance_key, day
                      HAVING count(*) > 1) g ON o.event_id = g.event_id AND o.instance_key = g.instance_key AND o.day = g.day;
            UPDATE \(SQLiteSchema.dayTable) SET (\(columns.joined(separator: ", "))) =
                (SELECT \(columns.map { "l.\($0)" }.joined(separator: ", ")) FROM \(SQLiteSchema.dayTable) l
                 WHERE l.id = (SELECT last FROM temp.bulk_duplicates d WHERE d.id = \(SQLiteSchema.dayTable).id))
                WHERE id IN (SELECT id FROM temp.bulk_duplicates WHERE id = keep);
            UPDATE OR REPLACE forecasts SET day_entry_id = (SELECT keep FROM temp.bulk_duplicates d WHERE d.id = forecasts.day_entry_id)
                WHERE day_entry_id IN (SELECT id FROM temp.bulk_duplicates WHERE id != keep);
            """)
        // Forecasts are updated in day-entry id order, so the last copy's forecast wins.
        try db.execute("DELETE FROM \(SQLiteSchema.dayTable) WHERE id IN (SELECT id FROM temp.bulk_duplicates WHERE id != keep)")
        counts.daysWritten -= db.changes
        try db.execute("DELETE FROM temp.bulk_duplicates; DELETE FROM temp.bulk_occurrences")
    }

    /// Steps an INSERT; false (statement reset) when it hit the UNIQUE key, i.e. the row exists already.
    private func insertUnlessPresent(_ s: Statement) throws -> Bool {
        do {
            try s.run()
            return true
        } catch let error as SQLiteError where error.extendedCode == 2067 || error.extendedCode == 1555 { // CONSTRAINT_UNIQUE, _PRIMARYKEY
            return false
        }
    }

    /// Steps an upsert: the id when it inserted or changed a row, nil when the row is present and unchanged.
    private func stepUpsert(_ s: Statement) throws -> Int64? {
        var id: Int64?
        if try s.step() {
            id = s.int64(at: 0)
            _ = try s.step()
        }
        try s.reset()
        return id
    }

    private func bindEvent(_ s: Statement, _ event: Event, _ k: EventKey) throws {
        try s.bind(k.source, at: 1)
        try s.bind(k.uid, at: 2)
        try s.bind(k.recurrenceID, at: 3)
        let count = try SQLiteRowEncoding.bindEventValues(event, zone: zone, to: s, from: 4, json: &json, keepSourceText: keepSourceText)
        try s.bind(hasher.hash(event), at: 4 + count)
        try s.bind(event.rawTextHash, at: 5 + count)
        try s.bind(event.origin?.description, at: 6 + count)
        try s.bind(runID, at: 7 + count)
        try s.bind(runID, at: 8 + count)
    }

    /// Inserts or updates an event row (and its attendees); returns its id.
    private func writeEvent(_ event: Event, fromBatch: Bool) throws -> Int64 {
        let k = key(event)
        sourcesSeen.insert(k.source)
        var knownDuplicate = false
        if try isNew(source: k.source) {
            // Nothing of this source existed: insert. A conflict can only be a duplicate within this run.
            try bindEvent(statements.insertEvent, event, k)
            if try insertUnlessPresent(statements.insertEvent) {
                let id = db.lastInsertRowID
                counts.eventsInserted += 1
                try insertAttendees(event.attendees, eventID: id)
                eventIDs[k] = id
                return id
            }
            knownDuplicate = true
            // A duplicate event: its occurrences and days must find the rows of the first copy by key.
            try endBulkLoad()
        }
        let upsert = statements.upsertEvent
        try bindEvent(upsert, event, k)
        let changedID = try stepUpsert(upsert)
        let id: Int64
        if let changedID {
            id = changedID
        } else {
            let select = statements.selectEvent
            try select.bind(k.source, at: 1)
            try select.bind(k.uid, at: 2)
            try select.bind(k.recurrenceID, at: 3)
            defer { try? select.reset() }
            guard try select.step() else { throw CalpipeError.sqlite(path, "event row \(k.uid) vanished during the run") }
            id = select.int64(at: 0)
        }
        let firstTime = try !knownDuplicate && markSeen(id, statements.markSeenEvent)
        if !firstTime && fromBatch {
            counts.duplicates += 1
            context.warn("\(CalpipeError.sqlite(path, "source \"\(k.source)\" has event uid \"\(k.uid)\"\(k.recurrenceID.isEmpty ? "" : " recurrence-id \(k.recurrenceID)") more than once; the last one is kept"))")
        }
        if id > maxEventID && firstTime {
            counts.eventsInserted += 1
            try insertAttendees(event.attendees, eventID: id)
        } else if try replaceAttendeesIfChanged(event.attendees, eventID: id, rowChanged: changedID != nil) || changedID != nil {
            if firstTime { counts.eventsUpdated += 1 }
        }
        eventIDs[k] = id
        return id
    }

    /// Records that a row was seen in this run; false when it already was.
    private func markSeen(_ id: Int64, _ s: Statement) throws -> Bool {
        try s.bind(id, at: 1)
        try s.run()
        return db.changes == 1
    }

    private func insertAttendees(_ attendees: [Attendee], eventID: Int64) throws {
        guard !attendees.isEmpty else { return }
        let insert = statements.insertAttendee
        // By index: the attendees are read in place, not copied.
        for position in attendees.indices {
            try insert.bind(eventID, at: 1)
            try insert.bind(position, at: 2)
            try SQLiteRowEncoding.bindAttendeeValues(attendees[position], to: insert, from: 3, json: &json)
            try insert.run()
        }
        counts.otherRowsChanged += attendees.count
    }

    /// Rewrites an existing event's attendees when they differ; true when they did.
    private func replaceAttendeesIfChanged(_ attendees: [Attendee], eventID: Int64, rowChanged: Bool) throws -> Bool {
        let stored = try db.rows("SELECT name, email, role, status, other_parameters FROM attendees WHERE event_id = ? ORDER BY position",
                                 arguments: [.integer(eventID)])
        let wanted = attendees.map(SQLiteRowEncoding.attendeeValues)
        if stored == wanted { return false }
        try db.execute("DELETE FROM attendees WHERE event_id = ?", arguments: [.integer(eventID)])
        counts.otherRowsChanged += db.changes
        try insertAttendees(attendees, eventID: eventID)
        if !rowChanged {
            try db.execute("UPDATE events SET updated_run = ? WHERE id = ?", arguments: [.integer(runID), .integer(eventID)])
        }
        return true
    }

    /// The row id of an event written earlier (in this batch, or earlier in the run); writes it when missing.
    private func eventID(_ event: Event) throws -> Int64 {
        let k = key(event)
        if let id = eventIDs[k] { return id }
        if let id = keptID(event) {
            eventIDs[k] = id
            return id
        }
        let select = statements.selectEvent
        try select.bind(k.source, at: 1)
        try select.bind(k.uid, at: 2)
        try select.bind(k.recurrenceID, at: 3)
        let found: Int64? = try select.step() ? select.int64(at: 0) : nil
        try select.reset()
        if let id = found {
            let writtenThisRun = try id > maxEventID || isSeen(id, in: "seen_events")
            if writtenThisRun {
                eventIDs[k] = id
                return id
            }
        }
        return try writeEvent(event, fromBatch: false)
    }

    private func isSeen(_ id: Int64, in table: String) throws -> Bool {
        try db.scalarInt("SELECT 1 FROM temp.\(table) WHERE id = ?", arguments: [.integer(id)]) != nil
    }

    /// The rows of a day's occurrence that its link did not find among the batch's occurrences: by key. It
    /// may come from an earlier batch (a stage such as `forecast` holds days back and hands them on later),
    /// and during a bulk load an earlier batch's row cannot be found without its key: the keys are built
    /// first, and the run goes on with keyed writes.
    private func occurrenceRow(ofDay occurrence: Occurrence) throws -> (occurrence: Int, event: Int64) {
        if bulkLoading {
            // Borrowed in place: `occurrence.event` as an argument copies the whole event (Occurrence.withEvent).
            let eventID: Int64 = try occurrence.withEvent { try self.eventID($0) }
            let k = OccurrenceKey(eventID: eventID, instance: SQLiteRowEncoding.instanceKey(occurrence.recurrenceID))
            if let slot = occurrenceIDs[k] { return (slot, eventID) }
            try endBulkLoad()
        }
        return try occurrenceID(occurrence)
    }

    private func occurrenceID(_ occurrence: Occurrence) throws -> (occurrence: Int, event: Int64) {
        let eventID: Int64 = try occurrence.withEvent { try self.eventID($0) }
        return (try writeOccurrence(.init(occurrence), eventID: eventID), eventID)
    }

    /// An occurrence of this batch: its key, its values, and its id (nil until its first day entry is written, for
    /// an occurrence the file does not have yet: it takes that row's id).
    private struct OccurrenceSlot {
        var eventID: Int64
        var instance: SQLiteRowEncoding.InstanceKey
        var values: SQLiteRowEncoding.OccurrenceValues
        var id: Int64?
    }

    /// Finds the occurrence of the event row `eventID` (once per batch) and brings the values its day entries
    /// carry up to date; returns its slot. Occurrences are stored in their day entries (schema 10): a new one is
    /// written with its first day entry.
    private func writeOccurrence(_ occurrence: SQLiteRowEncoding.OccurrenceTimes, eventID: Int64) throws -> Int {
        let k = OccurrenceKey(eventID: eventID, instance: SQLiteRowEncoding.instanceKey(occurrence.recurrenceID))
        if let slot = occurrenceIDs[k] { return slot }
        let values = SQLiteRowEncoding.OccurrenceValues(occurrence, zone: zone)
        var id: Int64?
        // A bulk load writes new events only, and each occurrence once per batch (copies across batches are merged
        // when the keys are built): nothing to look up.
        if !bulkLoading {
            let keyed = try keyedChildren()
            let select = keyed.selectOccurrence
            try select.bind(eventID, at: 1)
            try select.bind(k.instance.key, at: 2)
            if try select.step() {
                id = select.int64(at: 0)
                let unchanged = select.bool(at: 1) == values.allDay && select.int64(at: 2) == values.startUTC && select.int64(at: 3) == values.endUTC
                    && select.text(at: 4) == SQLiteRowEncoding.isoLocal(values.startLocal) && select.text(at: 5) == SQLiteRowEncoding.isoLocal(values.endLocal)
                    && select.isNull(at: 6)
                try select.reset()
                if !unchanged {
                    // Every day entry of the occurrence, also those outside the window, carries its values.
                    let update = keyed.updateOccurrence
                    try update.bind(eventID, at: 1)
                    try update.bind(k.instance.key, at: 2)
                    try values.bind(to: update, from: 3)
                    try update.run()
                    counts.occurrencesWritten += 1
                }
                if id! <= maxDayID { _ = try markSeen(id!, statements.markSeenOccurrence) }
            } else {
                try select.reset()
            }
        }
        slots.append(OccurrenceSlot(eventID: eventID, instance: k.instance, values: values, id: id))
        occurrenceIDs[k] = slots.count - 1
        return slots.count - 1
    }

    /// Writes a day entry of the occurrence in `slots[slot]`: a plain insert when the occurrence is new in this run
    /// (falling back on a duplicate), else an upsert that changes the row only when a value differs.
    private func writeDay(_ day: DayEntry, occurrenceID slot: Int, eventID: Int64) throws {
        let dayText = SQLiteRowEncoding.isoDate(day.day)
        let occurrence = slots[slot]
        let newID = nextDayID
        func bind(_ s: Statement) throws {
            try s.bind(newID, at: 1)
            // The occurrence's first row holds NULL: the occurrence's id is that row's own (schema 12).
            if let id = occurrence.id { try s.bind(id, at: 2) } else { try s.bindNull(at: 2) }
            try SQLiteRowEncoding.bindNarrowDayValues(day, eventID: eventID, to: s, from: 3)
            try s.bind(dayText, at: 14)
            try occurrence.values.bind(to: s, from: 15, besides: day)
            try SQLiteRowEncoding.bind(occurrence.instance, to: s, key: 13, text: 20)
        }
        var result: Int64?
        var written = false
        if occurrence.id.map({ $0 > maxDayID }) ?? true {
            try bind(statements.insertDay)
            // During a bulk load there is no unique key to hit: the insert always inserts.
            if try insertUnlessPresent(statements.insertDay) {
                result = newID
                written = true
            }
        }
        if result == nil {
            let keyed = try keyedChildren()
            if occurrence.id == nil {
                // A copy of a day entry this run wrote already (a stage handed it on twice): its occurrence's id.
                try keyed.selectOccurrence.bind(eventID, at: 1)
                try keyed.selectOccurrence.bind(occurrence.instance.key, at: 2)
                let found = try keyed.selectOccurrence.step() ? keyed.selectOccurrence.int64(at: 0) : nil
                try keyed.selectOccurrence.reset()
                guard let found else { throw CalpipeError.sqlite(path, "a row vanished during the run (\(keyed.selectOccurrence.sql))") }
                slots[slot].id = found
                return try writeDay(day, occurrenceID: slot, eventID: eventID)
            }
            try bind(keyed.upsertDay)
            if let changed = try stepUpsert(keyed.upsertDay) {
                result = changed
                written = true
            } else {
                let select = keyed.selectDay
                try select.bind(eventID, at: 1)
                try select.bind(occurrence.instance.key, at: 2)
                try select.bind(dayText, at: 3)
                defer { try? select.reset() }
                guard try select.step() else { throw CalpipeError.sqlite(path, "a row vanished during the run (\(select.sql))") }
                result = select.int64(at: 0)
            }
        }
        guard let id = result else { return }
        if id == newID {
            nextDayID += 1
            if occurrence.id == nil {
                // A new occurrence is stored with its first day entry (and counted then: a stage that holds the days
                // back hands the occurrence on before them).
                slots[slot].id = id
                counts.occurrencesWritten += 1
            }
        }
        if written { counts.daysWritten += 1 }
        counts.dayEntriesSeen += 1
        let existed = id <= maxDayID
        if existed { _ = try markSeen(id, statements.markSeenDay) }
        try writeForecast(day.forecast, dayEntryID: id, existed: existed)
    }

    private func writeForecast(_ forecast: ForecastResult?, dayEntryID: Int64, existed: Bool) throws {
        guard let forecast else {
            if existed {
                try statements.deleteForecast.bind(dayEntryID, at: 1)
                try statements.deleteForecast.run()
                counts.otherRowsChanged += db.changes
            }
            return
        }
        let upsert = statements.upsertForecast
        try upsert.bind(dayEntryID, at: 1)
        for (i, value) in SQLiteRowEncoding.forecastValues(forecast).enumerated() { try upsert.bind(value, at: i + 2) }
        if try stepUpsert(upsert) != nil { counts.otherRowsChanged += 1 }
    }

    // MARK: Commit

    /// Builds deferred indexes, applies the sync (delete or mark what this run's sources no longer have inside
    /// the window), completes the run row and commits.
    func commit() throws {
        try endBulkLoad()
        let report = context.report
        if report.rejections.isEmpty {
            let sources = Set(context.runState.sourceLabels).union(sourcesSeen).sorted()
            // A source that had no rows before this run has nothing to remove: every row of it is this run's.
            // (Skipping its sync saves the scans of the whole window, about a tenth of a first run's sink time.)
            for source in sources {
                // A delta source's absent events are unchanged, not gone (`SourceFeed.delta`).
                if context.runState.deltaSources.contains(source) {
                    if sourceIsNew[source] != true { try syncDelta(source: source) }
                    continue
                }
                switch incremental?.plan(for: source) ?? .full {
                case .skipped, .kept: continue
                case .events(let delta): try syncIncremental(source: source, delta: delta)
                case .full: if sourceIsNew[source] != true { try sync(source: source) }
                }
            }
        } else {
            // A rejected record may be an event that is still in its feed: removing rows now could lose data.
            let n = report.rejections.count
            context.warn("\(CalpipeError.sqlite(path, "\(n) record\(n == 1 ? " was" : "s were") rejected, so this run removed nothing (a rejected record may be an event still in its feed)"))")
        }
        try saveSourceState()
        try db.execute("""
            UPDATE runs SET finished_at = ?, status = ?, events = ?, day_entries = ?, events_inserted = ?, events_updated = ?,
                events_removed = ?, occurrences = ?, rows_changed = ?, rejected = ?, warnings = ?
            WHERE id = ?
            """, arguments: [
                .text(Self.timestamp()), .text(report.rejections.isEmpty ? "ok" : "ok-with-rejections"),
                .integer(Int64(report.eventsRead)), .integer(Int64(counts.dayEntriesSeen)),
                .integer(Int64(counts.eventsInserted)), .integer(Int64(counts.eventsUpdated)), .integer(Int64(counts.eventsRemoved)),
                .integer(Int64(counts.occurrencesWritten)), .integer(Int64(counts.rowsChanged)),
                .integer(Int64(report.rejections.count)), .integer(Int64(report.warnings.count)), .integer(runID),
            ])
        // A signal until here rolls the transaction back (the runner's commit phase, Cancellation.swift).
        try context.checkCancellation()
        try db.commit()
        if createsFile {
            // The run is committed; should the switch fail (another connection holds the file), the next run
            // switches at open.
            _ = try? db.setJournalMode(.wal)
        }
    }

    /// The window as the bounds the sync statements bind: UTC instants and day texts. No window: everything.
    var bounds: (startUTC: Int64, endUTC: Int64, fromDay: String, toDay: String) {
        guard let window else { return (Int64.min, Int64.max, "", "~") }
        let (s, e) = window.utcRange(in: zone)
        return (s, e, window.from.iso8601, window.to.iso8601)
    }

    typealias Bounds = (startUTC: Int64, endUTC: Int64, fromDay: String, toDay: String)

    /// A UTC range of whole days in the pipeline's zone (one the window gained) as sync bounds.
    private func bounds(of range: Range<Int64>) -> Bounds {
        (range.lowerBound, range.upperBound, zone.local(fromUTC: range.lowerBound).date.iso8601, zone.local(fromUTC: range.upperBound).date.iso8601)
    }

    /// The children of every event of the source (a full run's sync).
    private static let allOfSource = "event_id IN (SELECT id FROM events WHERE source = :source)"

    private func sync(source: String) throws {
        try sync(source: source, bounds: bounds, events: "", children: Self.allOfSource)
    }

    /// The sync of a source read event by event (docs/incremental.md): events no longer in the feed (stored,
    /// not kept, not written) inside the window go; the children of events written in this run (and of series
    /// expanded again) are synced inside the window; the children of every event of the source are synced in the
    /// ranges the window gained, where unchanged events were expanded again.
    private func syncIncremental(source: String, delta: [Range<Int64>]) throws {
        guard let incremental else { return }
        try db.execute("""
            CREATE TEMP TABLE IF NOT EXISTS candidates (id INTEGER PRIMARY KEY);
            CREATE TEMP TABLE IF NOT EXISTS written (id INTEGER PRIMARY KEY);
            DELETE FROM temp.candidates;
            DELETE FROM temp.written;
            INSERT INTO temp.written SELECT id FROM temp.seen_events;
            """)
        let candidate = try db.prepare("INSERT OR IGNORE INTO temp.candidates (id) VALUES (?)")
        for id in incremental.notKept(source: source) {
            try candidate.bind(id, at: 1)
            try candidate.run()
        }
        let written = try db.prepare("INSERT OR IGNORE INTO temp.written (id) VALUES (?)")
        for id in incremental.reexpandedIDs(source: source) {
            try written.bind(id, at: 1)
            try written.run()
        }
        let children = keepRemoved
            ? "(event_id IN (SELECT id FROM temp.written) OR event_id IN (SELECT id FROM events WHERE source = :source AND removed_run = :run))"
            : "event_id IN (SELECT id FROM temp.written)"
        try sync(source: source, bounds: bounds, events: "AND id IN (SELECT id FROM temp.candidates)", children: children)
        for range in delta {
            // Driven by the range (day index, start index), not by the source's events (every row of it).
            try sync(source: source, bounds: bounds(of: range), events: nil, children: "+event_id IN (SELECT id FROM events WHERE source = :source)",
                     occurrencesInRange: true)
        }
        counts.eventsUnchanged += incremental.keptCount(source: source)
    }

    /// Deletes (or marks, with keep_removed) what this run did not see of `source` inside `b`: events (those
    /// matching the extra condition `events`; nil: none) with their children, and occurrences and day entries of
    /// the events `children` names. An occurrence lives in its day entries (schema 10): it goes with all of them,
    /// also those outside the window, as its row once went with its children.
    func sync(source: String, bounds b: Bounds, events: String?, children: String, occurrencesInRange: Bool = false) throws {
        // Events whose span touches the window (zero-length spans: that start inside it), seen or not.
        let eventInWindow = """
            source = :source AND id <= :maxEvent AND start_utc < :end
            AND (span_end_utc IS NULL OR span_end_utc > :start OR (span_end_utc <= start_utc AND start_utc >= :start))
            AND id NOT IN (SELECT id FROM temp.seen_events) \(events ?? "")
            """
        // In a range the window gained: the occurrences that have a day entry in it (one that starts in it has its
        // first day in it). Occurrences of earlier runs have ids up to maxDay (their first day entry's id).
        let inRange = occurrencesInRange ? "day >= :fromDay AND day < :toDay AND " : ""
        let start = SQLiteSchema.occurrenceValue("start_utc", of: SQLiteSchema.dayTable), end = SQLiteSchema.occurrenceValue("end_utc", of: SQLiteSchema.dayTable)
        let occurrenceInWindow = """
            \(inRange)\(children) AND coalesce(occurrence_id, id) <= :maxDay
            AND \(start) < :end AND (\(end) > :start OR (\(end) <= \(start) AND \(start) >= :start))
            AND coalesce(occurrence_id, id) NOT IN (SELECT id FROM temp.seen_occurrences)\(keepRemoved ? " AND occurrence_removed_run IS NULL" : "")
            """
        // Day entries carry their event (the unique key begins with it); a condition marked unindexed ("+event_id
        // ...", the ranges the window gained) is read off the day range.
        let dayInWindow = """
            \(children) AND id <= :maxDay
            AND day >= :fromDay AND day < :toDay
            AND id NOT IN (SELECT id FROM temp.seen_days)
            """
        let ofDoomedOccurrences = "(event_id, instance_key) IN (SELECT event_id, instance_key FROM temp.doomed_occurrences)"
        @discardableResult
        func run(_ sql: String) throws -> Int {
            let statement = try db.cachedStatement(sql)
            let values: [String: SQLiteValue] = [
                ":source": .text(source), ":start": .integer(b.startUTC), ":end": .integer(b.endUTC),
                ":fromDay": .text(b.fromDay), ":toDay": .text(b.toDay), ":run": .integer(runID),
                ":maxEvent": .integer(maxEventID), ":maxDay": .integer(maxDayID),
            ]
            for (name, value) in values {
                if let index = statement.parameterIndex(name) { try statement.bind(value, at: index) }
            }
            try statement.run()
            return db.changes
        }
        if keepRemoved {
            if events != nil {
                counts.eventsRemoved += try run("UPDATE events SET removed_run = :run WHERE removed_run IS NULL AND \(eventInWindow)")
            }
            try run("DELETE FROM temp.doomed_occurrences")
            counts.occurrencesRemoved += try run("INSERT OR IGNORE INTO temp.doomed_occurrences SELECT event_id, instance_key FROM \(SQLiteSchema.dayTable) WHERE \(occurrenceInWindow)")
            try run("UPDATE \(SQLiteSchema.dayTable) SET occurrence_removed_run = :run WHERE occurrence_removed_run IS NULL AND \(ofDoomedOccurrences)")
            counts.daysRemoved += try run("UPDATE \(SQLiteSchema.dayTable) SET removed_run = :run WHERE removed_run IS NULL AND \(dayInWindow)")
        } else {
            // Deleting an event deletes its attendees, day entries (with its occurrences) and forecasts; an occurrence
            // its day entries and their forecasts: what ON DELETE CASCADE does, done here because this connection
            // does not enforce foreign keys (see init). Children first, the counted parent delete last.
            if events != nil {
                try run("DELETE FROM temp.doomed")
                try run("INSERT INTO temp.doomed (id) SELECT id FROM events WHERE \(eventInWindow)")
                try run("DELETE FROM forecasts WHERE day_entry_id IN (SELECT id FROM \(SQLiteSchema.dayTable) WHERE event_id IN (SELECT id FROM temp.doomed))")
                try run("DELETE FROM \(SQLiteSchema.dayTable) WHERE event_id IN (SELECT id FROM temp.doomed)")
                try run("DELETE FROM attendees WHERE event_id IN (SELECT id FROM temp.doomed)")
                counts.eventsRemoved += try run("DELETE FROM events WHERE id IN (SELECT id FROM temp.doomed)")
            }
            try run("DELETE FROM temp.doomed_occurrences")
            counts.occurrencesRemoved += try run("INSERT OR IGNORE INTO temp.doomed_occurrences SELECT event_id, instance_key FROM \(SQLiteSchema.dayTable) WHERE \(occurrenceInWindow)")
            try run("DELETE FROM forecasts WHERE day_entry_id IN (SELECT id FROM \(SQLiteSchema.dayTable) WHERE \(ofDoomedOccurrences))")
            try run("DELETE FROM \(SQLiteSchema.dayTable) WHERE \(ofDoomedOccurrences)")
            try run("DELETE FROM temp.doomed")
            try run("INSERT INTO temp.doomed (id) SELECT id FROM \(SQLiteSchema.dayTable) WHERE \(dayInWindow)")
            try run("DELETE FROM forecasts WHERE day_entry_id IN (SELECT id FROM temp.doomed)")
            counts.daysRemoved += try run("DELETE FROM \(SQLiteSchema.dayTable) WHERE id IN (SELECT id FROM temp.doomed)")
        }
    }

    // MARK: Incremental runs

    /// What the file remembers of `source` for this run's plan (`IncrementalSink.memory(ofSource:current:)`).
    func memory(ofSource source: String, current: SourceFingerprint) throws -> (any SourceMemory)? {
        guard let row = try db.rows("SELECT input_fingerprint, config_fingerprint, window, keep_removed, context_hash, source_text FROM source_state WHERE source = ?",
                                    arguments: [.text(source)]).first,
              row[3].int64 == (keepRemoved ? 1 : 0), row[5].int64 == (keepSourceText ? 1 : 0) else { return nil }
        let stored = SourceFingerprint(input: row[0].text, config: row[1].text ?? "", window: row[2].text ?? "")
        // Skipped, or read in full: no event hashes needed.
        if (stored == current && current.input != nil) || stored.config != current.config { return SQLiteSourceMemory(fingerprint: stored) }
        let memory = try SQLiteSourceMemory(fingerprint: stored, db: db, source: source, contextHash: row[4].text)
        memories[source] = memory
        return memory
    }

    func remembersEvents(ofSource source: String) throws -> Bool {
        try db.scalarInt("SELECT EXISTS (SELECT 1 FROM events WHERE source = ? AND removed_run IS NULL)", arguments: [.text(source)]) == 1
    }

    /// Stores what this run read of each source (`source_state`), for the next run's plan. A skipped source
    /// keeps its row; a run with rejected records stores no input fingerprint (the next run reads it again);
    /// a run that is not incremental forgets the source.
    private func saveSourceState() throws {
        let pipeline = context.environment.name.isEmpty ? context.environment.pipelineFile : context.environment.name
        for source in Set(context.runState.sourceLabels).sorted() {
            if case .kept? = incremental?.plan(for: source) { continue }
            guard let incremental, let current = incremental.current[source] else {
                try db.execute("DELETE FROM source_state WHERE source = ?", arguments: [.text(source)])
                continue
            }
            switch incremental.plan(for: source) {
            case .skipped, .kept: continue
            default: break
            }
            try db.execute("""
                INSERT OR REPLACE INTO source_state (source, pipeline, input_fingerprint, config_fingerprint, window, keep_removed, run_id, context_hash,
                                                     source_text)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [.text(source), .text(pipeline), context.report.rejections.isEmpty ? SQLiteRowEncoding.text(current.input) : .null,
                                 .text(current.config), .text(current.window), .integer(keepRemoved ? 1 : 0), .integer(runID),
                                 context.report.rejections.isEmpty ? SQLiteRowEncoding.text(incremental.context(for: source)) : .null,
                                 .integer(keepSourceText ? 1 : 0)])
        }
    }

    func rollback() {
        // Nothing to report if this fails: closing the connection (deinit) rolls back too.
        try? db.rollback()
    }
}
