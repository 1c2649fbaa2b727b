#if Postgres
import Pipeline

/// What the schema remembers of one source (`SourceMemory`, docs/incremental.md): the fingerprint its last run
/// stored in `source_state`. The postgres sink keeps no event hashes for the runner: a source is either skipped
/// (its input, config and window are the stored ones) or read in full, and the server compares the rows.
final class PostgresSourceMemory: SourceMemory {
    let fingerprint: SourceFingerprint

    init(fingerprint: SourceFingerprint) {
        self.fingerprint = fingerprint
    }

    var contextHash: String? { nil }
    var seriesParts: [UInt64: [(textHash: Int64?, part: StoredText)]] { [:] }
    var allIDs: [Int64] { [] }
    func stored(textHash: Int64) -> StoredText? { nil }
    func seriesKey(uid: String) -> UInt64 { 0 }
    func stored(uid: String, recurrenceID: EventTime?) -> StoredEvent? { nil }
    func componentCount(uid: String) -> Int { 0 }

    /// The memory of `source` when this run may skip it: the same input, config and window, written with the same
    /// `keep_removed` and `source_text`. nil otherwise (the source is read in full: the planner reads a source event
    /// by event only from a memory with the same config, which this sink never gives).
    static func load(_ link: PostgresLink, source: String, current: SourceFingerprint, keepRemoved: Bool, keepSourceText: Bool) throws -> PostgresSourceMemory? {
        guard current.input != nil,
              let row = try link.rows("""
                  SELECT input_fingerprint, config_fingerprint, "window", keep_removed::text, source_text::text FROM source_state WHERE source = $1
                  """, [.text(source)]).first,
              row[3] == (keepRemoved ? "1" : "0"), row[4] == (keepSourceText ? "1" : "0") else { return nil }
        let stored = SourceFingerprint(input: row[0], config: row[1] ?? "", window: row[2] ?? "")
        return stored == current ? PostgresSourceMemory(fingerprint: stored) : nil
    }
}
#endif
