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
        var instance: String
    }

    let db: Database
    let path: String
    let keepRemoved: Bool
    let zone: Zone
    let window: Window?
    let runID: Int64
    /// True when the database was created by this run: secondary indexes are built once at commit.
    let isNewDatabase: Bool
    /// Largest row ids before this run: rows above them were inserted by this run (seen by definition).
    private let maxEventID: Int64
    private let maxOccurrenceID: Int64
    private let maxDayID: Int64
    private(set) var counts = Counts()
    private var sourcesSeen: Set<String> = []
    private var eventIDs: [EventKey: Int64] = [:]
    private var occurrenceIDs: [OccurrenceKey: Int64] = [:]
    private let context: RunContext

    private let eventColumns = SQLiteRowEncoding.eventContentColumns
    private lazy var eventUpsertSQL: String = {
        let columns = ["source", "uid", "recurrence_id"] + eventColumns + ["origin", "created_run", "updated_run"]
        let placeholders = (1...columns.count).map { "?\($0)" }.joined(separator: ", ")
        let sets = (eventColumns + ["origin", "updated_run"]).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let differs = eventColumns.map { "events.\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        return """
            INSERT INTO events (\(columns.joined(separator: ", "))) VALUES (\(placeholders))
            ON CONFLICT (source, uid, recurrence_id) DO UPDATE SET \(sets), removed_run = NULL
            WHERE \(differs) OR events.removed_run IS NOT NULL
            RETURNING id
            """
    }()

    private static func upsertSQL(table: String, key: [String], content: [String], extraWhere: String = "") -> String {
        let columns = key + content
        let placeholders = (1...columns.count).map { "?\($0)" }.joined(separator: ", ")
        let sets = content.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let differs = content.map { "\(table).\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
        return """
            INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))
            ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(sets)\(extraWhere.isEmpty ? "" : ", removed_run = NULL")
            WHERE \(differs)\(extraWhere)
            """
    }

    private let occurrenceUpsertSQL = upsertSQL(table: "occurrences", key: ["event_id", "instance"],
                                                content: SQLiteRowEncoding.occurrenceContentColumns,
                                                extraWhere: " OR occurrences.removed_run IS NOT NULL") + " RETURNING id"
    private let dayUpsertSQL = upsertSQL(table: "day_entries", key: ["occurrence_id", "day"],
                                         content: SQLiteRowEncoding.dayContentColumns,
                                         extraWhere: " OR day_entries.removed_run IS NOT NULL") + " RETURNING id"
    private let forecastUpsertSQL = upsertSQL(table: "forecasts", key: ["day_entry_id"], content: SQLiteRowEncoding.forecastContentColumns)

    /// Opens the database, waits for the write lock, upgrades the schema and records the run.
    init(path: String, displayPath: String, keepRemoved: Bool, busyTimeout: Int, context: RunContext) throws {
        self.path = displayPath
        self.keepRemoved = keepRemoved
        self.context = context
        zone = context.zone
        window = context.window
        db = try Database(path: path, configuration: .init(busyTimeoutMilliseconds: busyTimeout, journalMode: .wal))
        // IMMEDIATE: a second writer waits here (busy timeout), before it has read or written anything.
        try db.beginTransaction(.immediate)
        do {
            let oldVersion = try SQLiteSchema.migrate(db)
            isNewDatabase = oldVersion == 0
            if isNewDatabase {
                for index in SQLiteSchema.deferredIndexes { try db.execute("DROP INDEX IF EXISTS \(index.name)") }
            }
            maxEventID = Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM events") ?? 0)
            maxOccurrenceID = Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM occurrences") ?? 0)
            maxDayID = Int64(try db.scalarInt("SELECT coalesce(max(id), 0) FROM day_entries") ?? 0)
            try db.execute("""
                CREATE TEMP TABLE IF NOT EXISTS seen_events (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS seen_occurrences (id INTEGER PRIMARY KEY);
                CREATE TEMP TABLE IF NOT EXISTS seen_days (id INTEGER PRIMARY KEY);
                """)
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

    static func timestamp(_ date: Date = Date()) -> String {
        CivilDateTime(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down))).iso8601 + "Z"
    }

    // MARK: Writing

    func write(_ batch: Batch) throws {
        eventIDs.removeAll(keepingCapacity: true)
        occurrenceIDs.removeAll(keepingCapacity: true)
        // A key twice in one batch: the last event wins, and only its occurrences and days are written.
        var lastIndex: [EventKey: Int] = [:]
        var duplicated: [EventKey: Event] = [:]
        for (i, event) in batch.events.enumerated() {
            let k = key(event)
            if lastIndex.updateValue(i, forKey: k) != nil { duplicated[k] = event }
        }
        for k in duplicated.keys { duplicated[k] = batch.events[lastIndex[k]!] }
        func wanted(_ event: Event) -> Bool {
            if event.isCancelled { return false }
            if duplicated.isEmpty { return true }
            guard let kept = duplicated[key(event)] else { return true }
            return kept == event
        }
        for event in batch.events {
            if event.isCancelled {
                counts.cancelledSkipped += 1
                continue
            }
            _ = try writeEvent(event, fromBatch: true)
        }
        for occurrence in batch.effectiveOccurrences where wanted(occurrence.event) {
            _ = try occurrenceID(occurrence)
        }
        for day in batch.days where wanted(day.event) {
            try writeDay(day)
        }
    }

    private func key(_ event: Event) -> EventKey {
        EventKey(source: SQLiteRowEncoding.source(of: event), uid: event.uid, recurrenceID: SQLiteRowEncoding.recurrenceIDText(event))
    }

    /// Inserts or updates an event row (and its attendees); returns its id.
    private func writeEvent(_ event: Event, fromBatch: Bool) throws -> Int64 {
        let k = key(event)
        sourcesSeen.insert(k.source)
        let upsert = try db.cachedStatement(eventUpsertSQL)
        try upsert.bind(k.source, at: 1)
        try upsert.bind(k.uid, at: 2)
        try upsert.bind(k.recurrenceID, at: 3)
        var index = 4
        for value in SQLiteRowEncoding.eventValues(event, zone: zone) {
            try upsert.bind(value, at: index)
            index += 1
        }
        try upsert.bind(event.origin?.description, at: index)
        try upsert.bind(runID, at: index + 1)
        try upsert.bind(runID, at: index + 2)
        let id: Int64
        let changed: Bool
        if try upsert.step() {
            id = upsert.int64(at: 0)
            changed = true
            _ = try upsert.step()
        } else {
            guard let existing = try lookupEventID(k) else {
                throw SQLiteSinkError(path: path, message: "event row \(k.uid) vanished during the run")
            }
            id = existing
            changed = false
        }
        try upsert.reset()

        let firstTime = try markSeen(id, in: "seen_events")
        if !firstTime && fromBatch {
            counts.duplicates += 1
            context.warn("\(SQLiteSinkError(path: path, message: "source \"\(k.source)\" has event uid \"\(k.uid)\"\(k.recurrenceID.isEmpty ? "" : " recurrence-id \(k.recurrenceID)") more than once; the last one is kept"))")
        }
        let inserted = id > maxEventID && firstTime
        if inserted {
            counts.eventsInserted += 1
            try insertAttendees(event.attendees, eventID: id)
        } else if try replaceAttendeesIfChanged(event.attendees, eventID: id, rowChanged: changed) || changed {
            if firstTime { counts.eventsUpdated += 1 }
        }
        eventIDs[k] = id
        return id
    }

    private func lookupEventID(_ k: EventKey) throws -> Int64? {
        let select = try db.cachedStatement("SELECT id FROM events WHERE source = ?1 AND uid = ?2 AND recurrence_id = ?3")
        try select.bind(k.source, at: 1)
        try select.bind(k.uid, at: 2)
        try select.bind(k.recurrenceID, at: 3)
        defer { try? select.reset() }
        return try select.step() ? select.int64(at: 0) : nil
    }

    /// Records that a row was seen in this run; false when it already was.
    private func markSeen(_ id: Int64, in table: String) throws -> Bool {
        let insert = try db.cachedStatement("INSERT OR IGNORE INTO temp.\(table) (id) VALUES (?)")
        try insert.bind(id, at: 1)
        try insert.run()
        return db.changes == 1
    }

    private func insertAttendees(_ attendees: [Attendee], eventID: Int64) throws {
        guard !attendees.isEmpty else { return }
        let insert = try db.cachedStatement("INSERT INTO attendees (event_id, position, name, email, role, status, other_parameters) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for (position, attendee) in attendees.enumerated() {
            try insert.bind(eventID, at: 1)
            try insert.bind(position, at: 2)
            for (i, value) in SQLiteRowEncoding.attendeeValues(attendee).enumerated() { try insert.bind(value, at: i + 3) }
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
        if let id = try lookupEventID(k) {
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

    private func occurrenceID(_ occurrence: Occurrence) throws -> Int64 {
        let eventID = try eventID(occurrence.event)
        let k = OccurrenceKey(eventID: eventID, instance: SQLiteRowEncoding.instance(occurrence))
        if let id = occurrenceIDs[k] { return id }
        let upsert = try db.cachedStatement(occurrenceUpsertSQL)
        try upsert.bind(eventID, at: 1)
        try upsert.bind(k.instance, at: 2)
        for (i, value) in SQLiteRowEncoding.occurrenceValues(occurrence, zone: zone).enumerated() { try upsert.bind(value, at: i + 3) }
        let id: Int64
        if try upsert.step() {
            id = upsert.int64(at: 0)
            _ = try upsert.step()
            try upsert.reset()
            counts.occurrencesWritten += 1
        } else {
            try upsert.reset()
            let select = try db.cachedStatement("SELECT id FROM occurrences WHERE event_id = ? AND instance = ?")
            try select.bind(eventID, at: 1)
            try select.bind(k.instance, at: 2)
            guard try select.step() else { throw SQLiteSinkError(path: path, message: "occurrence row vanished during the run") }
            id = select.int64(at: 0)
            try select.reset()
        }
        if id <= maxOccurrenceID { _ = try markSeen(id, in: "seen_occurrences") }
        occurrenceIDs[k] = id
        return id
    }

    private func writeDay(_ day: DayEntry) throws {
        let occurrenceID = try occurrenceID(day.occurrence)
        let eventID = try eventID(day.event)
        let dayText = day.day.iso8601
        let upsert = try db.cachedStatement(dayUpsertSQL)
        try upsert.bind(occurrenceID, at: 1)
        try upsert.bind(dayText, at: 2)
        for (i, value) in SQLiteRowEncoding.dayValues(day, eventID: eventID).enumerated() { try upsert.bind(value, at: i + 3) }
        let id: Int64
        if try upsert.step() {
            id = upsert.int64(at: 0)
            _ = try upsert.step()
            try upsert.reset()
            counts.daysWritten += 1
        } else {
            try upsert.reset()
            let select = try db.cachedStatement("SELECT id FROM day_entries WHERE occurrence_id = ? AND day = ?")
            try select.bind(occurrenceID, at: 1)
            try select.bind(dayText, at: 2)
            guard try select.step() else { throw SQLiteSinkError(path: path, message: "day entry row vanished during the run") }
            id = select.int64(at: 0)
            try select.reset()
        }
        counts.dayEntriesSeen += 1
        let existed = id <= maxDayID
        if existed { _ = try markSeen(id, in: "seen_days") }
        try writeForecast(day.forecast, dayEntryID: id, existed: existed)
    }

    private func writeForecast(_ forecast: ForecastResult?, dayEntryID: Int64, existed: Bool) throws {
        guard let forecast else {
            if existed {
                try db.execute("DELETE FROM forecasts WHERE day_entry_id = ?", arguments: [.integer(dayEntryID)])
                counts.otherRowsChanged += db.changes
            }
            return
        }
        let upsert = try db.cachedStatement(forecastUpsertSQL)
        try upsert.bind(dayEntryID, at: 1)
        for (i, value) in SQLiteRowEncoding.forecastValues(forecast).enumerated() { try upsert.bind(value, at: i + 2) }
        try upsert.run()
        counts.otherRowsChanged += db.changes
    }

    // MARK: Commit

    /// Builds deferred indexes, applies the sync (delete or mark what this run's sources no longer have inside
    /// the window), completes the run row and commits.
    func commit() throws {
        if isNewDatabase {
            for index in SQLiteSchema.deferredIndexes { try db.execute(index.sql) }
        }
        let sources = Set(context.sourceLabels).union(sourcesSeen).sorted()
        for source in sources { try sync(source: source) }
        let report = context.report
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
        try db.commit()
    }

    /// The window as the bounds the sync statements bind: UTC instants and day texts. No window: everything.
    private var bounds: (startUTC: Int64, endUTC: Int64, fromDay: String, toDay: String) {
        guard let window else { return (Int64.min, Int64.max, "", "~") }
        let (s, e) = window.utcRange(in: zone)
        return (s, e, window.from.iso8601, window.to.iso8601)
    }

    private func sync(source: String) throws {
        let b = bounds
        // Events whose span touches the window (zero-length spans: that start inside it), seen or not.
        let eventInWindow = """
            source = :source AND id <= :maxEvent AND start_utc < :end
            AND (span_end_utc IS NULL OR span_end_utc > :start OR (span_end_utc <= start_utc AND start_utc >= :start))
            AND id NOT IN (SELECT id FROM temp.seen_events)
            """
        let occurrenceInWindow = """
            event_id IN (SELECT id FROM events WHERE source = :source) AND id <= :maxOccurrence
            AND start_utc < :end AND (end_utc > :start OR (end_utc <= start_utc AND start_utc >= :start))
            AND id NOT IN (SELECT id FROM temp.seen_occurrences)
            """
        let dayInWindow = """
            event_id IN (SELECT id FROM events WHERE source = :source) AND id <= :maxDay
            AND day >= :fromDay AND day < :toDay
            AND id NOT IN (SELECT id FROM temp.seen_days)
            """
        func run(_ sql: String) throws -> Int {
            let statement = try db.cachedStatement(sql)
            let values: [String: SQLiteValue] = [
                ":source": .text(source), ":start": .integer(b.startUTC), ":end": .integer(b.endUTC),
                ":fromDay": .text(b.fromDay), ":toDay": .text(b.toDay), ":run": .integer(runID),
                ":maxEvent": .integer(maxEventID), ":maxOccurrence": .integer(maxOccurrenceID), ":maxDay": .integer(maxDayID),
            ]
            for (name, value) in values {
                if let index = statement.parameterIndex(name) { try statement.bind(value, at: index) }
            }
            try statement.run()
            return db.changes
        }
        if keepRemoved {
            counts.eventsRemoved += try run("UPDATE events SET removed_run = :run WHERE removed_run IS NULL AND \(eventInWindow)")
            counts.occurrencesRemoved += try run("UPDATE occurrences SET removed_run = :run WHERE removed_run IS NULL AND \(occurrenceInWindow)")
            counts.daysRemoved += try run("UPDATE day_entries SET removed_run = :run WHERE removed_run IS NULL AND \(dayInWindow)")
        } else {
            // Deleting an event deletes its attendees, occurrences, day entries and forecasts (ON DELETE CASCADE).
            counts.eventsRemoved += try run("DELETE FROM events WHERE \(eventInWindow)")
            counts.occurrencesRemoved += try run("DELETE FROM occurrences WHERE \(occurrenceInWindow)")
            counts.daysRemoved += try run("DELETE FROM day_entries WHERE \(dayInWindow)")
        }
    }

    func rollback() {
        // Nothing to report if this fails: closing the connection (deinit) rolls back too.
        try? db.rollback()
    }
}
