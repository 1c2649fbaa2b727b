/// Reads events from somewhere and hands them on in batches, never holding a whole feed when it can avoid it.
public protocol EventSource: AnyObject {
    /// Reads everything, calling `emit` once per batch. Bad records are reported to `context.report` and
    /// skipped; errors that stop the whole source are thrown.
    func read(context: RunContext, emit: (Batch) throws -> Void) throws
}

/// Transforms batches (expand, split, filter, enrich). A stage that must see everything before it can
/// answer (e.g. overrides that arrive before their series) keeps what it needs and hands it on from
/// `finish`, in as many batches as it likes, so the end of a run streams like the rest of it.
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
        var all = Batch()
        try finish(context: context) { batch in
            all.events += batch.events
            all.occurrences += batch.occurrences
            all.days += batch.days
            all.agendaDays += batch.agendaDays
            all.expanded = all.expanded || batch.expanded
            all.split = all.split || batch.split
        }
        return all
    }
}

/// Writes batches somewhere. Nothing is visible until `commit`; `abort` leaves the target as it was.
public protocol Sink: AnyObject {
    /// What the sink reads from batches.
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
