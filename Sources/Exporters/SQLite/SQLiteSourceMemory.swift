import CalSQLite
import Pipeline

/// What the agenda database remembers of one source (`SourceMemory`, docs/incremental.md): the fingerprint
/// its last run stored in `source_state` and, when the run can use them, the content hashes of its events,
/// keyed by a 64-bit hash of (uid, recurrence id) to keep memory small (about 40 bytes per event). Two keys
/// with the same hash are both forgotten (their events are then written as new ones): never a wrong skip.
final class SQLiteSourceMemory: SourceMemory, Sendable {
    // Filled in `init`, read-only afterwards: every field is a constant.
    let fingerprint: SourceFingerprint
    let contextHash: String?
    private let events: HashedKeyTable<StoredEvent>
    /// Single events by the hash of their raw text (`events.text_hash`), when the source has a stored context.
    private let texts: HashedKeyTable<StoredText>
    let seriesParts: [UInt64: [(textHash: Int64?, part: StoredText)]]
    private let uidCounts: HashedKeyTable<Int32>
    let allIDs: [Int64]

    /// The fingerprint only (a source that will be skipped or read in full needs no event hashes).
    init(fingerprint: SourceFingerprint) {
        self.fingerprint = fingerprint
        contextHash = nil
        events = HashedKeyTable()
        texts = HashedKeyTable()
        seriesParts = [:]
        uidCounts = HashedKeyTable()
        allIDs = []
    }

    /// The fingerprint and the hashes of the source's live events (and, with a context, their texts' hashes).
    init(fingerprint: SourceFingerprint, db: Database, source: String, contextHash: String?) throws {
        self.fingerprint = fingerprint
        self.contextHash = contextHash
        // Sized once (from the events_key index) rather than grown row by row. Keys seen twice are ambiguous
        // (`HashedKeyTable.insertUnlessTaken`): never a wrong skip.
        let rows = try db.scalarInt("SELECT count(*) FROM events WHERE source = ?", arguments: [.text(source)]) ?? 0
        var events = HashedKeyTable<StoredEvent>(capacity: rows)
        var texts = HashedKeyTable<StoredText>(capacity: contextHash == nil ? 0 : rows)
        var seriesParts: [UInt64: [(textHash: Int64?, part: StoredText)]] = [:]
        var uidCounts = HashedKeyTable<Int32>(capacity: rows)
        var allIDs: [Int64] = []
        allIDs.reserveCapacity(rows)
        let s = try db.prepare("""
            SELECT id, uid, recurrence_id, content_hash, removed_run, text_hash, start_utc, span_end_utc,
                   rrule IS NULL AND rdate IS NULL AND recurrence_id = ''
            FROM events WHERE source = ?
            """)
        try s.bind(source, at: 1)
        while try s.step() {
            let id = s.int64(at: 0)
            allIDs.append(id)
            let live = s.optionalInt64(at: 3) != nil && s.optionalInt64(at: 4) == nil
            // The UID's key, from the column's bytes (no String made).
            let uidKey = s.withTextBytes(at: 1) { Self.key(uid: $0, recurrenceID: nil) }
            if contextHash != nil {
                let series: UInt64? = s.int64(at: 8) == 1 ? nil : uidKey
                let stored = StoredText(id: id, startUTC: s.int64(at: 6), spanEndUTC: s.optionalInt64(at: 7), series: series)
                // A part that is removed or has no hash yet: its series is never left unparsed (no text hash).
                let text = live ? s.optionalInt64(at: 5) : nil
                if let series { seriesParts[series, default: []].append((text, stored)) }
                if let text { texts.insertUnlessTaken(stored, for: UInt64(bitPattern: text)) }
            }
            guard live, let hash = s.optionalInt64(at: 3) else { continue }
            let key = s.withTextBytes(at: 1) { uid in s.withTextBytes(at: 2) { Self.key(uid: uid, recurrenceID: $0) } }
            guard events.insertUnlessTaken(StoredEvent(id: id, contentHash: hash, textHash: s.optionalInt64(at: 5)), for: key) else { continue }
            uidCounts.update(uidKey, initial: 0) { $0 += 1 }
        }
        self.events = events
        self.texts = texts
        self.seriesParts = seriesParts
        self.uidCounts = uidCounts
        self.allIDs = allIDs
    }

    func stored(uid: String, recurrenceID: EventTime?) -> StoredEvent? {
        events[Self.key(uid: uid, recurrenceID: recurrenceID.map { SQLiteRowEncoding.iso($0, startUTC: nil) } ?? "")]
    }

    func stored(textHash: Int64) -> StoredText? {
        texts[UInt64(bitPattern: textHash)]
    }

    func seriesKey(uid: String) -> UInt64 { Self.key(uid: uid, recurrenceID: nil) }

    func componentCount(uid: String) -> Int {
        Int(uidCounts[Self.key(uid: uid, recurrenceID: nil)] ?? 0)
    }

    /// FNV-1a over the uid's bytes, a separator and the recurrence id's (none: no separator).
    static func key(uid: String, recurrenceID: String?) -> UInt64 {
        var uid = uid
        return uid.withUTF8 { u in
            guard var rid = recurrenceID else { return key(uid: u, recurrenceID: nil) }
            return rid.withUTF8 { key(uid: u, recurrenceID: $0) }
        }
    }

    static func key(uid: UnsafeBufferPointer<UInt8>, recurrenceID: UnsafeBufferPointer<UInt8>?) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in uid { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        if let recurrenceID {
            h = (h ^ 0xff) &* 0x0000_0100_0000_01b3
            for b in recurrenceID { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        }
        return h
    }
}
