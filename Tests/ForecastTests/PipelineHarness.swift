import Enrichers
import Fetch
import Foundation
import Pipeline
import XCTest

/// Runs real pipelines (loader, runner, split and forecast stages) over events made in the test, and keeps
/// what reaches the sink, the warnings and the counters.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var storedDays: [DayEntry] = []
    private var storedHeaders: [AgendaDay] = []
    private var storedLog: [String] = []

    var days: [DayEntry] { lock.lock(); defer { lock.unlock() }; return storedDays }
    var log: [String] { lock.lock(); defer { lock.unlock() }; return storedLog }

    var headers: [AgendaDay] { lock.lock(); defer { lock.unlock() }; return storedHeaders }
    func add(_ days: [DayEntry]) { lock.lock(); storedDays += days; lock.unlock() }
    func add(headers: [AgendaDay]) { lock.lock(); storedHeaders += headers; lock.unlock() }
    func add(log line: String) { lock.lock(); storedLog.append(line); lock.unlock() }
}

final class ListSource: EventSource {
    let events: [Event]
    init(events: [Event]) { self.events = events }
    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        // Two batches, so the forecast stage has to buffer across them.
        let half = events.count / 2
        try emit(Batch(events: Array(events[..<half])))
        try emit(Batch(events: Array(events[half...])))
    }
}

final class CollectSink: Sink {
    let collected: Collected
    init(_ collected: Collected) { self.collected = collected }
    var needs: BatchContent { .days }
    var label: String { "collect" }
    func open(context: RunContext) throws {}
    func write(_ batch: Batch, context: RunContext) throws {
        collected.add(batch.days)
        collected.add(headers: batch.agendaDays)
    }
    func commit(context: RunContext) throws -> Int { collected.days.count }
    func abort(context: RunContext) {}
}

struct RunOutcome {
    var days: [DayEntry]
    /// The day headers of the forecast stage.
    var headers: [AgendaDay] = []
    var report: RunReport
    var warnings: [String] { report.warnings }

    /// The weather of each day header by date ("2026-11-23").
    var weather: [String: ForecastResult] {
        var out: [String: ForecastResult] = [:]
        for h in headers { if let w = h.weather { out[h.date.iso8601] = w.result } }
        return out
    }

    /// The weather an app shows beside each entry, by event uid and day ("uid 2026-11-23"): the entry's own
    /// forecast when it has one (its place is far from the day's), else its day's weather. `fetchedAt` is
    /// left out (it is the recorded server's clock); tests of it read `headers` or `days`.
    var byKey: [String: ForecastResult] {
        let dayWeather = weather
        var out: [String: ForecastResult] = [:]
        for d in days {
            out[d.event.uid + " " + d.day.iso8601] = (d.forecast ?? dayWeather[d.day.iso8601]).map(Self.withoutFetchTime)
        }
        return out
    }

    /// Entries that carry a forecast of their own ("uid 2026-11-23").
    var ownForecasts: Set<String> {
        Set(days.filter { $0.forecast != nil }.map { $0.event.uid + " " + $0.day.iso8601 })
    }

    static func withoutFetchTime(_ result: ForecastResult) -> ForecastResult {
        guard case .forecast(var f, let place) = result else { return result }
        f.fetchedAt = nil
        return .forecast(f, place: place)
    }
}

enum Harness {
    static let berlin = Zone.system(identifier: "Europe/Berlin")!
    /// "Now" for every test: Monday 2026-11-23, 09:00 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_795_392_000 + 8 * 3600)

    static func event(_ uid: String, day: String, hour: Int? = 10, lastDay: String? = nil, geo: (Double, Double)? = nil, location: String? = nil, zone: Zone = berlin) -> Event {
        let date = ISODate.parseDate(day)!
        var e: Event
        if let hour {
            e = Event(uid: uid, start: .zoned(CivilDateTime(date: date, hour: hour), zone), endSpec: .end(.zoned(CivilDateTime(date: date, hour: hour + 1), zone)), title: uid)
        } else {
            let end = ISODate.parseDate(lastDay ?? day)!.adding(days: 1)
            e = Event(uid: uid, start: .date(date), endSpec: .end(.date(end)), title: uid)
        }
        e.location = location
        e.coordinate = geo.map { Coordinate(latitude: $0.0, longitude: $0.1) }
        return e
    }

    /// Loads and runs `{"sources": [test events], "stages": [split, forecast], "sinks": [collect]}`.
    static func run(events: [Event], forecast: [String: Any], cache: String, timezone: String = "Europe/Berlin",
                    location: [String: Any]? = nil, window: (from: String, to: String)? = nil, now: Date = Harness.now) throws -> RunOutcome {
        let collected = Collected()
        var registry = PluginRegistry()
        registry.register(SourceDescriptor(type: "test-events", kind: .source, summary: "events made by the test", make: { _ in ListSource(events: events) }))
        for stage in CoreStages.all { registry.register(stage) }
        for stage in EnricherPlugins.all { registry.register(stage) }
        registry.register(SinkDescriptor(type: "collect", kind: .sink, summary: "keeps day entries", make: { _ in CollectSink(collected) }))
        var forecastStage = forecast
        forecastStage["type"] = "forecast"
        forecastStage["cache"] = cache
        var root: [String: Any] = [
            "name": "forecast-test", "timezone": timezone,
            "sources": [["type": "test-events"]],
            "stages": [["type": "split"], forecastStage],
            "sinks": [["type": "collect"]],
        ]
        if let location { root["location"] = location }
        if let window { root["window"] = ["from": window.from, "to": window.to] }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]), as: UTF8.self)
        let json = try JSONParser.parse(text)
        let loader = PipelineLoader(registry: registry, environment: ["HOME": NSTemporaryDirectory()], now: now)
        let pipeline = try loader.load(json: json, file: "pipelines/test.json", baseDirectory: RecordedServer.fixtures)
        let context = RunContext(environment: pipeline.environment, quiet: true)
        try Runner().run(pipeline, context: context)
        return RunOutcome(days: collected.days, headers: collected.headers, report: context.report)
    }

    /// Removes the cache folders of earlier test processes that have ended, once per process.
    private static let sweptEarlierRuns: Bool = {
        let tmp = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? [] where name.hasPrefix("calpipe-forecast-tests-") {
            guard let pid = Int32(name.dropFirst("calpipe-forecast-tests-".count)), pid != getpid(), kill(pid, 0) != 0 else { continue }
            try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name))
        }
        return true
    }()

    static func temporaryCache(_ name: String = #function) -> String {
        _ = sweptEarlierRuns
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-forecast-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let path = folder.appendingPathComponent("\(safe)-\(UUID().uuidString).sqlite").path
        return path
    }
}
