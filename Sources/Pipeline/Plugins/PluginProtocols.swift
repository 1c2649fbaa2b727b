/// Reads events from somewhere and hands them on in batches, never holding a whole feed when it can avoid it.
/// `read` runs on the runner's (calling) thread, one source after another; `emit` pushes the batch through the
/// stages before it returns. A source's batches carry `.events` only; the runner stamps each event's
/// `metadata["source"]` with the source's label.
public protocol EventSource: AnyObject {
    /// Reads everything, calling `emit` once per batch. Bad records are reported to `context.report` and
    /// skipped; errors that stop the whole source are thrown.
    func read(context: RunContext, emit: (Batch) throws -> Void) throws
}

/// Transforms batches (expand, split, filter, enrich). A stage that must see everything before it can
/// answer (e.g. overrides that arrive before their series) keeps what it needs and hands it on from
/// `finish`, in as many batches as it likes, so the end of a run streams like the rest of it. Both run on the
/// runner's (calling) thread, batch by batch. A stage adds what it `produces` to `Batch.content` and keeps the
/// batch's links between days and occurrences true (see `Batch`).
public protocol Stage: AnyObject {
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

/// Writes batches somewhere. Nothing is visible until `commit`; `abort` leaves the target as it was.
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
/// The context's report and logging may be used from any of these calls (they are thread-safe).
public protocol Sink: AnyObject {
    /// What the sink reads from batches; the loader refuses a pipeline whose stages do not make it.
    var needs: BatchContent { get }
    /// A short name for the summary ("json out/agenda.json").
    var label: String { get }
    func open(context: RunContext) throws
    func write(_ batch: Batch, context: RunContext) throws
    /// Makes the output visible atomically and returns the number of rows or records written.
    func commit(context: RunContext) throws -> Int
    /// Removes any partial output; the previous output (if any) stays untouched.
    func abort(context: RunContext)
}

/// Which parts of a batch something needs or produces.
public struct BatchContent: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let events = BatchContent(rawValue: 1)
    public static let occurrences = BatchContent(rawValue: 2)
    public static let days = BatchContent(rawValue: 4)
}
