import ArgumentParser
import Foundation
import CalpipeKit
import Pipeline

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert one calendar file to another format, optionally expanded and split into days.",
        discussion: """
            The input format is read from the file's first bytes (iCalendar, xCal, a CalDAV multistatus answer, jCal \
            or JSON), else from its extension; the output format follows the output's extension (.ics, .json, \
            .sqlite, ...). Standard input or output ("-") needs --format or --output-format. With --from/--to the \
            events are expanded into occurrences inside that window; with --shape days, and for outputs made of \
            agenda days (a SQLite database), they are also split into days (without --from/--to, in the year \
            before and the year after today).

            Example:
              calpipe convert team.ics -o agenda.json --from 2026-11-01 --to 2026-12-01 --shape days --tz Europe/Berlin
              cat feed.json | calpipe convert - --format json -o - --output-format ics
              calpipe convert team.ics -o agenda.sqlite
            """
    )

    @Argument(help: "Input file, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "Output file, or - for standard output.")
    var output: String

    @Option(help: "Input format (a source type such as ics or json); default: from the input's content, then its extension.")
    var format: String?

    @Option(help: "Output format (a sink type such as ics or json); default: from the output's extension.")
    var outputFormat: String?

    @Option(help: "First day of the window (YYYY-MM-DD, today, today+Nd, today-Nw).")
    var from: String?

    @Option(help: "Day after the last day of the window (exclusive).")
    var to: String?

    @Option(help: "Output time zone (IANA name); default: $TZ, then the system zone.")
    var tz: String?

    @Option(help: "For JSON output: days, events or occurrences.")
    var shape: String?

    @Option(help: ArgumentHelp("With days: the most day entries one series or event may make (the split stage's max_day_entries; default 100000).", valueName: "n"))
    var maxDayEntries: Int?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Fail (exit 1, nothing written) when any record is rejected.")
    var strict = false

    @OptionGroup(title: "Logging")
    var log: LogOptions

    func validate() throws {
        if input == "-" && format == nil { throw ValidationError("reading standard input needs --format (a source type such as ics or json)") }
        if output == "-" && outputFormat == nil { throw ValidationError("writing standard output needs --output-format (a sink type such as ics or json)") }
    }

    func run() throws {
        // From the start: a signal while the pipeline loads stops the run before it writes anything.
        let signals = SignalWatch()
        defer { signals.stop() }
        let loader = try PipelineSession.loader()
        let registry = loader.registry
        var conversion = Conversion(input: input, format: format, from: from, to: to, timeZone: tz)
        conversion.maxDayEntries = maxDayEntries
        let pipeline: JSONValue
        do {
            let sinkType = try outputFormat ?? Conversion.sinkType(ofPath: output, registry: registry)
            var sink = JSONObject([("type", .string(sinkType)), ("path", .string(output))])
            if let shape { sink["shape"] = .string(shape) } else if sinkType == "json" {
                sink["shape"] = .string(from != nil || to != nil ? "occurrences" : "events")
            }
            // An output made of agenda days (a database, a days document, a page) gets expand and split, and
            // without --from/--to the window of the year before and the year after today.
            let needsDays = loader.needs(ofSink: sinkType, options: sink, baseDirectory: cwd)?.contains(.days) == true
            pipeline = try conversion.pipeline(sink: sink, days: needsDays, registry: registry)
        } catch let error as CalpipeError where error.kind == .usage {
            throw ValidationError(error.message)
        }
        let definition = try loader.load(json: pipeline, file: "calpipe convert", baseDirectory: cwd, defaultName: conversion.pipelineName)
        try PipelineSession(quiet: quiet, strict: strict, dryRun: false, log: log).run(definition, signals: signals)
    }

    private var cwd: URL { URL(fileURLWithPath: FileManager.default.currentDirectoryPath) }
}
