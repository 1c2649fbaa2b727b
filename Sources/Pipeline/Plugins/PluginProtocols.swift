/// Reads events from somewhere and hands them on in batches, never holding a whole feed when it can avoid it.
/// `read` runs on the runner's (calling) thread, one source after another; `emit` pushes the batch through the
/// stages before it returns. A source's batches carry `.events` only; the runner stamps each event's
/// `metadata["source"]` with the source's label.
///
/// Sendable, as every plugin: a pipeline (its plugins) is handed to the thread that runs it, and a program may run
/// several pipelines at once. A plugin object serves one run at a time (to run one pipeline twice at once, load it
/// twice). Keep options in `let`s; state that changes during a run goes behind a lock, or the class says
/// `@unchecked Sendable` with a comment naming what guards it (state used only as the calls below are ordered).
public protocol EventSource: AnyObject, Sendable {
    /// Reads everything, calling `emit` once per batch. Bad records are reported to `context.report` and
    /// skipped; errors that stop the whole source are thrown.
    func read(context: RunContext, emit: (Batch) throws -> Void) throws
    /// Whether the batches of one read are the whole feed (`.complete`, the default) or only its changes and
    /// deletions (`.delta`; `SourceFeed`).
    var feed: SourceFeed { get }
}

extension EventSource {
    public var feed: SourceFeed { .complete }
}

/// Transforms batches (expand, split, filter, enrich). A stage that must see everything before it can
/// answer (e.g. overrides that arrive before their series) keeps what it needs and hands it on from
/// `finish`, in as many batches as it likes, so the end of a run streams like the rest of it. Both run on the
/// runner's (calling) thread, batch by batch. A stage adds what it `produces` to `Batch.content` and keeps the
/// batch's links between days and occurrences true (see `Batch`). Sendable, as `EventSource` says.
public protocol Stage: AnyObject, Sendable {
    func process(_ batch: Batch, context: RunContext) throws -> Batch
    func finish(context: RunContext, emit: (Batch) throws -> Void) throws
    /// What the stage produces, for validating that sinks get what they need.
    var produces: BatchContent { get }
}

extension Stage {
    public func finish(context: RunContext, emit: (Batch) throws -> Void) throws {}
    public var produces: BatchContent { [] }

    /// Everything `finish` hands on, as one batch (for tests and small inputs).
    public func finish(context: RunContext) throws -> Batch {
        var all = Batch(content: [])
        try finish(context: context) { batch in
            // Days lose their links: the batches come together (`Batch`).
            all.days += batch.days.map { var day = $0; day.occurrenceIndex = nil; return day }
            all.events += batch.events
            all.occurrences += batch.occurrences
            all.agendaDays += batch.agendaDays
            all.content.formUnion(batch.content)
        }
        return all
    }
}

/// Writes batches somewhere. A local sink (`commitKind` `.file` or `.transaction`) makes nothing visible until
/// `commit`, and its `abort` leaves the target as it was; a `.remote` sink cannot promise that (see `SinkCommit`).
///
/// The runner's contract with a sink, call by call:
/// - `open` runs on the runner's (calling) thread, before any source is read. Make the temporary output here.
/// - `write` runs on the sinks' thread (`HandoffThread.sinkPump`), batch after batch, in the order the batches were made; a
///   sink is never called from two threads at once. A batch holds what `Batch.content` says: events as read,
///   occurrences once expanded, day entries once split, each entry linked to its occurrence in the same batch
///   (`DayEntry.occurrenceIndex`) or, when a stage handed it on later, to none. Read what `needs` names; a
///   sink that needs `.occurrences` of a batch without them uses `effectiveOccurrences`.
/// - `commit` runs on the calling thread after the last `write` has returned: make the output visible (rename a
///   temporary file, commit a transaction) and return the number of rows or records written.
/// - `abort` runs on the calling thread when anything failed or a signal arrived, also after a failed `commit`:
///   remove what `open` and `write` made. It must not throw.
/// The context's report and logging may be used from any of these calls (they are thread-safe). Sendable, as
/// `EventSource` says: `write` runs on another thread than `open` and `commit`.
public protocol Sink: AnyObject, Sendable {
    /// What the sink reads from batches; the loader refuses a pipeline whose stages do not make it.
    var needs: BatchContent { get }
    /// A short name for the summary ("json out/agenda.json").
    var label: String { get }
    func open(context: RunContext) throws
    func write(_ batch: Batch, context: RunContext) throws
    /// `write`, with the batch the sink's to keep: it may move the events out and free each once written, instead
    /// of copying each one out of a shared array (`JSONExporter`: the copy's retains and releases were a sixth of
    /// its time). The runner hands each batch so to the last sink that gets it. Default: `write(_:context:)`.
    func write(owned batch: consuming Batch, context: RunContext) throws
    /// Makes the output visible atomically and returns the number of rows or records written.
    func commit(context: RunContext) throws -> Int
    /// Removes any partial output; the previous output (if any) stays untouched.
    func abort(context: RunContext)
    /// How the sink makes its output visible, which decides when the runner commits it (`SinkCommit`).
    /// Default `.transaction` (see `SinkCommit`).
    var commitKind: SinkCommit { get }
    /// Whether the sink applies `Batch.deletions` (a sink that keeps rows across runs: sqlite). Only such a sink
    /// gets the batches that carry deletions alone, and only such sinks may take a `.delta` source (`SourceFeed`):
    /// a sink that writes whole files needs the whole feed. Default false.
    var appliesDeletions: Bool { get }
    /// Whether `write` takes little of a core next to reading the same events (rendering them to bytes, not a
    /// database's inserts and indexes). When every sink of a run says so, a source may read on as many worker
    /// threads as in a dry run (`Runner.idleCores`): the sinks' thread shares the cores with them through the
    /// bounded queues, instead of a core kept for it. Default false: a heavy sink keeps its core (extra
    /// reading threads took it from the SQLite sink and made the run slower).
    var writesLightly: Bool { get }
}

extension Sink {
    public func write(owned batch: consuming Batch, context: RunContext) throws { try write(batch, context: context) }
    public var appliesDeletions: Bool { false }
    public var writesLightly: Bool { false }

    /// `.transaction`: what the runner assumed, before sinks declared it, of every sink that did not write a
    /// temporary file through the run's `AtomicFile`s, so a sink written before the declaration commits as it did.
    /// It is also the safe guess: a file sink taken for a transaction still writes its whole file, and only gives
    /// up the roll-back for a signal that arrives after its commit; a database taken for a file would commit
    /// among the files, and a signal after it would roll the files back and say nothing was written while the
    /// database had changed. A sink that writes through `AtomicFile(path:cancellation: context.cancellation)`
    /// should declare `.file`; one that sends records to a server, `.remote`.
    public var commitKind: SinkCommit { .transaction }
}

/// How a sink makes its output visible, declared by the sink (`Sink.commitKind`). The runner's commit phase
/// (`Runner.commitAll`) goes in this order: every `.file` sink commits (its temporary file is completed and
/// synced, the rename waits), then every `.transaction` sink (each commit makes the run irreversible: a signal
/// no longer stops it), then every waiting file is renamed over its target at once, and last every `.remote`
/// sink commits. A signal or an error before the first irreversible step leaves every local output as it was.
public enum SinkCommit: String, Sendable, CaseIterable {
    /// A temporary file, renamed over the target (`AtomicFile` with the run's cancellation).
    case file
    /// One database transaction, committed in place.
    case transaction
    /// Records sent one by one to something that cannot take them back (a server). `write` may make records
    /// visible at once; `abort` stops, but cannot undo what was sent. Such a sink reports each record's
    /// outcome (`RunReport.record(_:sink:count:)`); a `.failed` one fails the run (exit 1) after every other
    /// sink committed, without undoing them. Remote sinks commit after the local outputs are in place, and
    /// their `write` is called like any sink's: serially, batch after batch.
    case remote
}

/// What became of one record a sink wrote, as the sink reports it (`RunReport.record(_:sink:count:)`); the
/// summary prints, per sink, the counts that are not zero, in this order.
public enum RecordOutcome: String, Sendable, CaseIterable {
    case created, updated, deleted, unchanged, conflict, failed
}

/// Which parts of a batch something needs or produces.
public struct BatchContent: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let events = BatchContent(rawValue: 1)
    public static let occurrences = BatchContent(rawValue: 2)
    public static let days = BatchContent(rawValue: 4)
}
