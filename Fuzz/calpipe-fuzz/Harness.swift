import CalpipeKit
import Enrichers
import Exporters
import Foundation
import Importers
import Pipeline

/// What every input needs, made once, and the targets (see Fuzz.swift).
final class Harness: @unchecked Sendable {
    static let targets = ["ics", "xcal", "jcal", "json", "xml", "rrule", "pipeline", "ics-dump"]
    let target: String
    let zones = ZoneDatabase()
    let berlin: Zone
    let utc: Zone
    let registry: PluginRegistry
    /// The input goes into this file for the file-reading sources (tmpfs when there is one).
    let inputPath: String
    let folder: URL
    let window = Window(from: CivilDate(year: 2026, month: 11, day: 1), to: CivilDate(year: 2026, month: 11, day: 15))

    init() {
        target = ProcessInfo.processInfo.environment["CALPIPE_FUZZ_TARGET"] ?? ""
        guard Self.targets.contains(target) else {
            FileHandle.standardError.write(Data("calpipe-fuzz: set CALPIPE_FUZZ_TARGET to one of: \(Self.targets.joined(separator: ", "))\n".utf8))
            exit(2)
        }
        berlin = zones.zone(named: "Europe/Berlin")!
        utc = zones.zone(named: "UTC")!
        registry = .standard
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        folder = URL(fileURLWithPath: base).appendingPathComponent("calpipe-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        inputPath = folder.appendingPathComponent("input").path
    }

    func environment(window: Window?) -> PipelineEnvironment {
        PipelineEnvironment(pipelineFile: "fuzz.json", baseDirectory: folder, name: "fuzz", zone: berlin, window: window,
                            environment: [:], zones: zones, today: CivilDate(year: 2026, month: 11, day: 2))
    }

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "ics": ics(bytes)
        case "rrule": rrule(bytes)
        case "pipeline": pipeline(bytes)
        case "ics-dump": dump(bytes)
        default: source(bytes)
        }
    }

    /// A context as a run's: the window, a quiet report.
    private func context() -> RunContext {
        RunContext(environment: environment(window: window), quiet: true, log: { _ in })
    }

    /// The iCalendar reader on the input's bytes, on this thread (the `ics` source's `workers: 0`; with workers
    /// the same scanner and builder run, only on other threads), then the stages.
    private func ics(_ bytes: UnsafeRawBufferPointer) {
        let context = context()
        var events: [Event] = []
        let reader = ICSReader(label: "input", zones: zones, fallbackZone: berlin, handlers: .init(
            event: { events.append($0) }, reject: { context.report.reject($0, $1) }, warn: { context.warn($0) },
            skip: { context.report.count("skipped " + $0) }, repair: { context.repair($0) }))
        do {
            try reader.feed(bytes.assumingMemoryBound(to: UInt8.self))
            try reader.finish()
        } catch {
            return
        }
        stages([Batch(events: events)], context: context)
    }

    /// The other sources read the input as a file, as a run does.
    private func source(_ bytes: UnsafeRawBufferPointer) {
        guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else { return }
        let input = InputSpec(location: .path(inputPath, written: "input"))
        let reader: any EventSource
        switch target {
        case "xcal": reader = XCalSource(input: input)
        case "jcal": reader = JCalSource(input: input)
        case "json": reader = JSONImporter(input: input)
        default:
            // The fields of the venue feed in Tests/Fixtures/xml (the seed corpus), as its test maps them.
            let mapping = EventMapping(paths: ["uid": "@id", "title": "name", "start": "@begins", "end": "@ends", "duration": "@duration",
                                               "all_day": "@allday", "location": "v:venue/v:name", "latitude": "v:venue/v:lat",
                                               "longitude": "v:venue/v:lon", "categories": "tag", "attendees": "performer"])
            guard let xml = try? MappedXMLSource(input: input, item: "//event", namespaces: [("v", "http://example.com/venue")], mapping: mapping) else { return }
            reader = xml
        }
        let context = context()
        var batches: [Batch] = []
        do {
            try reader.read(context: context) { batches.append($0) }
        } catch {
            return
        }
        stages(batches, context: context)
    }

    /// Expand and split over the two-week window, as a run's stages (so rules, zones and durations of fuzzed
    /// events are used too), without a runner: nothing else of a run depends on the input.
    /// The caps are lower than a run's: a fuzzed rule with long instances reached the run's caps in most
    /// executions, and splitting tens of thousands of entries took most of the target's time (perf of a
    /// campaign). Small caps reach the same code, the capping included, in a fraction of it.
    private func stages(_ batches: [Batch], context: RunContext) {
        let expand = ExpandStage(maxOccurrences: 1_000)
        let split = SplitStage(maxDayEntries: 1_000)
        do {
            for batch in batches {
                _ = try split.process(try expand.process(batch, context: context), context: context)
            }
            try expand.finish(context: context) { _ = try split.process($0, context: context) }
            try split.finish(context: context) { _ in }
        } catch {
            return
        }
    }

    private func rrule(_ bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self), let rule = try? RecurrenceRule(parsing: text) else { return }
        let start = CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)
        let to = CivilDateTime(year: 2028, month: 1, day: 1)
        for zone in [berlin, utc] {
            _ = rule.expand(start: start, from: start, to: to, zone: zone, limit: 2_000)
        }
        // And through a series, as the expand stage does it (durations, the window, the occurrence cap).
        var event = Event(uid: "fuzz", start: .zoned(start, berlin), endSpec: .duration(CalDuration(seconds: 5400)), title: "fuzz")
        event.recurrence = Recurrence(rules: [rule])
        let span = SeriesExpander.Span(from: nil, to: to.secondsSinceEpoch)
        _ = SeriesExpander(zone: berlin, span: span, maxOccurrences: 2_000).expand(event)
    }

    private func pipeline(_ bytes: UnsafeRawBufferPointer) {
        guard let json = try? JSONParser.parse(bytes: Array(bytes)) else { return }
        var loader = PipelineLoader(registry: registry, environment: ["HOME": folder.path, "FEED": "feed.ics"], zones: zones,
                                    now: Date(timeIntervalSince1970: 1_793_000_000))
        loader.fetcher = nil
        _ = try? loader.load(json: json, file: "fuzz.json", baseDirectory: folder)
    }
}
