import Foundation

extension Runner {
    /// The reason a run stopped by task cancellation gives (`CalpipeError.interrupted`, `Cancellation.cancelledReason`).
    public static let taskCancellation = "task cancellation"

    /// Runs `pipeline` with `context` and returns its report (`context.report`), without blocking the caller's
    /// task: the run has a thread of its own (sources, stages and sinks block on files, sockets and locks, which a
    /// task of Swift's cooperative pool must not do). Cancelling the calling task stops the run as a signal does:
    /// at its next batch every sink rolls back, and `CalpipeError.interrupted(Runner.taskCancellation)` is thrown;
    /// past the run's point of no return (a transaction committed, the files renamed) it finishes. A reason set
    /// on the context's `Cancellation` first (the command-line tool sets the signal's name) is the one reported.
    ///
    /// Each run needs its own `context` (its report, cancellation and state); runs of different pipelines may go on
    /// at once in one process. A failed run throws; its report (what was read, rejected, written) is still
    /// `context.report`.
    @discardableResult
    public func run(_ pipeline: PipelineDefinition, context: RunContext) async throws -> RunReport {
        let cancellation = context.cancellation
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RunReport, any Error>) in
                let thread = Thread {
                    do {
                        try self.run(pipeline, context: context)
                        continuation.resume(returning: context.report)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
                thread.name = "calpipe-run"
                // As the main thread's: readers and the JSON parser recurse with the input's nesting.
                thread.stackSize = 8 << 20
                thread.start()
            }
        } onCancel: {
            cancellation.cancel(reason: Self.taskCancellation)
        }
    }
}

extension PipelineLoader {
    /// Loads the pipeline file `file` and runs it (`Runner.run(_:context:) async`): the one call a program needs to
    /// run pipelines from Swift, several at once if it likes, each cancelled through its task. `runner` says how
    /// (dry run, `incremental`, a state file); `strict` fails the run on a rejected record; `logger` gets its
    /// messages (from any thread). Throws `ConfigErrors` for a pipeline that cannot be loaded, else what the run
    /// throws; for the report of a failed run, load with `load(file:)` and run with a context of your own.
    @discardableResult
    public func run(file: String, runner: Runner = Runner(), strict: Bool = false,
                    logger: @escaping @Sendable (LogRecord) -> Void = { _ in }) async throws -> RunReport {
        let pipeline = try load(file: file)
        let context = RunContext(environment: pipeline.environment, strict: strict, logger: logger)
        return try await runner.run(pipeline, context: context)
    }
}
