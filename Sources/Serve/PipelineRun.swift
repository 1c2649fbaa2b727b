import CalpipeKit
import Foundation
import Pipeline

/// One run of a pipeline file inside `calpipe serve`, as `calpipe run` makes it: loaded anew (so relative windows
/// follow the date), under the pipeline's lock (a `calpipe run` of the same file meanwhile is not overlapped),
/// incremental, with its run stamp and plugin states in calpipe's state folder. Warnings go to the log.
///
/// Run through the library's async API (`Runner.run(_:context:) async`): the calling task is not blocked, and
/// cancelling it stops the run at its next batch (or its request under way): every sink rolls back.
struct PipelineRun {
    let file: String
    let environment: [String: String]
    let log: @Sendable (String) -> Void

    func run(report: RunReport) async throws {
        // Its own HTTP client per run, as `calpipe run` has: a host that asked to be left alone (a Retry-After beyond
        // the budget) is asked again at the next refresh, not never.
        let definition = try PipelineLoader.standard(environment: environment).load(file: file)
        let name = definition.environment.name
        let lock = try RunLock.acquire(path: RunLock.path(for: file, environment: environment), pipeline: name, wait: 0, label: file,
                                       held: "another run of this pipeline is in progress", consequence: "this refresh was skipped")
        defer { lock?.release() }
        let context = RunContext(environment: definition.environment, report: report, quiet: true) { [log] record in
            if record.level >= .warning { log("\(name): \(record.message)") }
        }
        var runner = Runner(incremental: true)
        runner.stampFile = RunStamp.path(for: file, environment: environment)
        runner.stateFile = PluginStateFile.path(for: file, environment: environment)
        try await runner.run(definition, context: context)
    }
}
