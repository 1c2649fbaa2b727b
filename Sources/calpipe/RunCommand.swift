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
        let definition: PipelineDefinition
        do {
            definition = try PipelineSession.loader().load(file: pipeline)
        } catch let errors as ConfigErrors {
            throw PipelineSession.reportConfigErrors(errors)
        }
        // The resolved plan on a dry run; otherwise only what the loader changed (an added expand stage).
        if dryRun && !quiet {
            for line in definition.planLines { Terminal.error("calpipe: " + line) }
        } else if !quiet {
            for note in definition.notes { Terminal.error("calpipe: note: " + note) }
        }
        try PipelineSession(quiet: quiet, strict: strict, dryRun: dryRun).run(definition)
    }
}
