import Foundation

/// What a plugin may read while a pipeline runs: the pipeline's environment, the report (thread-safe), logging,
/// `strict`, and cancellation. What only the runner keeps is apart, in `runState`.
///
/// Sendable: its values are constants or thread-safe (the report, the run state, the cancellation), and the
/// logger is a `@Sendable` function, since sources, stages and sinks call it from the runner's thread, the sinks'
/// thread and worker threads. One context serves one run: two runs at once each have their own.
public final class RunContext: Sendable {
    public let environment: PipelineEnvironment
    public let report: RunReport
    /// Under `--strict` a rejected record fails the run.
    public let strict: Bool
    public let quiet: Bool
    /// Set from outside (a signal handler, a cancelled task: `Runner.run(_:context:) async`) to stop the run at
    /// the next batch.
    public let cancellation: Cancellation
    /// What only the runner keeps (source labels, idle cores, side channels): not part of what a plugin reads.
    package let runState = RunState()
    private let logger: @Sendable (LogRecord) -> Void

    /// A context whose messages are printed as text lines by `log` (standard error by default).
    public convenience init(environment: PipelineEnvironment, report: RunReport = RunReport(), strict: Bool = false, quiet: Bool = false,
                            cancellation: Cancellation = Cancellation(), log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.init(environment: environment, report: report, strict: strict, quiet: quiet, cancellation: cancellation,
                  logger: { log($0.text) })
    }

    /// A context whose messages go to `logger` as records (the program decides their level filter and format).
    public init(environment: PipelineEnvironment, report: RunReport = RunReport(), strict: Bool = false, quiet: Bool = false,
                cancellation: Cancellation = Cancellation(), logger: @escaping @Sendable (LogRecord) -> Void) {
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

    /// This run's incremental decisions (docs/incremental.md), for an `IncrementalSink`: which sources were
    /// skipped, which stored events were seen unchanged (`isKept`), what may be gone (`notKept`). nil when the run
    /// has no incremental sink.
    public var incremental: IncrementalRun? { runState.incremental }

    /// The state the last successful run of this pipeline committed for the plugin `name` (a source's `name`, a
    /// sink's `label`): nil on a first run, under `calpipe run --full`, and for a plugin that never set one
    /// (docs/architecture.md, "State for plugins").
    public func state(for name: String) -> PluginState? { runState.pluginStates.committed(for: name) }

    /// Proposes the state the next run of this pipeline reads for the plugin `name`; the last proposal wins. It is
    /// stored only when every sink committed: a failed or interrupted run, a source whose rows were kept or that
    /// had rejected records leave the stored state as it was. When records could not be written (`.failed`,
    /// `.conflict`), only the sinks' proposals are stored (what the server holds now), not the sources'. A sink
    /// reads its state from its first `write` on (in `open` the states are not read yet). Any thread.
    public func setState(_ state: PluginState, for name: String) { runState.pluginStates.propose(state, for: name) }

    /// Informational message on stderr, silenced by --quiet.
    public func info(_ message: String) { log(.info, message) }

    /// Detail for `--log-level debug`.
    public func debug(_ message: String) { log(.debug, message) }

    /// A record kept with a part dropped or fixed: counted as `repaired` in the summary (apart from rejections)
    /// and shown on stderr unless --quiet.
    public func repair(_ repair: Repair) {
        report.repair(repair)
        log(.warning, "repaired: \(repair)", file: repair.location.file, line: repair.location.line)
    }

    /// A warning: counted in the summary and shown on stderr unless --quiet.
    public func warn(_ message: String) {
        report.warn(message)
        log(.warning, message)
    }

    /// An error-level record (rejections, failures), shown even under --quiet.
    public func logError(_ message: String) { log(.error, message) }

    private func log(_ level: LogRecord.Level, _ message: String, file: String? = nil, line: Int? = nil) {
        if quiet && level != .error { return }
        logger(LogRecord(level: level, message: message, source: runState.currentSourceLabel, file: file, line: line))
    }
}
