import Foundation

/// Everything a plugin may use while a pipeline runs: the pipeline's environment, the report, and logging.
public final class RunContext {
    public let environment: PipelineEnvironment
    public let report: RunReport
    /// Under `--strict` a rejected record fails the run.
    public let strict: Bool
    public let quiet: Bool
    /// Set from outside (a signal handler) to stop the run at the next batch.
    public let cancellation: Cancellation
    /// The labels of the pipeline's sources (stamped as metadata["source"]), set by the runner before sinks
    /// open, so a sink can tell a source that sent nothing from one that is not part of this pipeline.
    public internal(set) var sourceLabels: [String] = []
    /// The label of the source whose `read` is running (nil between sources). A source may stamp it as
    /// metadata["source"] itself (sharing one dictionary): the runner then passes its batches on without copying.
    public internal(set) var currentSourceLabel: String?
    /// Threads a source may start to read faster (its `workers` when not set): the runner's estimate of the
    /// cores the run leaves idle. With no sink to write (a dry run), only the reading thread is busy: the
    /// source may use every core (at most 4). Sinks write on a thread of their own that keeps another core
    /// busy, and on the 2-core benchmark machine extra reading threads then cost more than they saved
    /// (docs/benchmarks.md).
    public internal(set) var idleCores = 0
    /// How long a sink waits for another calpipe run holding its database's lock (`calpipe run --wait`).
    public var lockWaitSeconds: Double = 0
    /// Incremental decisions of this run (docs/incremental.md); nil when the run is not incremental.
    public internal(set) var incremental: IncrementalRun?
    /// Inputs already resolved in this run (a URL is fetched once, also when its fingerprint was taken first).
    var resolvedInputs: [InputSpec: Result<[InputSpec.Input], any Error>] = [:]
    private let logSink: (String) -> Void

    public init(environment: PipelineEnvironment, report: RunReport = RunReport(), strict: Bool = false, quiet: Bool = false,
                cancellation: Cancellation = Cancellation(), log: @escaping (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.environment = environment
        self.report = report
        self.strict = strict
        self.quiet = quiet
        self.cancellation = cancellation
        logSink = log
    }

    public var zone: Zone { environment.zone }

    /// Throws when the run was interrupted; sources and long stages call it between units of work.
    public func checkCancellation() throws {
        if let reason = cancellation.cancelledReason { throw RunFailure.interrupted(reason) }
    }
    public var window: Window? { environment.window }

    /// Informational message on stderr, silenced by --quiet.
    public func info(_ message: String) {
        if !quiet { logSink("calpipe: " + message) }
    }

    /// A warning: counted in the summary and shown on stderr unless --quiet.
    public func warn(_ message: String) {
        report.warn(message)
        if !quiet { logSink("calpipe: warning: " + message) }
    }
}
