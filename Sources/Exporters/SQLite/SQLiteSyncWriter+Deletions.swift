import CalSQLite
import Pipeline

/// Deletions (`Batch.deletions`) and the sync of a `.delta` source (`SourceFeed`): docs/architecture.md, "Batches:
/// operations, links and deletions".
extension SQLiteSyncWriter {
    /// Removes (or marks, with keep_removed) what each deletion names, with its occurrences, day entries and
    /// forecasts: every event row of the UID, or for an instance the override of it and the occurrence of it.
    /// Applied when the batch comes, so a later batch of the run may bring the UID back.
    func apply(_ deletions: [Deletion]) throws {
        guard !deletions.isEmpty else { return }
        try endBulkLoad()
        let alive = keepRemoved ? " AND removed_run IS NULL" : ""
        for d in deletions {
            var args: [SQLiteValue] = [.text(d.source), .text(d.uid)]
            var condition = "source = ?1 AND uid = ?2"
            if let time = d.recurrenceID {
                args.append(.text(SQLiteRowEncoding.iso(time, startUTC: nil)))
                condition += " AND recurrence_id = ?3"
            }
            // The event rows first (an instance's override), then the instance's occurrence of the other rows.
            try db.execute("DELETE FROM temp.doomed")
            try db.execute("INSERT INTO temp.doomed (id) SELECT id FROM events WHERE \(condition)\(alive)", arguments: args)
            try removeOccurrences(of: "event_id IN (SELECT id FROM temp.doomed)", arguments: [])
            try removeEvents()
            if d.recurrenceID != nil {
                try removeOccurrences(of: "instance_key = ?3 AND event_id IN (SELECT id FROM events WHERE source = ?1 AND uid = ?2)",
                                      arguments: [args[0], args[1], .integer(SQLiteRowEncoding.instanceKey(d.recurrenceID).key)])
            }
        }
    }

    /// Removes (or, with `keep_removed`, marks removed) the occurrences whose day entries `condition` picks (schema
    /// 10: an occurrence lives in its day entries), with their day entries and forecasts.
    private func removeOccurrences(of condition: String, arguments: [SQLiteValue]) throws {
        if keepRemoved {
            counts.occurrencesRemoved += try db.scalarInt(
                "SELECT count(*) FROM (SELECT DISTINCT event_id, instance_key FROM \(SQLiteSchema.dayTable) WHERE occurrence_removed_run IS NULL AND \(condition))",
                arguments: arguments) ?? 0
            try db.execute("UPDATE \(SQLiteSchema.dayTable) SET occurrence_removed_run = \(runID) WHERE occurrence_removed_run IS NULL AND \(condition)", arguments: arguments)
            try db.execute("UPDATE \(SQLiteSchema.dayTable) SET removed_run = \(runID) WHERE removed_run IS NULL AND \(condition)", arguments: arguments)
            counts.daysRemoved += db.changes
        } else {
            counts.occurrencesRemoved += try db.scalarInt("SELECT count(*) FROM (SELECT DISTINCT event_id, instance_key FROM \(SQLiteSchema.dayTable) WHERE \(condition))",
                                                          arguments: arguments) ?? 0
            // What ON DELETE CASCADE would do (this connection does not enforce foreign keys): children first.
            try db.execute("DELETE FROM forecasts WHERE day_entry_id IN (SELECT id FROM \(SQLiteSchema.dayTable) WHERE \(condition))", arguments: arguments)
            try db.execute("DELETE FROM \(SQLiteSchema.dayTable) WHERE \(condition)", arguments: arguments)
            counts.daysRemoved += db.changes
        }
    }

    /// Removes the events in temp.doomed (their day entries and occurrences are gone already).
    private func removeEvents() throws {
        if keepRemoved {
            try db.execute("UPDATE events SET removed_run = \(runID) WHERE id IN (SELECT id FROM temp.doomed)")
            counts.eventsRemoved += db.changes
        } else {
            try db.execute("DELETE FROM attendees WHERE event_id IN (SELECT id FROM temp.doomed)")
            try db.execute("DELETE FROM events WHERE id IN (SELECT id FROM temp.doomed)")
            counts.eventsRemoved += db.changes
        }
    }

    /// The sync of a `.delta` source: nothing of it goes for being absent. Only the events written in this run
    /// have their occurrences and day entries synced in the window (a changed event's old instances and days go).
    func syncDelta(source: String) throws {
        try sync(source: source, bounds: bounds, events: nil, children: "event_id IN (SELECT id FROM temp.seen_events)")
    }
}
