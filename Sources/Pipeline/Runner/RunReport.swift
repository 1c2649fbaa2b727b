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

/// Counts and messages of one run, filled by the runner and the plugins, printed as the summary.
public final class RunReport: @unchecked Sendable {
    private let lock = NSLock()
    public private(set) var eventsRead = 0
    public private(set) var occurrences = 0
    public private(set) var dayEntries = 0
    public private(set) var rejections: [Rejection] = []
    public private(set) var warnings: [String] = []
    /// Rows written per sink label, in sink order.
    public private(set) var rowsWritten: [(sink: String, rows: Int)] = []
    /// Named counters plugins add to the summary ("skipped VTODO", "forecasts from cache", ...), in first-use order.
    public private(set) var counters: [(name: String, value: Int)] = []

    /// Sources whose rows were kept because they failed before sending anything, or came back empty where a
    /// database remembers events from them (issue 16): the run exits 1 after writing the rest.
    public private(set) var keptSources: [String] = []
    /// Inputs that were not empty but gave no events: each a warning, and the run exits 3.
    public private(set) var emptyResults: [String] = []

    public init() {}

    public func keepSource(_ message: String) { locked { keptSources.append(message) } }
    public func noEvents(_ message: String) { locked { emptyResults.append(message) } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    public func reject(_ location: SourceLocation, _ reason: String) {
        locked { rejections.append(Rejection(location: location, reason: reason)) }
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

    func addEvents(_ n: Int) { locked { eventsRead += n } }
    func setOutputCounts(occurrences: Int, days: Int) { locked { self.occurrences += occurrences; dayEntries += days } }
    func wrote(_ rows: Int, to sink: String) { locked { rowsWritten.append((sink, rows)) } }
}
