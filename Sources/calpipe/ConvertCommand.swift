import ArgumentParser
import Foundation
import Importers
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
        let sniffed = format == nil ? FormatSniffer.sourceType(ofFileAt: input).flatMap { registry.source($0)?.type } : nil
        let sourceType = try format ?? sniffed ?? formatFromExtension(input, known: registry.sources.flatMap(\.fileExtensions)) { registry.source(forExtension: $0)?.type }
        let sinkType = try outputFormat ?? formatFromExtension(output, known: registry.sinks.flatMap(\.fileExtensions)) { registry.sink(forExtension: $0)?.type }

        var sink = JSONObject([("type", .string(sinkType)), ("path", .string(output))])
        if let shape { sink["shape"] = .string(shape) } else if sinkType == "json" {
            sink["shape"] = .string(from != nil || to != nil ? "occurrences" : "events")
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        // An output made of agenda days (a database, a days document, a page) gets expand and split, and without
        // --from/--to the window of the year before and the year after today.
        let needsDays = loader.needs(ofSink: sinkType, options: sink, baseDirectory: cwd)?.contains(.days) == true

        var root = JSONObject()
        // No "name": the pipeline is named after the input ("team" for team.ics), and a page takes the calendar's
        // name (X-WR-CALNAME, NAME) when it has one.
        if let tz { root["timezone"] = .string(tz) }
        if needsDays && from == nil && to == nil {
            root["window"] = .object(JSONObject([("from", .string("today-365d")), ("to", .string("today+365d"))]))
        } else if from != nil || to != nil {
            let fromText = from ?? "today"
            // Without --to the window is one year long.
            let toText = to ?? ISODate.parseDate(fromText).map { $0.adding(days: 365).iso8601 } ?? "today+365d"
            root["window"] = .object(JSONObject([("from", .string(fromText)), ("to", .string(toText))]))
        }
        root["sources"] = .array([.object(JSONObject([("type", .string(sourceType)), ("path", .string(input))]))])
        var stages: [JSONValue] = []
        if root["window"] != nil, registry.stage("expand") != nil { stages.append(.object(JSONObject([("type", .string("expand"))]))) }
        if needsDays {
            var split = JSONObject([("type", .string("split"))])
            if let maxDayEntries { split["max_day_entries"] = .number(Double(maxDayEntries)) }
            stages.append(.object(split))
        }
        root["stages"] = .array(stages)
        // Calendar formats write occurrences (not the series) when a window asks for expansion.
        if root["window"] != nil, registry.sink(sinkType)?.options.contains(where: { $0.name == "expand" }) == true {
            sink["expand"] = .bool(true)
        }
        root["sinks"] = .array([.object(sink)])

        let inputName = input == "-" ? "agenda" : URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let definition = try loader.load(json: .object(root), file: "calpipe convert", baseDirectory: cwd, defaultName: inputName)
        try PipelineSession(quiet: quiet, strict: strict, dryRun: false, log: log).run(definition, signals: signals)
    }

    private func formatFromExtension(_ path: String, known: [String], lookup: (String) -> String?) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if let type = lookup(ext) { return type }
        throw ValidationError("cannot tell the format of \"\(path)\" from its extension (known: \(Set(known).sorted().joined(separator: ", "))); give --format/--output-format")
    }
}
