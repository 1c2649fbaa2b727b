import ArgumentParser
import Pipeline

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a pipeline file without running it.",
        discussion: """
            Prints every problem with its JSON path (exit 2), or a one-line summary (exit 0). Besides the file \
            itself it checks the files it names: inputs must exist and be readable (a glob that matches nothing \
            is a warning), outputs must be writable (no file where a folder should be, the folder writable), \
            and every ${VARIABLE} without a default must be set.

            Example:
              calpipe validate pipelines/demo.json
            """
    )

    @Argument(help: "The pipeline file (JSON).")
    var pipeline: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sinks[0].path=out/a.json.", valueName: "KEY=VALUE"))
    var overrides: [String] = []

    func run() throws {
        let loader = try PipelineSession.loader(overrides: overrides)
        let definition = try loader.load(file: pipeline)
        let files = PipelineFileCheck.check(file: pipeline, registry: loader.registry, environment: loader.environment, overrides: loader.overrides)
        for warning in files.warnings { Terminal.error("\(warning.file ?? pipeline): \(warning.path ?? ""): warning: \(warning.message)") }
        if !files.errors.isEmpty { throw ConfigErrors(files.errors) }
        let env = definition.environment
        var line = "\(pipeline): ok: \"\(env.name)\", \(definition.sources.count) source\(definition.sources.count == 1 ? "" : "s"), "
        line += "\(definition.stages.count) stage\(definition.stages.count == 1 ? "" : "s"), \(definition.sinks.count) sink\(definition.sinks.count == 1 ? "" : "s"), "
        line += "time zone \(env.zone.identifier)"
        if let w = env.window { line += ", window \(w.from.iso8601) to \(w.to.iso8601) (exclusive)" }
        print(line)
        for planLine in definition.planLines { print(planLine) }
    }
}
