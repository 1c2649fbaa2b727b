import ArgumentParser
import Fetch
import Foundation
import Pipeline

/// Loads a pipeline, runs it, prints the summary and picks the exit code. Shared by `run` and `convert`.
struct PipelineSession {
    var quiet: Bool
    var strict: Bool
    var dryRun: Bool
    /// Seconds to wait for another run holding the pipeline's or a database's lock (`run --wait`); 0: exit at once.
    var wait: Double = 0
    /// Read and write everything, also what did not change (`run --full`).
    var full = false
    /// The pipeline file, locked for the run (`.NAME.lock` beside it); nil: no pipeline lock (`convert`).
    var lockedFile: String?

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

    func run(_ pipeline: PipelineDefinition) throws {
        let report = RunReport()
        let cancellation = Cancellation()
        let signals = SignalWatch(cancellation: cancellation)
        defer { signals.stop() }
        let context = RunContext(environment: pipeline.environment, report: report, strict: strict, quiet: quiet, cancellation: cancellation)
        context.lockWaitSeconds = wait
        var pipelineLock: RunLock?
        defer { pipelineLock?.release() }
        if let lockedFile, !dryRun {
            let url = URL(fileURLWithPath: lockedFile)
            let lockPath = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".lock").path
            do {
                pipelineLock = try RunLock.acquire(path: lockPath, pipeline: pipeline.environment.name, wait: wait,
                                                   cancelled: { cancellation.cancelledReason != nil })
            } catch RunLock.Failure.held(let holder, let waited) {
                Terminal.error("calpipe: error: \(lockedFile): another run of this pipeline is in progress: \(holder); "
                               + (waited > 0 ? "gave up after waiting \(Int(waited)) s; " : "") + "not started (calpipe run --wait SECONDS waits for it)")
                throw CalpipeExit.failed.code
            }
        }
        let started = Date()
        var lastProgress = Date()
        let showProgress = !quiet && Terminal.stderrIsTerminal
        let runner = Runner(dryRun: dryRun, incremental: !full, progress: showProgress ? { report in
            let now = Date()
            guard now.timeIntervalSince(lastProgress) > 0.25 else { return }
            lastProgress = now
            Terminal.progress("calpipe: \(report.eventsRead) events read...")
        } : nil)
        do {
            try runner.run(pipeline, context: context)
        } catch {
            if showProgress { Terminal.clearProgress() }
            printRejections(report)
            Terminal.error("calpipe: error: \(error)")
            throw CalpipeExit.failed.code
        }
        if showProgress { Terminal.clearProgress() }
        printRejections(report)
        if !quiet { printSummary(report, name: pipeline.environment.name, seconds: Date().timeIntervalSince(started)) }
        // Sources whose rows were kept (failed, or empty where a database remembers them): the rest was written.
        for kept in report.keptSources { Terminal.error("calpipe: error: \(kept)") }
        if !report.keptSources.isEmpty { throw CalpipeExit.failed.code }
        if !report.rejections.isEmpty || !report.emptyResults.isEmpty { throw CalpipeExit.rejected.code }
    }

    private func printRejections(_ report: RunReport) {
        for rejection in report.rejections { Terminal.error("calpipe: rejected: \(rejection)") }
    }

    private func printSummary(_ report: RunReport, name: String, seconds: Double) {
        var line = "calpipe: \(name): \(report.eventsRead) event\(report.eventsRead == 1 ? "" : "s") read"
        line += ", \(report.occurrences) occurrences, \(report.dayEntries) day entries"
        line += ", \(report.rejections.count) rejected"
        line += ", \(String(format: "%.2f", seconds)) s"
        if dryRun { line += " (dry run: nothing written)" }
        Terminal.error(line)
        for (sink, rows) in report.rowsWritten { Terminal.error("calpipe:   \(sink): \(rows) rows written") }
        for (counter, value) in report.counters { Terminal.error("calpipe:   \(counter): \(value)") }
        if !report.warnings.isEmpty { Terminal.error("calpipe:   warnings: \(report.warnings.count)") }
    }
}
