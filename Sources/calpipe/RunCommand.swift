import ArgumentParser
import Pipeline

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file.",
        discussion: """
            Reads every source, passes events through the stages and writes every sink. Outputs appear only when
            the run succeeds. A summary goes to standard error.

            Example:
              calpipe run pipelines/demo.json
              calpipe run pipelines/team.json --quiet --strict
            """
    )

    @Argument(help: "The pipeline file (JSON).")
    var pipeline: String

    @Flag(help: "Read and process everything, but write nothing.")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Fail (exit 1, nothing written) when any record is rejected.")
    var strict = false

    func run() throws {
        // From the start: a signal while the pipeline loads stops the run before it writes anything.
        let signals = SignalWatch()
        defer { signals.stop() }
        let definition: PipelineDefinition
        do {
            definition = try PipelineSession.loader().load(file: pipeline)
        } catch let errors as ConfigErrors {
            throw PipelineSession.reportConfigErrors(errors)
        }
        try PipelineSession(quiet: quiet, strict: strict, dryRun: dryRun).run(definition, signals: signals)
    }
}
