import ArgumentParser
import Fetch
import Foundation
import Pipeline

/// Loads a pipeline, runs it, prints the summary and picks the exit code. Shared by `run` and `convert`.
struct PipelineSession {
    var quiet: Bool
    var strict: Bool
    var dryRun: Bool

    /// The loader with every plugin, and URL inputs fetched through the shared HTTP client and cache
    /// (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe`, else `~/.cache/calpipe`; opened only when used).
    static func loader() -> PipelineLoader {
        var loader = PipelineLoader(registry: .standard)
        loader.fetcher = HTTPFetcher()
        return loader
    }

    /// Prints every problem of a pipeline file and exits with 2.
    static func reportConfigErrors(_ errors: ConfigErrors) -> ExitCode {
        for issue in errors.issues { Terminal.error(issue.description) }
        return CalpipeExit.usage.code
    }

    /// Runs the pipeline. `signals`: the command's watch, started before it loaded the pipeline (so a signal
    /// while loading stops the run before it writes).
    func run(_ pipeline: PipelineDefinition, signals: SignalWatch) throws {
        let report = RunReport()
        let cancellation = signals.cancellation
        let context = RunContext(environment: pipeline.environment, report: report, strict: strict, quiet: quiet, cancellation: cancellation)
        let started = Date()
        var lastProgress = Date()
        let showProgress = !quiet && Terminal.stderrIsTerminal
        let runner = Runner(dryRun: dryRun, progress: showProgress ? { report in
            let now = Date()
            guard now.timeIntervalSince(lastProgress) > 0.25 else { return }
            lastProgress = now
            Terminal.progress("calpipe: \(report.eventsRead) events read...")
        } : nil)
        do {
            try runner.run(pipeline, context: context)
        } catch {
            if showProgress { Terminal.clearProgress() }
            // A run asked to stop that failed otherwise on its way (say, reading an input a signal cut short)
            // was interrupted all the same. Every sink rolled back.
            var interruption = cancellation.stopReason
            if case RunFailure.interrupted(let reason) = error { interruption = reason }
            if let interruption {
                // 130 for SIGINT, 143 for SIGTERM, as a shell reports a process a signal ended.
                Terminal.error("calpipe: interrupted by \(interruption): rolled back, nothing was written")
                throw ExitCode(SignalWatch.exitCode(for: interruption))
            }
            printRejections(report)
            Terminal.error("calpipe: error: \(error)")
            throw CalpipeExit.failed.code
        }
        if showProgress { Terminal.clearProgress() }
        printRejections(report)
        if !quiet { printSummary(report, name: pipeline.environment.name, seconds: Date().timeIntervalSince(started)) }
        if let reason = cancellation.cancelledReason {
            // The signal came after the point of no return (the outputs were being made visible): the run
            // finished, and still says it was asked to stop.
            Terminal.error("calpipe: interrupted by \(reason) after the point of no return: the run was completed, every output is written")
            throw ExitCode(SignalWatch.exitCode(for: reason))
        }
        if !report.rejections.isEmpty { throw CalpipeExit.rejected.code }
    }

    private func printRejections(_ report: RunReport) {
        for rejection in report.rejections { Terminal.error("calpipe: rejected: \(rejection)") }
    }

    private func printSummary(_ report: RunReport, name: String, seconds: Double) {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var line = "calpipe: \(name): \(count(report.eventsRead, "event", "events")) read"
        line += ", \(count(report.occurrences, "occurrence", "occurrences")), \(count(report.dayEntries, "day entry", "day entries"))"
        line += ", \(report.rejections.count) rejected"
        line += ", \(String(format: "%.2f", seconds)) s"
        if dryRun { line += " (dry run: nothing written)" }
        Terminal.error(line)
        for (sink, rows) in report.rowsWritten { Terminal.error("calpipe:   \(sink): \(count(rows, "row", "rows")) written") }
        for (counter, value) in report.counters { Terminal.error("calpipe:   \(counter): \(value)") }
        if !report.warnings.isEmpty { Terminal.error("calpipe:   warnings: \(report.warnings.count)") }
    }
}
