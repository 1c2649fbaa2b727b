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
    /// What each source did (type, origin, events), for the `sources` of exported documents.
    public let sourceLedger = SourceLedger()
    /// How long a sink waits for another calpipe run holding its database's lock (`calpipe run --wait`).
    public var lockWaitSeconds: Double = 0
    /// Incremental decisions of this run (docs/incremental.md); nil when the run is not incremental.
    public internal(set) var incremental: IncrementalRun?
    /// Inputs already resolved in this run (a URL is fetched once, also when its fingerprint was taken first).
    var resolvedInputs: [InputSpec: Result<[InputSpec.Input], any Error>] = [:]
    private let logger: (LogRecord) -> Void

    /// A context whose messages are printed as text lines by `log` (standard error by default).
    public convenience init(environment: PipelineEnvironment, report: RunReport = RunReport(), strict: Bool = false, quiet: Bool = false,
                            cancellation: Cancellation = Cancellation(), log: @escaping (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.init(environment: environment, report: report, strict: strict, quiet: quiet, cancellation: cancellation,
                  logger: { log($0.text) })
    }

    /// A context whose messages go to `logger` as records (the program decides their level filter and format).
    public init(environment: PipelineEnvironment, report: RunReport = RunReport(), strict: Bool = false, quiet: Bool = false,
                cancellation: Cancellation = Cancellation(), logger: @escaping (LogRecord) -> Void) {
        self.environment = environment
        self.report = report
        self.strict = strict
        self.quiet = quiet
        self.cancellation = cancellation
        self.logger = logger
    }

    public var zone: Zone { environment.zone }

    /// Throws when the run was interrupted; sources and long stages call it between units of work, and sinks
    /// that commit in place just before their commit. Past the run's point of no return it no longer throws.
    public func checkCancellation() throws {
        if let reason = cancellation.stopReason { throw CalpipeError.interrupted(reason) }
    }
    public var window: Window? { environment.window }

    /// Informational message on stderr, silenced by --quiet.
    public func info(_ message: String) {
        if !quiet { logger(LogRecord(level: .info, message: message, source: currentSourceLabel)) }
    }

    /// Detail for `--log-level debug`.
    public func debug(_ message: String) {
        if !quiet { logger(LogRecord(level: .debug, message: message, source: currentSourceLabel)) }
    }

    /// A record kept with a part dropped or fixed: counted as `repaired` in the summary (apart from rejections)
    /// and shown on stderr unless --quiet.
    public func repair(_ repair: Repair) {
        report.repair(repair)
        if !quiet {
            logger(LogRecord(level: .warning, message: "repaired: \(repair)", source: currentSourceLabel, file: repair.location.file,
                             line: repair.location.line))
        }
    }

    /// A warning: counted in the summary and shown on stderr unless --quiet.
    public func warn(_ message: String) {
        report.warn(message)
        if !quiet { logger(LogRecord(level: .warning, message: message, source: currentSourceLabel)) }
    }

    /// An error-level record (rejections, failures), shown even under --quiet.
    public func logError(_ message: String) {
        logger(LogRecord(level: .error, message: message, source: currentSourceLabel))
    }
}
