import Foundation

/// One run's incremental decisions (docs/incremental.md), shared by the runner (which fills them as sources
/// are read), the expand stage (which skips unchanged series) and incremental sinks (which keep the rows of
/// what was left out; `RunContext.incremental`). Thread-safe: the sinks write on a thread of their own, series
/// expand on another.
///
/// Per source, not per pipeline: a sink that is not an `IncrementalSink` (a JSON or ICS file, rewritten whole)
/// gets every event, and the incremental sinks still skip what did not change (`readsForOtherSinks`).
public final class IncrementalRun: Sendable {
    /// What happens to one source in this run.
    public enum Plan: Sendable {
        /// Read and written as in any run (no memory, another config, or incremental runs are off).
        case full
        /// Input, config and window as in the last run: not read at all; its rows stay as they are.
        case skipped
        /// Read; events whose content hash is the stored one are left out (their rows stay). `delta` holds the
        /// UTC ranges [start, end) that the window gained since the last run: unchanged events are expanded
        /// and written there only.
        case events(delta: [Range<Int64>])
        /// Read, but its rows are kept as they are (it failed before sending anything, or came back empty while
        /// the sinks remember events from it): no sync, its fingerprint not stored.
        case kept
    }

    /// This run's fingerprint per source label.
    public let current: [String: SourceFingerprint]
    private let zone: Zone

    /// Everything the runner, the stage and the sinks change during the run, behind one lock.
    private struct State {
        var plans: [String: Plan] = [:]
        var memories: [String: any SourceMemory] = [:]
        /// Per source: what its read decided about its stored events (`Progress`).
        var progress: [String: Progress] = [:]
        /// Per source, per uid of a series (a master with RRULE/RDATE or an override): unchanged components seen,
        /// and whether any component changed or is new.
        var seriesSeen: [String: [String: (unchanged: [Int64], dirty: Bool)]] = [:]
        /// Per source: kept ids whose series is expanded again in full (a component changed, came or went).
        var reexpanded: [String: Set<Int64>] = [:]
        let hasher = EventHasher()
        /// Per source: this run's context hash (what its reader found outside the events, see `setContext`).
        var contexts: [String: String] = [:]
        /// Per source: this run's input files in reading order (their labels), from `setContext`.
        var files: [String: [String: Int]] = [:]
        /// Sources whose sinks hold events from earlier runs.
        var remembered: Set<String> = []
        /// The sources planned `.skipped` (a copy of what `plans` says, for the per-batch routing).
        var skipped: Set<String> = []

        /// The source's `Progress`, made on first use.
        mutating func progress(of source: String) -> Progress {
            if let p = progress[source] { return p }
            let p = Progress()
            progress[source] = p
            return p
        }
    }

    private let state = Locked(State())

    /// What a source's read decided about its stored events; one object per source, so that the per-event checks
    /// find it once, not by the source's label each time (read and changed only with the run's lock held).
    private final class Progress {
        /// Ids of stored events seen unchanged (their rows are kept as they are).
        var kept: Set<Int64> = []
        /// Ids of stored events seen with new content (written again).
        var passed: Set<Int64> = []
        /// Ids of the events left unparsed by `unchangedTextCheck`, with where that copy was read (file index << 40
        /// | line), so that another copy of the same key, parsed, can tell which one came last.
        var unparsed: [Int64: Int64] = [:]
    }

    /// False when the run may not skip anything (a stage that is not deterministic, a pipeline built in code,
    /// `--full`): only `.full` and `.kept` plans then.
    public let enabled: Bool
    /// True when a sink of the run is not an `IncrementalSink` and needs every event: every source is read, a source
    /// planned `.skipped` only for the sinks without incremental support (the incremental sinks get none of its
    /// events and keep its rows: `forIncrementalSinks`), and no source is read event by event (`.events` plans
    /// become `.full`: the other sinks need the unchanged events too). A source that fails then fails the run, as
    /// for a pipeline without incremental sinks.
    public let readsForOtherSinks: Bool

    package init(current: [String: SourceFingerprint], zone: Zone, enabled: Bool = true, readsForOtherSinks: Bool = false) {
        self.current = current
        self.zone = zone
        self.enabled = enabled
        self.readsForOtherSinks = readsForOtherSinks
    }

    func setRemembered(_ source: String) { state.withLock { _ = $0.remembered.insert(source) } }
    /// Whether an incremental sink holds events of `source` from earlier runs (an empty input then keeps them).
    public func isRemembered(_ source: String) -> Bool { state.withLock { $0.remembered.contains(source) } }

    /// Keeps the rows of `source` as they are: its sync is skipped and its fingerprint not stored.
    func keep(_ source: String) {
        state.withLock { s in
            s.plans[source] = .kept
            s.memories[source] = nil
            s.progress[source]?.kept = []
            s.skipped.remove(source)
        }
    }

    func setPlan(_ plan: Plan, memory: (any SourceMemory)?, for source: String) {
        state.withLock { s in
            s.plans[source] = plan
            s.memories[source] = memory
            if case .skipped = plan { s.skipped.insert(source) } else { s.skipped.remove(source) }
        }
    }

    /// What the run does with `source` (its label): `.full` unless the planner decided otherwise.
    public func plan(for source: String) -> Plan {
        state.withLock { $0.plans[source] ?? .full }
    }

    /// Whether the reading loop leaves `source` out: planned `.skipped`, and no sink needs its events.
    func leavesUnread(_ source: String) -> Bool {
        guard !readsForOtherSinks, case .skipped = plan(for: source) else { return false }
        return true
    }

    /// What of `batch` (made by the stages) goes to the incremental sinks: everything but the events, occurrences
    /// and day entries of sources planned `.skipped`, which were read for the other sinks only
    /// (`readsForOtherSinks`). The batch itself when there are none.
    public func forIncrementalSinks(_ batch: Batch) -> Batch {
        guard readsForOtherSinks else { return batch }
        let skipped = state.withLock { $0.skipped }
        guard !skipped.isEmpty else { return batch }
        let source: (Event) -> Bool = { skipped.contains($0.metadata["source"] ?? "") }
        guard batch.events.contains(where: source) || batch.occurrences.contains(where: { source($0.event) })
                || batch.days.contains(where: { source($0.event) }) else { return batch }
        var kept = batch
        kept.keepEvents { !source($0) }
        return kept
    }

    /// The memory the plan of `source` was made with (nil for full runs of it).
    public func memory(for source: String) -> (any SourceMemory)? {
        state.withLock { $0.memories[source] }
    }

    /// True when every source is skipped or read event by event (never when other sinks need every event).
    func writesLittle(_ sources: [String]) -> Bool {
        if readsForOtherSinks { return false }
        return state.withLock { s in
            sources.allSatisfy { label in
                switch s.plans[label] ?? .full {
                case .skipped, .events: return true
                case .full, .kept: return false
                }
            }
        }
    }

    /// The sources planned `.skipped`, sorted.
    public var skippedSources: [String] {
        state.withLock { $0.plans.filter { if case .skipped = $0.value { return true } else { return false } }.map(\.key).sorted() }
    }

    /// Whether the row `id` of `source` is kept as it is (the event was seen unchanged): sinks do not write it.
    public func isKept(_ id: Int64, source: String) -> Bool {
        state.withLock { $0.progress[source]?.kept.contains(id) ?? false }
    }

    /// Stored ids of `source` the sink must treat as possibly gone: every stored id but the kept ones.
    public func notKept(source: String) -> [Int64] {
        state.withLock { s in
            guard let memory = s.memories[source] else { return [] }
            let k = s.progress[source]?.kept ?? []
            return memory.allIDs.filter { !k.contains($0) }
        }
    }

    /// Kept ids whose series was expanded again in full: sinks sync their children like those of written events.
    public func reexpandedIDs(source: String) -> Set<Int64> {
        state.withLock { $0.reexpanded[source] ?? [] }
    }

    /// How many stored events of `source` were seen unchanged (their rows kept).
    public func keptCount(source: String) -> Int {
        state.withLock { $0.progress[source]?.kept.count ?? 0 }
    }

    private static func isSeriesPart(_ event: Event) -> Bool {
        event.recurrenceID != nil || event.isRecurring
    }

    /// Leaves out of a source's batch the unchanged events that need no work: single events whose rows all
    /// exist (unless the window gained days they touch). Unchanged series parts go on to the expand stage,
    /// which needs every part of a series to expand it when one part changed; sinks do not write them.
    func filter(_ batch: Batch, source: String) -> Batch {
        guard case .events(let delta) = plan(for: source), let memory = memory(for: source) else { return batch }
        // The same input bytes as the run that wrote the rows (only the window moved): every stored event is
        // unchanged by definition, no hash needed.
        let sameInput = current[source]?.input != nil && memory.fingerprint.input == current[source]?.input
        var keep: [Bool] = []
        keep.reserveCapacity(batch.events.count)
        var dropped = 0
        state.withLock { s in
            // With the stored context, an event whose raw text has the stored text hash is unchanged: no content hash.
            let sameContext = memory.contextHash != nil && memory.contextHash == s.contexts[source]
            let p = s.progress(of: source)
            for i in batch.events.indices {
                let series = Self.isSeriesPart(batch.events[i])
                guard let stored = memory.stored(uid: batch.events[i].uid, recurrenceID: batch.events[i].recurrenceID?.time) else {
                    if series { s.seriesSeen[source, default: [:]][batch.events[i].uid, default: ([], false)].dirty = true }
                    keep.append(true)
                    continue
                }
                if let skipped = p.unparsed[stored.id] {
                    // Another copy of an event left unparsed (the same key twice in one source): the copy read last
                    // wins, as in a fresh load. The unparsed one is the stored row; a parsed copy read after it is
                    // handed on (below), one read before it is left out.
                    let origin = batch.events[i].origin
                    let at = Self.position(file: s.files[source]?[origin?.file ?? ""] ?? 0xFFFF, line: origin?.line ?? 0)
                    p.unparsed[stored.id] = nil
                    if at < skipped {
                        p.unparsed[stored.id] = skipped
                        keep.append(false)
                        dropped += 1
                        continue
                    }
                }
                if p.kept.contains(stored.id) || p.passed.contains(stored.id) {
                    // The same key twice in one source: every copy goes to the sinks, which keep the last, as a
                    // fresh load does.
                    p.kept.remove(stored.id)
                    p.passed.insert(stored.id)
                    if series { s.seriesSeen[source, default: [:]][batch.events[i].uid, default: ([], false)].dirty = true }
                    keep.append(true)
                    continue
                }
                let sameText = sameContext && stored.textHash != nil && batch.events[i].rawTextHash == stored.textHash
                if !sameInput && !sameText && s.hasher.hash(batch.events[i]) != stored.contentHash {
                    p.passed.insert(stored.id)
                    if series { s.seriesSeen[source, default: [:]][batch.events[i].uid, default: ([], false)].dirty = true }
                    keep.append(true)
                    continue
                }
                p.kept.insert(stored.id)
                if series {
                    s.seriesSeen[source, default: [:]][batch.events[i].uid, default: ([], false)].unchanged.append(stored.id)
                    keep.append(true)
                } else if !delta.isEmpty && touches(batch.events[i], delta) {
                    keep.append(true)
                } else {
                    keep.append(false)
                    dropped += 1
                }
            }
        }
        guard dropped > 0 else { return batch }
        var out = batch
        out.events = []
        out.events.reserveCapacity(batch.events.count - dropped)
        for i in batch.events.indices where keep[i] { out.events.append(batch.events[i]) }
        return out
    }

    private func touches(_ event: Event, _ ranges: [Range<Int64>]) -> Bool {
        let (s, e) = Occurrence(single: event).interval(in: zone)
        return ranges.contains { r in s < r.upperBound && (e > r.lowerBound || (e <= s && s >= r.lowerBound)) }
    }

    /// Notes this run's context hash of `source`: a hash of everything in its input that shapes events but is not
    /// an event's own text (an ICS feed's VTIMEZONEs and calendar properties, the zone database). Stored by the
    /// sinks with the fingerprint; a later run skips events by their text only when it finds the same context.
    /// `files` are the labels of the files the source reads, in order (events name them in their origin).
    package func setContext(_ hash: String, files labels: [String], for source: String) {
        state.withLock { s in
            s.contexts[source] = hash
            s.files[source] = Dictionary(labels.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// This run's context hash of `source` (`setContext`), which a sink stores with its fingerprint.
    public func context(for source: String) -> String? { state.withLock { $0.contexts[source] } }

    /// How many events of `source` were left unparsed (`unchangedTextCheck`).
    package func unparsedCount(source: String) -> Int { state.withLock { $0.progress[source]?.unparsed.count ?? 0 } }

    private static func position(file: Int, line: Int) -> Int64 { Int64(file) << 40 | Int64(line & 0xFF_FFFF_FFFF) }

    /// For a source read event by event whose context is the stored one: a check a reader calls with the hash of an
    /// event's raw text (BEGIN to END, unfolded, as `Event.sourceText`) before it parses it. True when the text is that of
    /// a stored single event that needs no work (as `filter` decides for parsed events: not seen before in this
    /// run, not touching a range the window gained): the reader leaves it out unparsed and its row is kept.
    /// Series parts are always parsed (the expand stage may need them). nil: every event must be parsed.
    /// What a reader's quick pass over a source's files found (`TextScan`), for `unchangedTextCheck`.
    package struct TextScan: Sendable {
        /// The raw-text hash of every event in the files whose text is that of a stored part of a series, with how
        /// many times it occurs (only series parts are checked by count; other texts are not counted).
        package var texts: [Int64: Int] = [:]
        /// The UIDs of the events whose text the memory does not know (`SourceMemory.stored(textHash:)`): new or changed events. nil
        /// when one could not be read for sure (then every series part is parsed).
        package var newUIDs: Set<String>? = []

        package init() {}
    }

    /// The check's arguments: the hash of the text (`Fingerprint.rawText(bytes:)`), the stored event with that text
    /// when the caller found it already (`SourceMemory.stored(textHash:)`; nil: looked up here), the index of its
    /// file (in the order given to `setContext`) and the line of its BEGIN. With a `scan` of the files, the parts of a series are left out too when the series is
    /// unchanged as a whole: every stored part's text is in the files once, no new or changed event has its UID,
    /// and no part touches a range the window gained (the expand stage then has nothing to do with it).
    package func unchangedTextCheck(source: String, scan: TextScan?) -> ((Int64, StoredText?, Int, Int) -> Bool)? {
        guard case .events(let delta) = plan(for: source), let memory = memory(for: source),
              let stored = memory.contextHash, stored == context(for: source) else { return nil }
        var unchangedSeries: Set<UInt64> = []
        if let scan, let newUIDs = scan.newUIDs {
            let changed = Set(newUIDs.map(memory.seriesKey))
            for (key, parts) in memory.seriesParts where !changed.contains(key) {
                if parts.allSatisfy({ p in p.textHash.map { scan.texts[$0] == 1 } == true && !p.part.touches(delta) }) {
                    unchangedSeries.insert(key)
                }
            }
        }
        let mine = state.withLock { $0.progress(of: source) }
        return { [self] hash, found, file, line in
            guard let event = found ?? memory.stored(textHash: hash) else { return false }
            if let series = event.series {
                guard unchangedSeries.contains(series) else { return false }
            } else if event.touches(delta) {
                return false
            }
            return state.withLock { _ in
                // A second copy in the same source is parsed: `filter` then hands every copy on, as a fresh load.
                if mine.kept.contains(event.id) || mine.passed.contains(event.id) { return false }
                mine.kept.insert(event.id)
                mine.unparsed[event.id] = Self.position(file: file, line: line)
                return true
            }
        }
    }

    /// What the expand stage does with a series (master and overrides) of `source` at the end of the input.
    package enum SeriesPlan: Sendable {
        /// Expanded in the window as in any run.
        case full
        /// Unchanged and the window gained nothing: no occurrence is made; its rows stay.
        case skip
        /// Unchanged: expanded only in these UTC ranges (the days the window gained).
        case delta([Range<Int64>])
    }

    /// Called once per series by the expand stage, after every source was read.
    package func seriesPlan(source: String, uid: String) -> SeriesPlan {
        state.withLock { s in
            guard case .events(let delta) = s.plans[source] ?? .full, let memory = s.memories[source] else { return .full }
            guard let seen = s.seriesSeen[source]?[uid] else { return .full }
            if !seen.dirty && seen.unchanged.count == memory.componentCount(uid: uid)
                && seen.unchanged.allSatisfy({ s.progress[source]?.kept.contains($0) == true }) {
                return delta.isEmpty ? .skip : .delta(delta)
            }
            // A part changed, came or went: the whole series is expanded again, and its unchanged parts'
            // children are synced like those of written events.
            s.reexpanded[source, default: []].formUnion(seen.unchanged)
            return .full
        }
    }
}
