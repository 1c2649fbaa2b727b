import Foundation

/// A record that was rejected, with where it came from and why.
public struct Rejection: Hashable, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var reason: String

    public init(location: SourceLocation, reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "\(location): \(reason)" }
}

/// A record that was kept after a part of it was dropped or fixed (issue 15: repair by default): where, which
/// record, what was wrong and what was done. `--strict` or a source's `"strict": true` turns repairs into
/// rejections instead.
public struct Repair: Hashable, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    /// The record's UID when it has one.
    public var uid: String?
    /// What was wrong and what was done ("RRULE is empty: the event is kept without this rule").
    public var message: String

    public init(location: SourceLocation, uid: String?, message: String) {
        self.location = location
        self.uid = uid
        self.message = message
    }

    public var description: String {
        if let uid { return "\(location): UID \"\(uid)\": \(message)" }
        return "\(location): \(message)"
    }
}

/// Counts and messages of one run, filled by the runner and the plugins, printed as the summary.
public final class RunReport: @unchecked Sendable {
    private let lock = NSLock()
    public private(set) var eventsRead = 0
    public private(set) var occurrences = 0
    public private(set) var dayEntries = 0
    public private(set) var rejections: [Rejection] = []
    public private(set) var warnings: [String] = []
    /// Records kept with a part dropped or fixed (not counted in `rejections`).
    public private(set) var repairs: [Repair] = []
    /// Rows written per sink label, in sink order.
    public private(set) var rowsWritten: [(sink: String, rows: Int)] = []
    /// Named counters plugins add to the summary ("skipped VTODO", "forecasts from cache", ...), in first-use order.
    public private(set) var counters: [(name: String, value: Int)] = []

    /// Cached copies of remote inputs used by the run (label with credentials redacted, age in seconds,
    /// how: "cached", "revalidated" or "stale"), in use order: the summary shows every copy's age.
    public private(set) var cachedCopies: [(label: String, age: Double, origin: String)] = []

    /// Seconds spent in each step of the run ("source team", "stage expand", "sink json out/a.json"), in
    /// first-use order; a source's time leaves out the stages and sinks its batches went through.
    public private(set) var timings: [(step: String, seconds: Double)] = []

    /// The size of the inputs found so far (files and downloaded feeds; standard input is not counted) and
    /// how much of them the sources have read: the progress line's percent and time left.
    public private(set) var inputBytesExpected: Int64 = 0
    public private(set) var inputBytesRead: Int64 = 0

    public init() {}

    package func expectInput(bytes: Int64) { locked { inputBytesExpected += bytes } }
    package func readInput(bytes: Int) { locked { inputBytesRead += Int64(bytes) } }

    package func addTime(_ step: String, nanoseconds: UInt64) {
        let seconds = Double(nanoseconds) / 1e9
        locked {
            if let i = timings.firstIndex(where: { $0.step == step }) { timings[i].seconds += seconds } else { timings.append((step, seconds)) }
        }
    }

    /// Sources whose rows were kept because they failed before sending anything, or came back empty where a
    /// database remembers events from them (issue 16): the run exits 1 after writing the rest.
    public private(set) var keptSources: [String] = []
    /// Inputs that were not empty but gave no events: each a warning, and the run exits 3.
    public private(set) var emptyResults: [String] = []

    package func keepSource(_ message: String) { locked { keptSources.append(message) } }
    package func noEvents(_ message: String) { locked { emptyResults.append(message) } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    public func reject(_ location: SourceLocation, _ reason: String) {
        locked { rejections.append(Rejection(location: location, reason: reason)) }
    }

    public func repair(_ repair: Repair) {
        locked { repairs.append(repair) }
    }

    public func warn(_ message: String) {
        locked { warnings.append(message) }
    }

    public func count(_ name: String, by amount: Int = 1) {
        locked {
            if let i = counters.firstIndex(where: { $0.name == name }) { counters[i].value += amount } else { counters.append((name, amount)) }
        }
    }

    public func counter(_ name: String) -> Int {
        locked { counters.first { $0.name == name }?.value ?? 0 }
    }

    package func cachedCopy(_ label: String, age: Double, origin: String) {
        locked { cachedCopies.append((label, age, origin)) }
    }

    func addEvents(_ n: Int) { locked { eventsRead += n } }
    func setOutputCounts(occurrences: Int, days: Int) { locked { self.occurrences += occurrences; dayEntries += days } }
    func wrote(_ rows: Int, to sink: String) { locked { rowsWritten.append((sink, rows)) } }
}
