import CalpipeKit
import Enrichers
import Exporters
import Foundation
import Importers
import Pipeline

// libFuzzer entry points for calpipe's readers (built only by scripts/fuzz: `CALPIPE_FUZZ=1 swift build
// --sanitize=fuzzer --sanitize=address`; libFuzzer brings its own main). One binary, one target per run, chosen
// by CALPIPE_FUZZ_TARGET:
//
//   ics, xcal, jcal, json, xml   the source reads the input as a file, then expand and split run over a
//                                two-week window (so rules, zones and durations of fuzzed events are used too)
//   rrule                        the input is an RRULE value: parsed, then expanded over two years (at most
//                                2,000 starts) in Europe/Berlin and in UTC
//   pipeline                     the input is a pipeline file: parsed and loaded with every plugin (not run)
//
// Bad input must give errors, rejections or warnings: a trap (overflow, index out of range, force unwrap),
// a memory error (AddressSanitizer) or a hang (libFuzzer's -timeout) is a finding.

/// What every input needs, made once.
private final class Harness: @unchecked Sendable {
    let target: String
    let zones = ZoneDatabase()
    let berlin: Zone
    let utc: Zone
    let registry: PluginRegistry
    /// The input goes into this file for the file-reading sources (tmpfs when there is one).
    let inputPath: String
    let folder: URL

    init() {
        target = ProcessInfo.processInfo.environment["CALPIPE_FUZZ_TARGET"] ?? ""
        let known = ["ics", "xcal", "jcal", "json", "xml", "rrule", "pipeline"]
        guard known.contains(target) else {
            FileHandle.standardError.write(Data("calpipe-fuzz: set CALPIPE_FUZZ_TARGET to one of: \(known.joined(separator: ", "))\n".utf8))
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
        case "rrule": rrule(bytes)
        case "pipeline": pipeline(bytes)
        default: source(bytes)
        }
    }

    private func source(_ bytes: UnsafeRawBufferPointer) {
        guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else { return }
        let input = InputSpec(location: .path(inputPath, written: "input"))
        let reader: any EventSource
        switch target {
        case "ics": reader = ICSSource(input: input, workers: 1)
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
        let window = Window(from: CivilDate(year: 2026, month: 11, day: 1), to: CivilDate(year: 2026, month: 11, day: 15))
        let context = RunContext(environment: environment(window: window), quiet: true, log: { _ in })
        let pipeline = PipelineDefinition(environment: context.environment, sources: [reader], stages: [ExpandStage(maxOccurrences: 5_000), SplitStage()], sinks: [])
        _ = try? Runner(dryRun: true, concurrentSinks: false).run(pipeline, context: context)
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

private let harness = Harness()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    harness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
