import CalSQLite
import Exporters
import Foundation
import Pipeline
import XCTest

/// A source that emits the given events, one batch per inner array.
final class ListSource: EventSource {
    let batches: [[Event]]
    /// Thrown after the batches when set, like a feed that breaks midway.
    let failure: Error?
    /// Records this source reports as rejected (bad input it skipped).
    let rejections: [Rejection]

    init(_ batches: [[Event]], failure: Error? = nil, rejections: [Rejection] = []) {
        self.batches = batches
        self.failure = failure
        self.rejections = rejections
    }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        for r in rejections { context.report.reject(r.location, r.reason) }
        for batch in batches { try emit(Batch(events: batch)) }
        if let failure { throw failure }
    }
}

struct FeedBroke: Error, CustomStringConvertible {
    var description: String { "feed broke" }
}

let berlin = Zone.system(identifier: "Europe/Berlin")!
let november2026 = Window(from: CivilDate(year: 2026, month: 11, day: 1), to: CivilDate(year: 2026, month: 12, day: 1))

func at(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0) -> EventTime {
    .zoned(CivilDateTime(year: y, month: m, day: d, hour: h, minute: min), berlin)
}

func date(_ y: Int, _ m: Int, _ d: Int) -> EventTime { .date(CivilDate(year: y, month: m, day: d)) }

func event(_ uid: String, _ title: String, _ start: EventTime, _ end: EventTime, configure: (inout Event) -> Void = { _ in }) -> Event {
    var e = Event(uid: uid, start: start, endSpec: .end(end), title: title)
    configure(&e)
    return e
}

/// Runs a pipeline of one or more sources → split → sqlite sink, through the real Runner.
@discardableResult
func runSink(path: String, sources: [(label: String, source: EventSource)], window: Window? = november2026, keepRemoved: Bool = false,
             keepSourceText: Bool = false, busyTimeout: Int = 10_000, name: String = "test", expand: Bool = false) throws -> RunReport {
    let env = PipelineEnvironment(pipelineFile: "pipelines/\(name).json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: name, zone: berlin,
                                  window: window, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 1))
    let sink = SQLiteSink(path: path, displayPath: "agenda.db", keepRemoved: keepRemoved, keepSourceText: keepSourceText,
                          busyTimeoutMilliseconds: busyTimeout)
    let pipeline = PipelineDefinition(environment: env, sources: sources.map(\.source), sourceLabels: sources.map(\.label),
                                      stages: (expand ? [ExpandStage()] : []) + [SplitStage()], sinks: [sink])
    let context = RunContext(environment: env, quiet: true)
    try Runner().run(pipeline, context: context)
    return context.report
}

@discardableResult
func runSink(path: String, label: String = "team", events: [Event], window: Window? = november2026, keepRemoved: Bool = false,
             keepSourceText: Bool = false, busyTimeout: Int = 10_000) throws -> RunReport {
    try runSink(path: path, sources: [(label, ListSource([events]))], window: window, keepRemoved: keepRemoved,
                keepSourceText: keepSourceText, busyTimeout: busyTimeout)
}

/// Every row of every table but `runs`, in id order: what "nothing changed" compares.
func dataDump(_ path: String) throws -> [String: [[SQLiteValue]]] {
    let db = try Database(path: path, configuration: .init(readOnly: true))
    var out: [String: [[SQLiteValue]]] = [:]
    for table in ["events", "attendees", "occurrences", "day_entries", "forecasts"] {
        out[table] = try db.rows("SELECT * FROM \(table) ORDER BY 1, 2")
    }
    return out
}

/// The agenda as (day, title, start, end, part/parts, all-day) rows in display order.
func agenda(_ path: String) throws -> [[SQLiteValue]] {
    let db = try Database(path: path, configuration: .init(readOnly: true))
    return try db.rows("SELECT day, title, start_local, end_local, part || '/' || parts, all_day, source FROM agenda")
}

func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-sink-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// The calpipe executable built next to the test bundle of `testClass` (swift build --build-tests builds both).
func builtCalpipe(near testClass: AnyClass) throws -> URL {
    var candidates: [URL] = []
    if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
    candidates.append(Bundle(for: testClass).bundleURL.deletingLastPathComponent())
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug"))
    for folder in candidates {
        var url = folder
        // On Linux the bundle is a folder holding the test binary; go up until the build folder.
        for _ in 0..<3 {
            let binary = url.appendingPathComponent("calpipe")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDir), !isDir.boolValue { return binary }
            url = url.deletingLastPathComponent()
        }
    }
    XCTFail("calpipe executable not found near \(candidates.map(\.path)); run swift build --build-tests")
    throw CocoaError(.fileNoSuchFile)
}
