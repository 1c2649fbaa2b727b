#if Postgres
import Exporters
import Foundation
import Pipeline

/// `type: postgres`: the sqlite sink's agenda tables, kept in sync in a PostgreSQL schema (docs/postgres.md). Each
/// run is one transaction: `open` begins it (after a schema upgrade in a transaction of its own) and takes an
/// advisory lock per source, `write` streams rows into staging tables with COPY, `commit` merges and mirrors them
/// and commits; `abort`, a signal or a killed process leave the database as it was.
// @unchecked Sendable: the connection and the run's bookkeeping are set by `open`, `write` and `commit`, called as
// the `Sink` contract says (one call at a time, one run at a time).
package final class PostgresSink: IncrementalSink, @unchecked Sendable {
    package static let descriptor = SinkDescriptor(
        type: "postgres",
        kind: .sink,
        summary: "Keep the agenda tables (events, occurrences, day entries, days) in sync in a PostgreSQL schema, loaded with COPY",
        options: Options.self,
        make: { options, context in
            let settings: PostgresSettings
            do {
                settings = try PostgresSettings(
                    connection: options.connection, password: options.password?.reveal(),
                    schema: context.isGiven(\.schema) ? options.schema : nil, sslMode: context.isGiven(\.sslMode) ? options.sslMode : nil,
                    sslRootCert: options.sslRootCert?.resolved, environment: context.environment.environment)
            } catch {
                throw context.error(\.connection, (error as? CalpipeError)?.message ?? "\(error)")
            }
            return PostgresSink(settings: settings, keepRemoved: options.keepRemoved, keepSourceText: options.sourceText)
        }
    )

    let settings: PostgresSettings
    package let keepRemoved: Bool
    package let keepSourceText: Bool
    private var link: PostgresLink?
    private var writer: PostgresSyncWriter?
    private var stagedStates: (states: [String: PluginState], pipeline: String)?
    private var lastRunID: Int64 = 0

    init(settings: PostgresSettings, keepRemoved: Bool, keepSourceText: Bool) {
        self.settings = settings
        self.keepRemoved = keepRemoved
        self.keepSourceText = keepSourceText
    }

    package var needs: BatchContent { [.events, .occurrences, .days] }
    package var label: String { settings.label }
    package var commitKind: SinkCommit { .transaction }
    package var appliesDeletions: Bool { true }

    package func open(context: RunContext) throws {
        let link = try PostgresLink.connect(settings)
        do {
            writer = try PostgresSyncWriter(link: link, settings: settings, keepRemoved: keepRemoved, keepSourceText: keepSourceText, context: context)
            self.link = link
        } catch {
            link.close()
            throw error
        }
    }

    /// A source whose input, config and window are those `source_state` holds is skipped (not read, its rows kept);
    /// any other is read in full (`PostgresSourceMemory`). Read inside the run's transaction, under its source locks.
    package func memory(ofSource source: String, current: SourceFingerprint) throws -> (any SourceMemory)? {
        guard let link else { return nil }
        return try PostgresSourceMemory.load(link, source: source, current: current, keepRemoved: keepRemoved, keepSourceText: keepSourceText)
    }

    package func remembersEvents(ofSource source: String) throws -> Bool {
        guard let link else { return false }
        return try link.integer("SELECT count(*)::text FROM (SELECT 1 FROM events WHERE source = $1 AND removed_run IS NULL LIMIT 1) x", [.text(source)]) > 0
    }

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let writer else { throw CalpipeError("\(label): write before open") }
        try writer.write(batch)
    }

    package func commit(context: RunContext) throws -> Int {
        guard let writer else { throw CalpipeError("\(label): commit before open") }
        try writer.commit()
        if let staged = stagedStates { try writer.savePluginStates(staged.states, pipeline: staged.pipeline) }
        try writer.finish()
        stagedStates = nil
        lastRunID = writer.runID
        self.writer = nil
        link?.close()
        link = nil
        let c = writer.counts
        context.report.recordSync(sink: label, created: c.eventsInserted, updated: c.eventsUpdated, deleted: c.eventsRemoved,
                                  unchanged: c.eventsUnchanged, cancelled: c.cancelledSkipped, rowsChanged: c.rowsChanged)
        return c.dayEntriesSeen
    }

    package func abort(context: RunContext) {
        stagedStates = nil
        writer?.rollback()
        writer = nil
        link?.close()
        link = nil
    }
}

/// The plugins' states live in the database (`plugin_state`), written in the run's transaction.
extension PostgresSink: PluginStateSink {
    package func committedPluginStates(pipeline: String) throws -> [String: PluginState] {
        if let link { return try PostgresPluginStates.load(link, pipeline: pipeline, label: label) }
        // Not open (a dry run, `calpipe state`): read what is there, writing nothing.
        let link = try PostgresLink.connect(settings)
        defer { link.close() }
        let exists = try link.integer("SELECT count(*)::text FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'plugin_state'",
                                      [.text(settings.schema)])
        guard exists > 0 else { return [:] }
        try link.execute("SET search_path TO \(PostgresMigrator.quoted(settings.schema))")
        return try PostgresPluginStates.load(link, pipeline: pipeline, label: label)
    }

    package func stagePluginStates(_ states: [String: PluginState]?, pipeline: String) {
        stagedStates = states.map { ($0, pipeline) }
    }

    package func savePluginStates(_ states: [String: PluginState], pipeline: String, context: RunContext) throws {
        let link = try PostgresLink.connect(settings)
        defer { link.close() }
        try link.execute("SET search_path TO \(PostgresMigrator.quoted(settings.schema))")
        try link.execute("BEGIN")
        do {
            try PostgresPluginStates.save(link, states: states, pipeline: pipeline, runID: lastRunID)
            try link.execute("COMMIT")
        } catch {
            try? link.execute("ROLLBACK")
            throw error
        }
    }
}
#endif
