import Pipeline

extension RunReport {
    /// What a database sink's sync did, per event, as record outcomes (the summary's `sqlite out/agenda.db: 3 created,
    /// 1 updated, 2 deleted, 40 unchanged`; with keep_removed, deleted events are marked removed), named after the sink
    /// so two such sinks keep separate counts; then the cancelled events left out and the rows changed.
    package func recordSync(sink label: String, created: Int, updated: Int, deleted: Int, unchanged: Int, cancelled: Int, rowsChanged: Int) {
        record(.created, sink: label, count: created)
        record(.updated, sink: label, count: updated)
        record(.deleted, sink: label, count: deleted)
        record(.unchanged, sink: label, count: unchanged)
        if cancelled > 0 { count("\(label): cancelled events left out", by: cancelled) }
        count("\(label): rows changed", by: rowsChanged)
    }
}
