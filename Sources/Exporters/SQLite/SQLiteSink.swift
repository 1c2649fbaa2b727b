import Foundation
import CalSQLite
import Pipeline

/// `type: sqlite`: writes events, attendees, occurrences, per-day agenda rows and forecasts into a SQLite
/// database that later runs keep in sync (docs/sqlite-schema.md). Each run is one transaction: `open` begins
/// it, `commit` commits it, `abort` (or a crash) leaves the database exactly as it was.
// @unchecked Sendable: the open database (`writer`), the days writer and the lock are the run's, used as the `Sink`
// contract says: open and commit on the runner's thread, write on the sinks' thread in between (the handoff orders
// them), never two at once, one run at a time.
package final class SQLiteSink: IncrementalSink, @unchecked Sendable {
    package static let descriptor = SinkDescriptor(
        type: "sqlite",
        kind: .sink,
        summary: "Keep a queryable SQLite agenda database in sync: events, occurrences, day entries, forecasts",
        options: Options.self,
        fileExtensions: ["db", "sqlite", "sqlite3"],
        make: { options, _ in
            SQLiteSink(path: options.path.resolved, displayPath: options.path.label, keepRemoved: options.keepRemoved,
                       keepSourceText: options.sourceText, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        }
    )

    package let path: String
    package let displayPath: String
    package let keepRemoved: Bool
    /// Whether `events.source_text` is written (option `source_text`; docs/sqlite-schema.md).
    package let keepSourceText: Bool
    package let busyTimeoutMilliseconds: Int
    /// Allows the bulk load of a run whose sources have no rows yet (docs/sqlite-schema.md, "Speed"). Not an
    /// option of the pipeline: false is for tests and measurements comparing it with the keyed writes.
    package let bulkLoad: Bool
    private var writer: SQLiteSyncWriter?
    /// The `days` and `meta` tables (SQLiteDaysWriter.swift).
    private var daysWriter = SQLiteDaysWriter()
    /// Whether the last committed run began as a bulk load (for tests and measurements).
    private(set) var lastRunBulkLoaded = false
    /// The plugins' states `commit` writes in its transaction (`PluginStateSink`), with the pipeline they are kept under.
    private var stagedStates: (states: [String: PluginState], pipeline: String)?
    /// The `runs` row of the last committed run (what states saved after the commit name).
    private var lastRunID: Int64 = 0

    package init(path: String, displayPath: String? = nil, keepRemoved: Bool = false, keepSourceText: Bool = false,
                 busyTimeoutMilliseconds: Int = 30_000, bulkLoad: Bool = true) {
        self.bulkLoad = bulkLoad
        self.keepSourceText = keepSourceText
        self.path = path
        self.displayPath = displayPath ?? path
        self.keepRemoved = keepRemoved
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    package var needs: BatchContent { [.events, .occurrences, .days] }
    package var label: String { "sqlite \(displayPath)" }
    /// One transaction per run, committed in place.
    package var commitKind: SinkCommit { .transaction }
    /// Applies `Batch.deletions`, and takes `.delta` sources (`SourceFeed`).
    package var appliesDeletions: Bool { true }

    private func wrapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CalpipeError.sqlite(wrapping: error, path: displayPath, file: path, busyTimeout: busyTimeoutMilliseconds)
        }
    }

    /// The database's lock (`RunLock.path(for:environment:)`, in calpipe's own folder): one calpipe run writes it at a time.
    private var lock: RunLock?

    package func open(context: RunContext) throws {
        daysWriter = SQLiteDaysWriter()
        let env = context.environment
        // Like the file sinks: the database's folder is made when it is missing.
        do {
            try AtomicFile.makeFolders(for: FileProblem.absolutePath(path), label: displayPath)
        } catch let problem as CalpipeError {
            let prefix = displayPath + ": "
            let reason = problem.message.hasPrefix(prefix) ? String(problem.message.dropFirst(prefix.count)) : problem.message
            throw CalpipeError.sqlite(displayPath, reason + "; nothing was written")
        }
        lock = try RunLock.acquire(path: RunLock.path(for: path, environment: env.environment), pipeline: env.name.isEmpty ? env.pipelineFile : env.name, wait: context.runState.lockWaitSeconds,
                                   label: label, held: "another calpipe run is writing this database", consequence: "nothing was written",
                                   cancelled: { context.cancellation.cancelledReason != nil })
        do {
            writer = try wrapping {
                try SQLiteSyncWriter(path: path, displayPath: displayPath, keepRemoved: keepRemoved, keepSourceText: keepSourceText,
                                     busyTimeout: busyTimeoutMilliseconds, bulkLoad: bulkLoad, context: context)
            }
        } catch {
            lock?.release()
            lock = nil
            throw error
        }
    }

    package func memory(ofSource source: String, current: SourceFingerprint) throws -> (any SourceMemory)? {
        guard let writer else { return nil }
        return try wrapping { try writer.memory(ofSource: source, current: current) }
    }

    package func remembersEvents(ofSource source: String) throws -> Bool {
        guard let writer else { return false }
        return try wrapping { try writer.remembersEvents(ofSource: source) }
    }

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let writer else { throw CalpipeError.sqlite(displayPath, "write before open") }
        try wrapping { try writer.write(batch) }
        daysWriter.note(batch, window: context.window)
    }

    /// Commits the run; returns the number of day entries the database now holds for this run's window.
    package func commit(context: RunContext) throws -> Int {
        guard let writer else { throw CalpipeError.sqlite(displayPath, "commit before open") }
        let bulk = writer.bulkLoadStarted
        try wrapping {
            try daysWriter.write(into: writer.db, runID: writer.runID, context: context)
            if let staged = stagedStates {
                try SQLitePluginStates.save(writer.db, states: staged.states, pipeline: staged.pipeline, runID: writer.runID)
            }
            try writer.commit()
        }
        stagedStates = nil
        lastRunID = writer.runID
        self.writer = nil
        lock?.release()
        lock = nil
        lastRunBulkLoaded = bulk
        let c = writer.counts
        let report = context.report
        // Per event, as record outcomes (the summary's `sqlite out/agenda.db: 3 created, 1 updated, 2 deleted, 40
        // unchanged`; with keep_removed, deleted events are marked removed). Named after the sink, so two sqlite
        // sinks keep separate counts.
        report.record(.created, sink: label, count: c.eventsInserted)
        report.record(.updated, sink: label, count: c.eventsUpdated)
        report.record(.deleted, sink: label, count: c.eventsRemoved)
        report.record(.unchanged, sink: label, count: c.eventsUnchanged)
        if c.cancelledSkipped > 0 { report.count("\(label): cancelled events left out", by: c.cancelledSkipped) }
        report.count("\(label): rows changed", by: c.rowsChanged)
        return c.dayEntriesSeen
    }

    package func abort(context: RunContext) {
        stagedStates = nil
        writer?.rollback()
        writer = nil
        lock?.release()
        lock = nil
    }
}

/// The plugins' states live in the database, table `plugin_state`, written in the run's transaction: the rows and
/// the states commit together or not at all.
extension SQLiteSink: PluginStateSink {
    package func committedPluginStates(pipeline: String) throws -> [String: PluginState] {
        try wrapping {
            if let writer { return try SQLitePluginStates.load(writer.db, pipeline: pipeline, label: displayPath) }
            // Not open (a dry run, `calpipe state`): read the file as it is, without writing.
            guard FileManager.default.fileExists(atPath: path) else { return [:] }
            let db = try Database(path: path, configuration: .init(readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
            return try SQLitePluginStates.load(db, pipeline: pipeline, label: displayPath)
        }
    }

    package func stagePluginStates(_ states: [String: PluginState]?, pipeline: String) {
        stagedStates = states.map { ($0, pipeline) }
    }

    package func savePluginStates(_ states: [String: PluginState], pipeline: String, context: RunContext) throws {
        try wrapping {
            let db = try Database(path: path, configuration: .init(create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
            try db.inTransaction(.immediate) {
                try SQLitePluginStates.save(db, states: states, pipeline: pipeline, runID: lastRunID)
            }
        }
    }
}

extension SQLiteSink: FileOutputSink {
    package var outputPath: String { path }
}
