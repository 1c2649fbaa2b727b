import ArgumentParser
import Pipeline

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file.",
        discussion: """
            Reads every source, passes events through the stages and writes every sink. Outputs appear only when \
            the run succeeds. A summary goes to standard error.

            Example:
              calpipe run pipelines/demo.json
              calpipe run pipelines/team.json --quiet --strict
              calpipe run pipelines/team.json --shard 2/8
            """
    )

    @Argument(help: "The pipeline file (JSON).")
    var pipeline: String

    @Option(name: .customLong("set"), help: ArgumentHelp("Put VALUE at KEY in the pipeline file before it is read (repeatable): window.from=today-1d, sinks[0].path=out/a.json.", valueName: "KEY=VALUE"))
    var overrides: [String] = []

    @Flag(help: "Read and process everything, but write nothing.")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Fail (exit 1, nothing written) when any record is rejected.")
    var strict = false

    @Option(help: ArgumentHelp("Wait up to this many seconds for another run of the same pipeline or into the same database to end (default: exit at once, naming it).", valueName: "seconds"))
    var wait: Double = 0

    @Flag(help: "Read and write every source and event, also those that did not change since the last run.")
    var full = false

    @Flag(help: "Use only the HTTP cache: no request is made; a URL with nothing cached fails.")
    var offline = false

    @Option(help: ArgumentHelp("Append every rejected record to this file, one JSON line each with its reason, source, file, line and raw text (instead of the pipeline's \"rejected\").", valueName: "file"))
    var rejected: String?

    @Option(help: ArgumentHelp("Run only the sources in shard K of N (by a stable hash of each source's name; every source is in exactly one shard). The sinks keep the rows of the other sources.", valueName: "K/N"))
    var shard: String?

    @OptionGroup(title: "Logging")
    var log: LogOptions

    func validate() throws {
        if let shard {
            do { _ = try PipelineShard(parsing: shard) } catch { throw ValidationError("\(error)") }
        }
    }

    func run() throws {
        // From the start: a signal while the pipeline loads stops the run before it writes anything.
        let signals = SignalWatch()
        defer { signals.stop() }
        let loader = try PipelineSession.loader(overrides: overrides, offline: offline)
        var definition = try loader.load(file: pipeline)
        if let rejected { definition.rejectedFile = (rejected, rejected) }
        let shard = try self.shard.map { text throws(CalpipeError) in try PipelineShard(parsing: text) }
        var shardNote: String?
        if let shard {
            let all = definition.sourceLabels.count
            definition = definition.restricted(to: shard)
            let names = definition.sourceLabels.indices.map { definition.shownSourceName($0) }
            shardNote = "shard \(shard): \(names.count) of \(all) source\(all == 1 ? "" : "s")" + (names.isEmpty ? "" : ": " + names.joined(separator: ", "))
        }
        // The files the pipeline names, checked as `validate` checks them: a missing input is a pipeline problem
        // (exit 2, its JSON path), reported the same way whichever command finds it.
        let files = PipelineFileCheck.check(file: pipeline, registry: loader.registry, environment: loader.environment, overrides: loader.overrides)
        if !quiet { for warning in files.warnings { Terminal.error("\(warning.file ?? pipeline): \(warning.path ?? ""): warning: \(warning.message)") } }
        if !files.errors.isEmpty { throw ConfigErrors(files.errors) }
        // The resolved plan on a dry run; otherwise only what the loader changed (an added expand stage).
        if dryRun && !quiet {
            for line in definition.planLines { Terminal.error("calpipe: " + line) }
        } else if !quiet {
            for note in definition.notes { Terminal.error("calpipe: note: " + note) }
        }
        try PipelineSession(quiet: quiet, strict: strict, dryRun: dryRun, log: log, wait: wait, full: full, lockedFile: pipeline,
                            shard: shard, shardNote: shardNote)
            .run(definition, signals: signals)
    }
}
