import CalpipeKit
import Foundation
import Pipeline
import ServiceLifecycle

/// Runs one pipeline on its refresh interval, each run a task of the service's (`PipelineRun`, on the library's
/// async API), and publishes its outputs after each successful run: the files as the run renamed them into place,
/// read whole, so a half-written file is never served. A failed run leaves the last good outputs served. On
/// graceful shutdown (SIGTERM, SIGINT) the loop's task is cancelled: the run under way stops at its next batch or
/// request and rolls back, as `calpipe run` does on SIGTERM, and the wait for the next run ends.
final class PipelineRefresher: Service {
    let pipeline: ServedPipeline
    let board: FeedBoard
    let metrics: ServeMetrics
    let environment: [String: String]
    let log: @Sendable (String) -> Void

    init(pipeline: ServedPipeline, board: FeedBoard, metrics: ServeMetrics, environment: [String: String], log: @escaping @Sendable (String) -> Void) {
        self.pipeline = pipeline
        self.board = board
        self.metrics = metrics
        self.environment = environment
        self.log = log
    }

    func run() async throws {
        loadPublished()
        try? await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                await refresh()
                try await Task.sleep(for: .seconds(pipeline.refresh))
            }
        }
    }

    /// The outputs an earlier run left, served until the first run here ends (their age is the file's).
    func loadPublished() {
        var oldest: Date?
        for output in pipeline.outputs {
            guard let bytes = FileManager.default.contents(atPath: output.path),
                  let modified = (try? FileManager.default.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date else { continue }
            board.publish(served(bytes, output, modified), at: output.route)
            oldest = min(oldest ?? modified, modified)
        }
        if let oldest { board.update(pipeline.name) { $0.freshAt = oldest; $0.lastError = "not run yet since calpipe serve started" } }
    }

    /// One run, then the board and metrics updated. A run cancelled (shutting down) changes neither.
    func refresh() async {
        let started = Date()
        let report = RunReport()
        let name = pipeline.name
        var problem: String?
        do {
            try await PipelineRun(file: pipeline.file, environment: environment, log: log).run(report: report)
            // The outputs were committed (without what the failed sources would have given): served, and said.
            publishOutputs()
            if !report.keptSources.isEmpty { problem = report.keptSources.joined(separator: "; ") }
        } catch {
            if Task.isCancelled {  // shutting down: not a failure of the feed
                log("\(name): run stopped by the shutdown; its outputs are as they were")
                return
            }
            problem = "\(CalpipeError(error))"
        }
        let now = Date()
        let stale = report.cachedCopies.filter { $0.origin == "stale" }.map { $0.age }.max()
        board.update(name) { status in
            status.runs += 1
            if let problem {
                status.failures += 1
                status.lastError = problem
            } else {
                status.lastError = nil
                status.lastSuccess = now
                status.freshAt = now.addingTimeInterval(-(stale ?? 0))
                status.upstreamAges = report.cachedCopies.map { ($0.label, $0.origin == "stale" ? $0.age : 0) }
            }
        }
        metrics.runEnded(name, failed: problem != nil)
        let seconds = String(format: "%.2f", now.timeIntervalSince(started))
        if let problem {
            let age = board.status(name).staleAge(now: now).map { "serving the last good outputs (\(DurationOption.describe(Double($0))) old)" }
                ?? "nothing to serve yet"
            log("\(name): run failed in \(seconds) s: \(problem); \(age)")
        } else {
            let what = report.keptOutputs ? "nothing changed, outputs kept" : "\(report.eventsRead) events read, outputs published"
            log("\(name): \(what) in \(seconds) s" + (stale.map { " (from a cached copy \(DurationOption.describe($0)) old)" } ?? ""))
        }
    }

    func served(_ bytes: Data, _ output: ServedPipeline.Output, _ modified: Date) -> ServedFile {
        ServedFile(bytes: [UInt8](bytes), contentType: output.contentType, lastModified: modified,
                   cacheControl: pipeline.settings.isPublic ? "public, no-cache" : "private, no-cache")
    }

    /// Reads each output the run renamed into place (whole: a rename is atomic) and publishes it.
    private func publishOutputs() {
        for output in pipeline.outputs {
            guard let bytes = FileManager.default.contents(atPath: output.path) else { continue }
            let modified = (try? FileManager.default.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date ?? Date()
            board.publish(served(bytes, output, modified), at: output.route)
        }
    }
}
