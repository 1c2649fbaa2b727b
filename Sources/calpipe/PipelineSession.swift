import ArgumentParser
import CalpipeKit
import Foundation
import Pipeline

/// Loads a pipeline, runs it, prints the summary and picks the exit code. Shared by `run` and `convert`.
struct PipelineSession {
    var quiet: Bool
    var strict: Bool
    var dryRun: Bool
    var log: LogOptions
    /// Seconds to wait for another run holding the pipeline's or a database's lock (`run --wait`); 0: exit at once.
    var wait: Double = 0
    /// Read and write everything, also what did not change (`run --full`).
    var full = false
    /// The pipeline file, locked for the run (`RunLock.path(for:environment:)`); nil: no pipeline lock (`convert`).
    var lockedFile: String?

    /// The loader with every plugin, and URL inputs fetched through the shared HTTP client and cache
    /// (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe`, else `~/.cache/calpipe`; opened only when used).
    /// `offline`: only the cache answers (`--offline`; also `CALPIPE_OFFLINE=1`), for feeds and forecasts alike.
    /// `http`: a client made before, so a command that loads twice (`agenda`) keeps one per process.
    static func loader(overrides: [String] = [], offline: Bool = false, http: HTTPFetcher? = nil) throws -> PipelineLoader {
        var environment = ProcessInfo.processInfo.environment
        if offline { environment["CALPIPE_OFFLINE"] = "1" }
        var loader = PipelineLoader.standard(environment: environment, http: http)
        loader.overrides = try overrides.map { text throws(CalpipeError) in try PipelineOverride(parsing: text) }
        return loader
    }

    /// Runs the pipeline. `signals`: the command's watch, started before it loaded the pipeline (so a signal
    /// while loading stops the run before it writes).
    func run(_ pipeline: PipelineDefinition, signals: SignalWatch) throws {
        let report = RunReport()
        let cancellation = signals.cancellation
        let logger = RunLogger(level: log.logLevel, format: log.logFormat, quiet: quiet)
        let context = RunContext(environment: pipeline.environment, report: report, strict: strict, quiet: quiet, cancellation: cancellation,
                                 logger: logger.log)
        context.runState.lockWaitSeconds = wait
        var pipelineLock: RunLock?
        defer { pipelineLock?.release() }
        if let lockedFile, !dryRun {
            let lockPath = RunLock.path(for: lockedFile, environment: pipeline.environment.environment)
            do {
                pipelineLock = try RunLock.acquire(path: lockPath, pipeline: pipeline.environment.name, wait: wait, label: lockedFile,
                                                   held: "another run of this pipeline is in progress", cancelled: { cancellation.cancelledReason != nil })
            } catch let error as CalpipeError {
                logger.log(LogRecord(level: .error, message: "error: \(error)"))
                throw ExitCode(error.exitCode)
            }
        }
        let started = Date()
        let lastProgress = Locked(Date())
        var runner = Runner(dryRun: dryRun, incremental: !full)
        if logger.showsProgress {
            runner.progress = { @Sendable report in
                let now = Date()
                let due = lastProgress.withLock { last in
                    guard now.timeIntervalSince(last) > 0.25 else { return false }
                    last = now
                    return true
                }
                if due { logger.progress(Self.progressText(report, seconds: now.timeIntervalSince(started))) }
            }
        }
        // A pipeline file's run keeps its outputs whole when nothing changed (RunStamp, in calpipe's state folder).
        if let lockedFile { runner.stampFile = RunStamp.path(for: lockedFile, environment: pipeline.environment.environment) }
        // The plugins' states, when no sink keeps them in its database (PluginStateFile, in the same folder).
        if let lockedFile { runner.stateFile = PluginStateFile.path(for: lockedFile, environment: pipeline.environment.environment) }
        // On this thread, synchronously. Run as a task (the library's async API, which the signal would cancel), a
        // SIGTERM during the expansion of runaway series took over 3 s to stop the run (RunawaySeriesSignalTests),
        // against under 2 s on this thread; not yet understood (issue 24 item 7).
        var failure: (any Error)?
        do { try runner.run(pipeline, context: context) } catch { failure = error }
        logger.clearProgress()
        logger.flushGroups()
        let seconds = Date().timeIntervalSince(started)
        let name = pipeline.environment.name
        /// Logs `message` as an error (if any), writes the summary, and ends with `code` (all from `ExitStatus`).
        func end(_ code: Int32, reason: String, log message: String? = nil) throws {
            if let message { logger.log(LogRecord(level: .error, message: message)) }
            writeSummary(report: report, name: name, seconds: seconds, code: code, reason: reason, logger: logger)
            if code != ExitStatus.done { throw ExitCode(code) }
        }
        // A run asked to stop that failed otherwise on its way (say, reading an input a signal cut short) was
        // interrupted all the same. Every sink rolled back.
        let problem = failure.map(CalpipeError.init)
        var interruption = problem == nil ? nil : cancellation.stopReason
        if case .interrupted(let signal)? = problem?.kind { interruption = signal }
        if let interruption {
            let remote = pipeline.sinks.filter { $0.commitKind == .remote }.map(\.label)
            let message = ExitStatus.interruptedText(by: interruption, report: report, remoteSinks: remote)
            return try end(ExitStatus.interrupted(by: interruption), reason: message, log: message)
        }
        for rejection in report.rejections {
            logger.log(LogRecord(level: .error, message: "rejected: \(rejection)", file: rejection.location.file, line: rejection.location.line))
        }
        if let problem { return try end(problem.exitCode, reason: "\(problem)", log: "error: \(problem)") }
        for line in summaryLines(report, name: name, seconds: seconds) { logger.log(LogRecord(level: .info, message: line)) }
        if let reason = cancellation.cancelledReason {
            // The signal came after the point of no return (the outputs were being made visible): the run
            // finished, and still says it was asked to stop.
            let message = "interrupted by \(reason) after the point of no return: the run was completed, every output is written"
            return try end(ExitStatus.interrupted(by: reason), reason: message, log: message)
        }
        // Sources whose rows were kept (failed, or empty where a database remembers them): the rest was written.
        for kept in report.keptSources { logger.log(LogRecord(level: .error, message: "error: \(kept)")) }
        // Records a sink could not write (a remote sink's): every output was committed all the same.
        for failed in report.failedRecords { logger.log(LogRecord(level: .error, message: "failed: \(failed)")) }
        let (code, reason) = ExitStatus.of(report)
        try end(code, reason: reason)
    }

    /// `calpipe: 45% of 74.4 MB, 120,000 events read, about 3 s left` (percent only when the inputs' size is known).
    static func progressText(_ report: RunReport, seconds: Double) -> String {
        var text = "calpipe: "
        let total = report.inputBytesExpected, read = min(report.inputBytesRead, report.inputBytesExpected)
        if total > 0 {
            let fraction = Double(read) / Double(total)
            text += "\(Int(fraction * 100))% of \(Self.megabytes(total)), "
            text += "\(report.eventsRead) events read"
            if fraction > 0.02 && fraction < 1 { text += ", about \(Int((seconds / fraction - seconds).rounded(.up))) s left" }
            return text
        }
        return text + "\(report.eventsRead) events read..."
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    static func plural(_ n: Int, _ word: String, _ plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? word : plural ?? word + "s")
    }

    /// One count line, then a line per sink and per counter: `demo: 50 events read, 83 occurrences, ...`.
    private func summaryLines(_ report: RunReport, name: String, seconds: Double) -> [String] {
        var lines: [String] = []
        if report.keptOutputs {
            lines = ["\(name): " + report.notes.joined(separator: "; ") + String(format: " (%.2f s)", seconds)]
            // What finding that out did (feeds revalidated against the HTTP cache).
            for (counter, value) in report.counters { lines.append("  \(counter): \(value)") }
        } else {
            lines = countLines(report, name: name, seconds: seconds)
        }
        for copy in report.cachedCopies { lines.append("  cached copy of \(copy.label): \(DurationOption.describe(copy.age)) old (\(copy.origin))") }
        return lines
    }

    private func countLines(_ report: RunReport, name: String, seconds: Double) -> [String] {
        var line = "\(name): " + Self.plural(report.eventsRead, "event") + " read"
        line += ", " + Self.plural(report.occurrences, "occurrence") + ", " + Self.plural(report.dayEntries, "day entry", "day entries")
        line += ", \(report.rejections.count) rejected"
        line += ", \(report.repairs.count) repaired"
        if !report.warnings.isEmpty { line += ", " + Self.plural(report.warnings.count, "warning") }
        line += " in \(String(format: "%.2f", seconds)) s"
        if dryRun { line += " (dry run: nothing written)" }
        var lines = [line]
        for (sink, rows) in report.rowsWritten { lines.append("  \(sink): " + Self.plural(rows, "row") + " written") }
        for (sink, outcomes) in report.outcomes where !outcomes.isEmpty { lines.append("  \(sink): \(outcomes)") }
        for (counter, value) in report.counters { lines.append("  \(counter): \(value)") }
        for note in report.notes { lines.append("  " + note) }
        return lines
    }

    /// `--summary-json FILE`: what the summary says, for monitoring; written atomically whatever the outcome.
    private func writeSummary(report: RunReport, name: String, seconds: Double, code: Int32, reason: String, logger: RunLogger) {
        guard let path = log.summaryJSON else { return }
        var o = JSONObject()
        o["pipeline"] = .string(name)
        o["exit_code"] = .number(Double(code))
        o["exit_reason"] = .string(reason)
        o["dry_run"] = .bool(dryRun)
        o["seconds"] = .number((seconds * 1000).rounded() / 1000)
        o["events_read"] = .number(Double(report.eventsRead))
        o["occurrences"] = .number(Double(report.occurrences))
        o["day_entries"] = .number(Double(report.dayEntries))
        o["rejected"] = .number(Double(report.rejections.count))
        o["repaired"] = .number(Double(report.repairs.count))
        o["warnings"] = .array(report.warnings.map { .string($0) })
        o["rows_written"] = .array(report.rowsWritten.map { .object(JSONObject([("sink", .string($0.sink)), ("rows", .number(Double($0.rows)))])) })
        o["outcomes"] = .object(JSONObject(report.outcomes.map { sink, outcomes in
            (key: sink, value: .object(JSONObject(RecordOutcome.allCases.map { (key: $0.rawValue, value: .number(Double(outcomes[$0]))) })))
        }))
        o["failed_records"] = .array(report.failedRecords.map { .string($0) })
        o["counters"] = .object(JSONObject(report.counters.map { (key: $0.name, value: .number(Double($0.value))) }))
        o["cached_copies"] = .array(report.cachedCopies.map {
            .object(JSONObject([("source", .string($0.label)), ("age_seconds", .number($0.age.rounded(.down))), ("origin", .string($0.origin))]))
        })
        o["timings"] = .array(report.timings.map {
            .object(JSONObject([("step", .string($0.step)), ("seconds", .number(($0.seconds * 1000).rounded() / 1000))]))
        })
        do {
            let file = try AtomicFile(path: path)
            try file.write(JSONWriter(pretty: true).string(.object(o)) + "\n")
            try file.commit()
        } catch {
            logger.log(LogRecord(level: .error, message: "\(path): cannot write the summary (\(CalpipeError(error)))"))
        }
    }
}
