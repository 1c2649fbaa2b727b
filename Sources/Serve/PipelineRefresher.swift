import CalpipeKit
import Foundation
import Pipeline
import ServiceLifecycle

/// Runs one pipeline on its refresh interval, each run on a thread of its own (the runner blocks while it
/// reads feeds and writes files), and publishes its outputs after each successful run: the files as the run
/// renamed them into place, read whole, so a half-written file is never served. A failed run leaves the last
/// good outputs served. On shutdown the run under way is cancelled and rolls back, as `calpipe run` does on SIGTERM.
final class PipelineRefresher: Service {
    let pipeline: ServedPipeline
    let board: FeedBoard
    let metrics: ServeMetrics
    let environment: [String: String]
    let log: @Sendable (String) -> Void
    /// The run under way (cancelled on shutdown), and whether shutdown began.
    private let current = Locked((cancellation: Cancellation?.none, stopping: false))

    init(pipeline: ServedPipeline, board: FeedBoard, metrics: ServeMetrics, environment: [String: String], log: @escaping @Sendable (String) -> Void) {
        self.pipeline = pipeline
        self.board = board
        self.metrics = metrics
        self.environment = environment
        self.log = log
    }

    func run() async throws {
        loadPublished()
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                await runOnThread()
                try? await cancelWhenGracefulShutdown { [refresh = pipeline.refresh] in try await Task.sleep(for: .seconds(refresh)) }
            }
        } onGracefulShutdown: { [current] in
            current.withLock { c in
                c.stopping = true
                c.cancellation?.cancel(reason: "SIGTERM")
            }
        }
    }

    /// The outputs an earlier run left, served until the first run here ends (their age is the file's).
    func loadPublished() {
        var oldest: Date?
        for output in pipeline.outputs {
            guard let bytes = FileManager.default.contents(atPath: output.path),
                  let modified = (try? FileManager.default.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date else { continue }
            board.publish(ServedFile(bytes: [UInt8](bytes), contentType: output.contentType, lastModified: modified), at: output.route)
            oldest = min(oldest ?? modified, modified)
        }
        if let oldest { board.update(pipeline.name) { $0.freshAt = oldest; $0.lastError = "not run yet since calpipe serve started" } }
    }

    private func runOnThread() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                refresh()
                done.resume()
            }
            thread.name = "calpipe-serve-" + pipeline.name
            thread.start()
        }
    }

    /// One run, then the board and metrics updated.
    func refresh() {
        let cancellation = Cancellation()
        let stopping = current.withLock { c in
            c.cancellation = cancellation
            return c.stopping
        }
        guard !stopping else { return }
        defer { current.withLock { $0.cancellation = nil } }
        let started = Date()
        let report = RunReport()
        let name = pipeline.name
        var problem: String?
        do {
            try PipelineRun(file: pipeline.file, environment: environment, log: log).run(report: report, cancellation: cancellation)
            // The outputs were committed (without what the failed sources would have given): served, and said.
            publishOutputs()
            if !report.keptSources.isEmpty { problem = report.keptSources.joined(separator: "; ") }
        } catch {
            if cancellation.cancelledReason != nil { return }  // shutting down: not a failure of the feed
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

    /// Reads each output the run renamed into place (whole: a rename is atomic) and publishes it.
    private func publishOutputs() {
        for output in pipeline.outputs {
            guard let bytes = FileManager.default.contents(atPath: output.path) else { continue }
            let modified = (try? FileManager.default.attributesOfItem(atPath: output.path))?[.modificationDate] as? Date ?? Date()
            board.publish(ServedFile(bytes: [UInt8](bytes), contentType: output.contentType, lastModified: modified), at: output.route)
        }
    }
}
