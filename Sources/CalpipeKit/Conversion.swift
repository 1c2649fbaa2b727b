import Foundation
import Importers
import Pipeline

/// One input converted into one output: the pipeline `calpipe convert` runs, and the one the library's jobs run,
/// so that a program and the command give the same bytes for the same input, window and zone.
///
/// The input format is read from the file's first bytes (iCalendar, xCal, a CalDAV multistatus answer, jCal or
/// JSON), else from its extension. With a window the events are expanded into occurrences; with days they are
/// also split into days.
public struct Conversion: Sendable {
    /// The input file (or a URL the sources read), "-" for standard input.
    public var input: String
    /// The source type (`ics`, `json`, ...); nil: sniffed from the input's first bytes, then its extension.
    public var format: String?
    /// First day of the window (`YYYY-MM-DD`, `today`, `today+Nd`); nil with `to` nil: no window.
    public var from: String?
    /// Day after the window's last day; nil: one year after `from`.
    public var to: String?
    /// The output time zone (an IANA name); nil: `$TZ`, then the system zone.
    public var timeZone: String?
    /// With days: the most day entries one series or event may make (the split stage's `max_day_entries`).
    public var maxDayEntries: Int?

    /// The input is events a program holds (`ValuesSource`), not a file.
    var valuesInput = false

    /// A conversion of `input`; the other settings are set on the value.
    public init(input: String, format: String? = nil, from: String? = nil, to: String? = nil, timeZone: String? = nil) {
        self.input = input
        self.format = format
        self.from = from
        self.to = to
        self.timeZone = timeZone
    }

    /// The source type of the input: `format`, else the one its first bytes tell, else its extension's.
    public func sourceType(registry: PluginRegistry) throws -> String {
        if let format { return format }
        if valuesInput { return ValuesSource.type }
        if let sniffed = FormatSniffer.sourceType(ofFileAt: input).flatMap({ registry.source($0)?.type }) { return sniffed }
        return try Conversion.type(ofPath: input, known: registry.sources.flatMap(\.fileExtensions)) { registry.source(forExtension: $0)?.type }
    }

    /// The sink type an output path's extension names (`.ics`, `.json`, `.sqlite`, ...).
    public static func sinkType(ofPath path: String, registry: PluginRegistry) throws -> String {
        try type(ofPath: path, known: registry.sinks.flatMap(\.fileExtensions)) { registry.sink(forExtension: $0)?.type }
    }

    /// The pipeline (as its JSON) that reads the input into `sink`: expanded when there is a window, split into
    /// days when `days` (and then, without a window, in the year before and the year after today).
    public func pipeline(sink: JSONObject, days: Bool, registry: PluginRegistry) throws -> JSONValue {
        var sink = sink
        let sourceType = try sourceType(registry: registry)
        var root = JSONObject()
        // No "name": the pipeline is named after the input ("team" for team.ics).
        if let timeZone { root["timezone"] = .string(timeZone) }
        if days && from == nil && to == nil {
            root["window"] = .object(JSONObject([("from", .string("today-365d")), ("to", .string("today+365d"))]))
        } else if from != nil || to != nil {
            let fromText = from ?? "today"
            // Without an end the window is one year long.
            let toText = to ?? ISODate.parseDate(fromText).map { $0.adding(days: 365).iso8601 } ?? "today+365d"
            root["window"] = .object(JSONObject([("from", .string(fromText)), ("to", .string(toText))]))
        }
        let remote = ["http://", "https://", "webcal://"].contains { input.lowercased().hasPrefix($0) }
        var source = JSONObject([("type", .string(sourceType))])
        if !valuesInput { source[remote ? "url" : "path"] = .string(input) }
        root["sources"] = .array([.object(source)])
        var stages: [JSONValue] = []
        if root["window"] != nil, registry.stage("expand") != nil { stages.append(.object(JSONObject([("type", .string("expand"))]))) }
        if days {
            var split = JSONObject([("type", .string("split"))])
            if let maxDayEntries { split["max_day_entries"] = .number(Double(maxDayEntries)) }
            stages.append(.object(split))
        }
        root["stages"] = .array(stages)
        // Calendar formats write occurrences (not the series) when a window asks for expansion.
        if root["window"] != nil, let type = sink["type"]?.stringValue,
           registry.sink(type)?.options.contains(where: { $0.name == "expand" }) == true {
            sink["expand"] = .bool(true)
        }
        root["sinks"] = .array([.object(sink)])
        return .object(root)
    }

    /// The name the pipeline takes: the input's file name without its extension ("agenda" for standard input).
    public var pipelineName: String {
        input == "-" || valuesInput ? "agenda" : URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
    }

    private static func type(ofPath path: String, known: [String], lookup: (String) -> String?) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if let type = lookup(ext) { return type }
        throw CalpipeError("cannot tell the format of \"\(path)\" from its extension (known: \(Set(known).sorted().joined(separator: ", "))); give --format/--output-format",
                           kind: .usage)
    }
}
