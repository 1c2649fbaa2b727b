import Foundation

/// What only the runner keeps about a run, apart from what plugins may read (`RunContext`): the sources' labels,
/// the source being read, the cores the run leaves idle, and the side channels between the runner and the plugins
/// that ship with calpipe (the sources' ledger, the incremental plan, inputs already resolved). `package`: a
/// plugin of another package sees none of it.
///
/// Sendable: every value that changes during a run is behind one lock (`fields`), since the runner's thread writes
/// what the sinks' thread and a source's workers read. Each property reads or writes its value whole.
package final class RunState: Sendable {
    /// The values the runner sets as a run goes; see the properties below.
    private struct Fields {
        var sourceLabels: [String] = []
        var deltaSources: Set<String> = []
        var sourceColors: [String: String] = [:]
        var namedSources: Set<String> = []
        var idleCores = 0
        var lockWaitSeconds: Double = 0
        var incremental: IncrementalRun?
        var resolvedInputs: [InputSpec: Result<[InputSpec.Input], any Error>] = [:]
        var inputFingerprints: [InputSpec: String?] = [:]
    }
    private let fields = Locked(Fields())

    /// The labels of the pipeline's sources (stamped as metadata["source"]), set by the runner before sinks
    /// open, so a sink can tell a source that sent nothing from one that is not part of this pipeline.
    package internal(set) var sourceLabels: [String] {
        get { fields.withLock { $0.sourceLabels } }
        set { fields.withLock { $0.sourceLabels = newValue } }
    }
    /// The labels of the sources whose feed is `.delta` (`SourceFeed`): a sink keeping rows removes nothing of them
    /// that is merely absent.
    package internal(set) var deltaSources: Set<String> {
        get { fields.withLock { $0.deltaSources } }
        set { fields.withLock { $0.deltaSources = newValue } }
    }

    /// A `.delta` source that reads its whole feed in this run (its first run, `--full`, or a server that refused its
    /// sync token) says so before it sends anything: a sink keeping rows then syncs it as a complete feed (what is
    /// absent is gone). Called on the reading thread; sinks read `deltaSources` at commit.
    package func readsWholeFeed(_ label: String) { fields.withLock { _ = $0.deltaSources.remove(label) } }
    /// The sources' `color` options ("#rrggbb"), by label; sources without one are not in it.
    package internal(set) var sourceColors: [String: String] {
        get { fields.withLock { $0.sourceColors } }
        set { fields.withLock { $0.sourceColors = newValue } }
    }
    /// The labels that are a source's `name` option (the others are a path or URL as written).
    package internal(set) var namedSources: Set<String> {
        get { fields.withLock { $0.namedSources } }
        set { fields.withLock { $0.namedSources = newValue } }
    }
    /// The label of the source whose `read` is running (nil between sources), for log records. Set by the thread that
    /// reads the sources and seen only by it: the sinks' thread (`SinkPump`) logs while the next source is read, and
    /// its messages are not that source's. Behind the lock box, so reading it from any thread is no data race.
    package internal(set) var currentSourceLabel: String? {
        get { currentSourceLabelReader() }
        set { current.withLock { $0 = (newValue, newValue == nil ? nil : pthread_self()) } }
    }
    private let current = Locked<(label: String?, thread: pthread_t?)>((nil, nil))

    /// `currentSourceLabel`, readable from a `@Sendable` closure (it holds the lock box, not the run state).
    package var currentSourceLabelReader: @Sendable () -> String? {
        let current = self.current
        return {
            current.withLock { c in
                guard let thread = c.thread, pthread_equal(thread, pthread_self()) != 0 else { return nil }
                return c.label
            }
        }
    }
    /// Threads a source may start to read faster (its `workers` when not set): the runner's estimate of the
    /// cores the run leaves idle. With no sink to write (a dry run), only the reading thread is busy: the
    /// source may use every core (at most 4), and so it may when every sink writes lightly (`Sink.writesLightly`).
    /// A heavy sink writes on a thread of its own that keeps another core busy, and on the 2-core benchmark
    /// machine extra reading threads then cost more than they saved (docs/benchmarks.md).
    package internal(set) var idleCores: Int {
        get { fields.withLock { $0.idleCores } }
        set { fields.withLock { $0.idleCores = newValue } }
    }
    /// The plugins' states: what the last successful run committed and what this run proposes (`RunContext.state(for:)`).
    package let pluginStates = PluginStateBook()
    /// What each source did (type, origin, events), for the `sources` of exported documents.
    package let sourceLedger = SourceLedger()
    /// How long a sink waits for another calpipe run holding its database's lock (`calpipe run --wait`).
    package var lockWaitSeconds: Double {
        get { fields.withLock { $0.lockWaitSeconds } }
        set { fields.withLock { $0.lockWaitSeconds = newValue } }
    }
    /// Incremental decisions of this run (docs/incremental.md); nil when the run is not incremental.
    package internal(set) var incremental: IncrementalRun? {
        get { fields.withLock { $0.incremental } }
        set { fields.withLock { $0.incremental = newValue } }
    }
    /// Inputs already resolved in this run (a URL is fetched once, also when its fingerprint was taken first).
    func resolvedInputs(_ spec: InputSpec) -> Result<[InputSpec.Input], any Error>? { fields.withLock { $0.resolvedInputs[spec] } }
    func setResolvedInputs(_ inputs: Result<[InputSpec.Input], any Error>, for spec: InputSpec) {
        fields.withLock { $0.resolvedInputs[spec] = inputs }
    }
    /// Input fingerprints already taken in this run (the run's stamp and the incremental plan both want them);
    /// `.some(nil)`: the input has none (standard input).
    func inputFingerprint(_ spec: InputSpec) -> String?? { fields.withLock { $0.inputFingerprints[spec] } }
    func setInputFingerprint(_ fingerprint: String?, for spec: InputSpec) {
        fields.withLock { $0.inputFingerprints[spec] = .some(fingerprint) }
    }
}

/// The one writer of `metadata["source"]`: the label of the source an event came from. The runner stamps every
/// event a source emits; a source that makes many events may apply the same stamp as it makes them (made from
/// `RunState.currentSourceLabel`), which spares the runner a copy of each batch, and the runner then finds them
/// stamped. Events that share one metadata dictionary (a calendar's name) share one stamped dictionary: the
/// last dictionary stamped is remembered, so stamping allocates per distinct dictionary, not per event.
package struct SourceStamp {
    package let label: String
    private var lastIn: [String: String] = [:]
    private var lastOut: [String: String]

    package init(label: String) {
        self.label = label
        lastOut = ["source": label]
    }

    package func isStamped(_ metadata: [String: String]) -> Bool { metadata["source"] == label }

    package mutating func stamp(_ metadata: inout [String: String]) {
        // Dictionaries that share storage compare equal at once.
        if metadata == lastIn {
            metadata = lastOut
            return
        }
        if isStamped(metadata) { return }
        lastIn = metadata
        metadata["source"] = label
        lastOut = metadata
    }
}
