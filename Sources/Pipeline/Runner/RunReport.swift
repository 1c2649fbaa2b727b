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
    /// Which of the repairs a reader makes (under `--strict` each kind rejects its record instead).
    public var kind: RepairKind

    public init(_ kind: RepairKind, location: SourceLocation, uid: String?, message: String) {
        self.kind = kind
        self.location = location
        self.uid = uid
        self.message = message
    }

    public var description: String {
        if let uid { return "\(location): UID \"\(uid)\": \(message)" }
        return "\(location): \(message)"
    }
}

/// Counts and messages of one run, filled by the runner and the plugins, printed as the summary. Sources, stages
/// and sinks on any thread write into it; every field is read and written under one lock (`Locked`), so the
/// compiler checks that the report is `Sendable`.
public final class RunReport: Sendable {
    /// Everything the report holds: what the public properties below read.
    private struct State {
        var eventsRead = 0
        var occurrences = 0
        var dayEntries = 0
        var rejections: [Rejection] = []
        var deadLetters: (file: DeadLetterFile, source: @Sendable () -> String?)?
        var warnings: [String] = []
        var repairs: [Repair] = []
        var rowsWritten: [(sink: String, rows: Int)] = []
        var outcomes: [(sink: String, outcomes: RecordOutcomes)] = []
        /// The run's sink labels in pipeline order: the order `outcomes` lists sinks in.
        var sinkOrder: [String] = []
        var failedRecords: [String] = []
        var counters: [(name: String, value: Int)] = []
        var cachedCopies: [(label: String, age: Double, origin: String)] = []
        var timings: [(step: String, seconds: Double)] = []
        var inputBytesExpected: Int64 = 0
        var inputBytesRead: Int64 = 0
        var keptSources: [String] = []
        var emptyResults: [String] = []
        var notes: [String] = []
        var keptOutputs = false
    }

    private let state = Locked(State())

    public init() {}

    public var eventsRead: Int { state.withLock { $0.eventsRead } }
    public var occurrences: Int { state.withLock { $0.occurrences } }
    public var dayEntries: Int { state.withLock { $0.dayEntries } }
    public var rejections: [Rejection] { state.withLock { $0.rejections } }
    public var warnings: [String] { state.withLock { $0.warnings } }
    /// Records kept with a part dropped or fixed (not counted in `rejections`).
    public var repairs: [Repair] { state.withLock { $0.repairs } }
    /// Rows written per sink label, in sink order.
    public var rowsWritten: [(sink: String, rows: Int)] { state.withLock { $0.rowsWritten } }
    /// What became of the records each sink wrote, per sink label, for the sinks that reported any
    /// (`record(_:sink:count:)`), in pipeline order (then in the order they first reported).
    public var outcomes: [(sink: String, outcomes: RecordOutcomes)] {
        state.withLock { state in
            let order = state.sinkOrder
            return state.outcomes.enumerated().sorted { a, b in
                let (x, y) = (order.firstIndex(of: a.element.sink) ?? order.count, order.firstIndex(of: b.element.sink) ?? order.count)
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
        }
    }
    /// The outcomes one sink reported (all zero when it reported none).
    public func outcomes(of sink: String) -> RecordOutcomes {
        state.withLock { $0.outcomes.first { $0.sink == sink }?.outcomes ?? RecordOutcomes() }
    }
    /// How many records the sinks could not write (reported `.failed` or `.conflict`): the run then exits 1, after
    /// every sink committed.
    public var recordsFailed: Int { state.withLock { $0.outcomes.reduce(0) { $0 + $1.outcomes[.failed] + $1.outcomes[.conflict] } } }
    /// What `recordFailure(sink:record:reason:)` said about each failed record, in report order
    /// (`sqlite a.db: UID "x": the server refused it`).
    public var failedRecords: [String] { state.withLock { $0.failedRecords } }

    /// Named counters plugins add to the summary ("skipped VTODO", "forecasts from cache", ...), in first-use order.
    public var counters: [(name: String, value: Int)] { state.withLock { $0.counters } }

    /// Cached copies of remote inputs used by the run (label with credentials redacted, age in seconds,
    /// how: "cached", "revalidated" or "stale"), in use order: the summary shows every copy's age.
    public var cachedCopies: [(label: String, age: Double, origin: String)] { state.withLock { $0.cachedCopies } }

    /// Seconds spent in each step of the run ("source team", "stage expand", "sink json out/a.json"), in
    /// first-use order; a source's time leaves out the stages and sinks its batches went through.
    public var timings: [(step: String, seconds: Double)] { state.withLock { $0.timings } }

    /// The size of the inputs found so far (files and downloaded feeds; standard input is not counted) and
    /// how much of them the sources have read: the progress line's percent and time left.
    public var inputBytesExpected: Int64 { state.withLock { $0.inputBytesExpected } }
    public var inputBytesRead: Int64 { state.withLock { $0.inputBytesRead } }

    /// Sources whose rows were kept because they failed before sending anything, or came back empty where a
    /// database remembers events from them (issue 16): the run exits 1 after writing the rest.
    public var keptSources: [String] { state.withLock { $0.keptSources } }
    /// Inputs that were not empty but gave no events: each a warning, and the run exits 3.
    public var emptyResults: [String] { state.withLock { $0.emptyResults } }

    /// Lines the summary adds about how the run went ("kept: nothing changed since ...", "read in full: ...").
    public var notes: [String] { state.withLock { $0.notes } }
    /// Whether the run found nothing changed and kept every output as it was (nothing read, nothing written).
    public var keptOutputs: Bool { state.withLock { $0.keptOutputs } }

    package func note(_ text: String) { state.withLock { $0.notes.append(text) } }
    package func markOutputsKept() { state.withLock { $0.keptOutputs = true } }

    package func expectInput(bytes: Int64) { state.withLock { $0.inputBytesExpected += bytes } }
    package func readInput(bytes: Int) { state.withLock { $0.inputBytesRead += Int64(bytes) } }

    package func addTime(_ step: String, nanoseconds: UInt64) {
        let seconds = Double(nanoseconds) / 1e9
        state.withLock {
            if let i = $0.timings.firstIndex(where: { $0.step == step }) { $0.timings[i].seconds += seconds } else { $0.timings.append((step, seconds)) }
        }
    }

    /// The run's sinks, in pipeline order (the order of `outcomes`).
    package func expectSinks(_ labels: [String]) { state.withLock { $0.sinkOrder = labels } }

    package func keepSource(_ message: String) { state.withLock { $0.keptSources.append(message) } }
    package func noEvents(_ message: String) { state.withLock { $0.emptyResults.append(message) } }

    /// A record that cannot be read: counted and printed, and written with `raw` (the record's text, when the
    /// reader has it) to the run's dead-letter file (`--rejected`) if it has one.
    public func reject(_ location: SourceLocation, _ reason: String, raw: String? = nil) {
        let rejection = Rejection(location: location, reason: reason)
        let letters = state.withLock {
            $0.rejections.append(rejection)
            return $0.deadLetters
        }
        letters?.file.write(rejection, source: letters?.source(), raw: raw)
    }

    /// Writes every rejection from now on to `file` too, with the source `source` names at that moment.
    package func sendRejections(to file: DeadLetterFile, source: @escaping @Sendable () -> String?) {
        state.withLock { $0.deadLetters = (file, source) }
    }

    public func repair(_ repair: Repair) {
        state.withLock { $0.repairs.append(repair) }
    }

    public func warn(_ message: String) {
        state.withLock { $0.warnings.append(message) }
    }

    /// A sink reports what became of `count` records it wrote (from any of its calls, on any thread).
    public func record(_ outcome: RecordOutcome, sink: String, count: Int = 1) {
        guard count > 0 else { return }
        state.withLock {
            if let i = $0.outcomes.firstIndex(where: { $0.sink == sink }) {
                $0.outcomes[i].outcomes.add(outcome, count)
            } else {
                var outcomes = RecordOutcomes()
                outcomes.add(outcome, count)
                $0.outcomes.append((sink, outcomes))
            }
        }
    }

    /// A sink reports one record it could not write (`record`: how the sink names it, such as `UID "x"`): counted
    /// as `outcome` (`.failed`, or `.conflict` when the server's copy changed since the sink last wrote it, such as
    /// an HTTP 412), and said on standard error as `<sink>: <record>: <reason>`. Either fails the run (exit 1).
    public func recordFailure(sink: String, record: String, reason: String, outcome: RecordOutcome = .failed) {
        precondition(outcome == .failed || outcome == .conflict, "a record that could not be written is .failed or .conflict")
        self.record(outcome, sink: sink)
        state.withLock { $0.failedRecords.append("\(sink): \(record): \(reason)") }
    }

    public func count(_ name: String, by amount: Int = 1) {
        state.withLock {
            if let i = $0.counters.firstIndex(where: { $0.name == name }) { $0.counters[i].value += amount } else { $0.counters.append((name, amount)) }
        }
    }

    public func counter(_ name: String) -> Int {
        state.withLock { $0.counters.first { $0.name == name }?.value ?? 0 }
    }

    package func cachedCopy(_ label: String, age: Double, origin: String) {
        state.withLock { $0.cachedCopies.append((label, age, origin)) }
    }

    func addEvents(_ n: Int) { state.withLock { $0.eventsRead += n } }
    func setOutputCounts(occurrences: Int, days: Int) { state.withLock { $0.occurrences += occurrences; $0.dayEntries += days } }
    func wrote(_ rows: Int, to sink: String) { state.withLock { $0.rowsWritten.append((sink, rows)) } }
}

/// How many records of one sink ended each way (`RecordOutcome`).
public struct RecordOutcomes: Sendable, Hashable, CustomStringConvertible {
    private var counts = [Int](repeating: 0, count: RecordOutcome.allCases.count)

    public init() {}

    public subscript(outcome: RecordOutcome) -> Int { counts[Self.index(outcome)] }

    mutating func add(_ outcome: RecordOutcome, _ count: Int) { counts[Self.index(outcome)] += count }

    private static func index(_ outcome: RecordOutcome) -> Int { RecordOutcome.allCases.firstIndex(of: outcome)! }

    /// True when every count is zero.
    public var isEmpty: Bool { counts.allSatisfy { $0 == 0 } }

    /// The counts that are not zero, in `RecordOutcome` order: `3 created, 1 updated, 40 unchanged, 1 failed`.
    public var description: String {
        RecordOutcome.allCases.filter { self[$0] != 0 }.map { "\(self[$0]) \($0.rawValue)" }.joined(separator: ", ")
    }
}
