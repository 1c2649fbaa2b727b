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
            try removeEvents()
            if d.recurrenceID != nil {
                try db.execute("DELETE FROM temp.doomed")
                try db.execute("""
                    INSERT INTO temp.doomed (id) SELECT id FROM occurrences
                    WHERE instance = ?3 AND event_id IN (SELECT id FROM events WHERE source = ?1 AND uid = ?2)\(alive)
                    """, arguments: args)
                try removeOccurrences()
            }
        }
    }

    /// Removes (or, with `keep_removed`, marks removed) the day entries that `condition` picks, with their forecasts.
    private func removeDays(where condition: String) throws {
        if keepRemoved {
            try db.execute("UPDATE day_entries SET removed_run = \(runID) WHERE removed_run IS NULL AND \(condition)")
        } else {
            // What ON DELETE CASCADE would do (this connection does not enforce foreign keys): children first.
            try db.execute("DELETE FROM forecasts WHERE day_entry_id IN (SELECT id FROM day_entries WHERE \(condition))")
            try db.execute("DELETE FROM day_entries WHERE \(condition)")
        }
        counts.daysRemoved += db.changes
    }

    /// Removes the events in temp.doomed with their children.
    private func removeEvents() throws {
        try removeDays(where: "occurrence_id IN (SELECT id FROM occurrences WHERE event_id IN (SELECT id FROM temp.doomed))")
        if keepRemoved {
            try db.execute("UPDATE occurrences SET removed_run = \(runID) WHERE removed_run IS NULL AND event_id IN (SELECT id FROM temp.doomed)")
            counts.occurrencesRemoved += db.changes
            try db.execute("UPDATE events SET removed_run = \(runID) WHERE id IN (SELECT id FROM temp.doomed)")
            counts.eventsRemoved += db.changes
        } else {
            try db.execute("DELETE FROM occurrences WHERE event_id IN (SELECT id FROM temp.doomed)")
            counts.occurrencesRemoved += db.changes
            try db.execute("DELETE FROM attendees WHERE event_id IN (SELECT id FROM temp.doomed)")
            try db.execute("DELETE FROM events WHERE id IN (SELECT id FROM temp.doomed)")
            counts.eventsRemoved += db.changes
        }
    }

    /// Removes the occurrences in temp.doomed with their day entries.
    private func removeOccurrences() throws {
        try removeDays(where: "occurrence_id IN (SELECT id FROM temp.doomed)")
        if keepRemoved {
            try db.execute("UPDATE occurrences SET removed_run = \(runID) WHERE id IN (SELECT id FROM temp.doomed)")
        } else {
            try db.execute("DELETE FROM occurrences WHERE id IN (SELECT id FROM temp.doomed)")
        }
        counts.occurrencesRemoved += db.changes
    }

    /// The sync of a `.delta` source: nothing of it goes for being absent. Only the events written in this run
    /// have their occurrences and day entries synced in the window (a changed event's old instances and days go).
    func syncDelta(source: String) throws {
        try sync(source: source, bounds: bounds, events: nil, children: "event_id IN (SELECT id FROM temp.seen_events)")
    }
}
