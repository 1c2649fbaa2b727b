import ArgumentParser
import Exporters
import Foundation
import Pipeline

/// `calpipe-bench export`: the time the `ics`, `xcal` and `jcal` sinks take to write the same occurrences
/// (`expand: true`, one VEVENT each), and the xCal and jCal times as ratios to the iCalendar time (issue 16:
/// within 1.5x). The occurrences are generated in memory (deterministic: weekly series in Europe/Berlin with
/// title, description, location, attendees, categories and a kept X- property, some all-day, some UTC), so
/// only the sinks are timed. Each sink is run `--rounds` times, alternating, and the median is reported.
struct ExportBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Seconds to write the same occurrences as iCalendar, xCal and jCal; xCal and jCal as ratios to iCalendar."
    )

    @Option(help: "Occurrences to write.")
    var occurrences = 100_000

    @Option(help: "Runs of each sink (the median is reported).")
    var rounds = 3

    @Option(help: "Folder for the output files (removed afterwards).")
    var directory = NSTemporaryDirectory()

    @Option(help: "Only these formats, comma-separated (ics is always measured: it is the floor).")
    var formats = "ics,xcal,jcal"

    @Flag(help: "Print tab-separated figures: format, median seconds, ratio to ics.")
    var tsv = false

    static func makeOccurrences(_ count: Int) -> [Occurrence] {
        let berlin = Zone.system(identifier: "Europe/Berlin")!
        var out: [Occurrence] = []
        out.reserveCapacity(count)
        var series = 0
        while out.count < count {
            let day = CivilDate(year: 2026, month: 1, day: 1).adding(days: series % 365)
            let start: EventTime
            let duration: CalDuration
            switch series % 10 {
            case 0: start = .date(day); duration = CalDuration(days: 1)
            case 1: start = .utc(CivilDateTime(date: day, hour: 14).secondsSinceEpoch); duration = CalDuration(seconds: 1800)
            default: start = .zoned(CivilDateTime(date: day, hour: 8 + series % 9, minute: 30), berlin); duration = CalDuration(seconds: 3600)
            }
            var e = Event(uid: "series-\(series)@bench.calpipe", start: start, endSpec: .duration(duration), title: "Team meeting #\(series), room \(series % 40)")
            e.description = "Agenda:\n1. Status; 2. Planning, with notes \\ and more text so the line folds at least once in iCalendar."
            e.location = "Building \(series % 7), Floor \(series % 5)"
            e.categories = ["Work", "Team \(series % 12)"]
            e.attendees = [Attendee(name: "Person \(series % 50)", email: "p\(series % 50)@example.com", role: "REQ-PARTICIPANT", status: "ACCEPTED")]
            e.organizer = Attendee(name: "Organizer", email: "boss@example.com")
            e.otherProperties = [RawProperty(name: "DTSTAMP", value: "20260101T000000Z"), RawProperty(name: "X-BENCH", value: "\(series)")]
            e.recurrence.rules = [try! RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=20")]
            let first = Occurrence(single: e)
            for week in 0..<20 where out.count < count {
                let s = start.adding(CalDuration(days: 7 * week))
                out.append(Occurrence(sharingEventOf: first, start: s, end: s.adding(duration), recurrenceID: s))
            }
            series += 1
        }
        return out
    }

    func run() throws {
        let items = Self.makeOccurrences(occurrences)
        let batches = stride(from: 0, to: items.count, by: 128).map { i in
            Batch(events: [], occurrences: Array(items[i..<min(i + 128, items.count)]), content: .occurrences)
        }
        let folder = (directory as NSString).appendingPathComponent("calpipe-bench-export-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = PipelineEnvironment(pipelineFile: "bench.json", baseDirectory: URL(fileURLWithPath: folder), name: "bench", zone: .utc,
                                              window: nil, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let wanted = Set(self.formats.split(separator: ",").map(String.init) + ["ics"])
        let formats: [(name: String, make: (String) -> Sink)] = [
            ("ics", { ICSSink(path: $0, expand: true) }),
            ("xcal", { XCalSink(path: $0, expand: true) }),
            ("jcal", { JCalSink(path: $0, expand: true) }),
        ].filter { wanted.contains($0.0) }
        var times: [String: [Double]] = [:]
        var sizes: [String: Int] = [:]
        let clock = ContinuousClock()
        for _ in 0..<max(1, rounds) {
            for format in formats {
                let path = folder + "/out." + format.name
                let sink = format.make(path)
                let started = clock.now
                try sink.open(context: context)
                for b in batches { try sink.write(b, context: context) }
                let rows = try sink.commit(context: context)
                let elapsed = clock.now - started
                precondition(rows == items.count, "\(format.name) wrote \(rows) of \(items.count)")
                let (s, atto) = elapsed.components
                times[format.name, default: []].append(Double(s) + Double(atto) / 1e18)
                sizes[format.name] = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            }
        }
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        let ics = median(times["ics"]!)
        if !tsv { print("format   median s   MB      ratio to ics   (\(items.count) occurrences, \(rounds) rounds)") }
        for format in formats {
            let t = median(times[format.name]!)
            let mb = Double(sizes[format.name] ?? 0) / 1e6
            if tsv {
                print([format.name, String(format: "%.3f", t), String(format: "%.2f", t / ics)].joined(separator: "\t"))
            } else {
                print(format.name.rightPadded(9) + String(format: "%8.3f", t) + String(format: "%8.1f", mb) + String(format: "%12.2fx", t / ics))
            }
        }
    }
}
