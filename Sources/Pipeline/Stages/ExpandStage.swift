/// `type: expand`: turns each event into its occurrences inside the pipeline window (RRULE, RDATE, EXDATE,
/// EXRULE, RECURRENCE-ID overrides; see `SeriesExpander` for the rules and `RecurrenceRule.expand` for the
/// engine).
///
/// Non-recurring events pass through at once as their single occurrence (when it touches the window).
/// Series masters and RECURRENCE-ID overrides are kept until the end of the input, because an override may
/// come before its master or in another file of the same source; they are expanded in `finish`. Events are
/// matched by source label and UID. Events themselves are passed on unchanged for sinks that want them.
/// The held events stay in memory up to `spillBudget` bytes (estimated) and wait on a temporary file
/// beyond it (`HeldSeries`), so a feed of any size expands in bounded memory with the same output.
///
/// Without a pipeline window, occurrences are expanded from each event's DTSTART up to today + 365 days.
// @unchecked Sendable: the held series and the rule-work allowance change as batches pass; they are used as the
// `Stage` contract says (process and finish on the runner's thread, one run at a time), and the series worker
// gets its own values (`HeldSeries.drainPrepared`).
public final class ExpandStage: Stage, @unchecked Sendable {
    package static let defaultHorizonDays = 365

    public static let descriptor = StageDescriptor(
        type: "expand",
        kind: .stage,
        summary: "Expand recurring events (RRULE/RDATE/EXDATE/overrides) into occurrences inside the window; without a window, from DTSTART to today+365 days",
        options: Options.self,
        make: { options, _ in ExpandStage(maxOccurrences: options.maxOccurrences, includeCancelled: options.includeCancelled) }
    )

    /// The `expand` stage's options.
    public struct Options: OptionConfig {
        public var maxOccurrences = ExpandStage.defaultMaxOccurrences
        public var includeCancelled = false

        public init() {}

        public static let options = OptionSpec<Options> {
            Key("max_occurrences", \.maxOccurrences, .integer(in: 1...1_000_000_000), "most occurrences one event may produce; more are dropped with a warning")
            Key("include_cancelled", \.includeCancelled, .boolean, "keep cancelled instances (STATUS:CANCELLED on the series or an override)")
        }
    }

    public let maxOccurrences: Int
    public let includeCancelled: Bool

    /// Estimated bytes of held series events kept in memory; more wait on a temporary file.
    static let defaultSpillBudget = 32 << 20

    /// The held series; created with the knobs below on first use.
    private var held: HeldSeries?
    /// Estimated bytes of held events kept in memory before they go to a temporary file (tests set it tiny).
    var spillBudget = ExpandStage.defaultSpillBudget
    /// Where the temporary file goes; the system's temporary directory when nil (tests set their own).
    var spillDirectory: String?

    /// The default per-series cap: an event every minute for almost two years; no real calendar's series
    /// reaches it inside a window, and memory does not depend on it (series are expanded in chunks).
    public static let defaultMaxOccurrences = 1_000_000

    public init(maxOccurrences: Int = ExpandStage.defaultMaxOccurrences, includeCancelled: Bool = false) {
        self.maxOccurrences = maxOccurrences
        self.includeCancelled = includeCancelled
    }

    /// Held events the last `finish` read back from the temporary file (for tests and diagnostics).
    private(set) var spilledEvents = 0

    public var produces: BatchContent { [.events, .occurrences] }

    /// The span occurrences must touch: the pipeline window, or DTSTART to today + 365 days without one.
    func span(context: RunContext) -> SeriesExpander.Span {
        if let window = context.window {
            let (from, to) = window.utcRange(in: context.zone)
            return SeriesExpander.Span(from: from, to: to)
        }
        let horizon = CivilDateTime(date: context.environment.today.adding(days: Self.defaultHorizonDays))
        return SeriesExpander.Span(from: nil, to: context.zone.utc(fromLocal: horizon))
    }

    func expander(context: RunContext) -> SeriesExpander {
        var expander = SeriesExpander(zone: context.zone, span: span(context: context), maxOccurrences: maxOccurrences, includeCancelled: includeCancelled)
        if allowance == nil { allowance = RuleWorkAllowance(total: allowanceTotal) }
        expander.allowance = allowance
        return expander
    }

    /// The rule work all series of this run may spend together (`RuleWorkAllowance`); made on first use, and
    /// forgotten when the run's series are expanded.
    private var allowance: RuleWorkAllowance?
    /// Its size (tests set it small).
    package var allowanceTotal = RuleWorkAllowance.defaultTotal

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        let expander = expander(context: context)
        var out = batch
        let singles = OccurrenceBatch(capacity: batch.events.count)
        // Instants as `EventTime.utcSeconds(in: context.zone)` gives them, from the stretch between zone
        // transitions the previous event was in.
        var instants = ZoneCursor.Instants(pipelineZone: context.zone)
        // By index: binding each event to a name would copy it (retaining all its fields) once more.
        let events = batch.events
        for i in events.indices {
            if events[i].recurrenceID != nil || events[i].isRecurring {
                if held == nil { held = HeldSeries(budget: spillBudget, directory: spillDirectory) }
                let source = events[i].metadata["source"] ?? ""
                if events[i].recurrenceID != nil {
                    try held!.addOverride(events[i], source: source)
                } else {
                    let uid = "event \"\(events[i].uid)\"\(Self.place(events[i]))"
                    switch try held!.addMaster(events[i], source: source) {
                    case .held: break
                    case .copy(let first):
                        context.warn("\(uid) repeats the series\(Self.place(first)) exactly; kept once")
                    case .older(let later):
                        context.warn("\(uid) is an earlier revision of the series\(Self.place(later)) (SEQUENCE, DTSTAMP); using the later one")
                    case .replaced(let earlier, let later):
                        context.warn(later ? "\(uid) is a later revision of the series\(Self.place(earlier)) (SEQUENCE, DTSTAMP); using it"
                                           : "\(uid) repeats the series\(Self.place(earlier)) with the same SEQUENCE and DTSTAMP; using the one read last")
                    }
                }
                continue
            }
            // The status alone: `events[i].isCancelled` would copy the whole event out of the array first.
            if !includeCancelled, let status = events[i].status, Event.isCancelled(status: status) { continue }
            // As `Occurrence(single:)` and its `interval(in:)`, copying the event only when it is in the span
            // (it has no RECURRENCE-ID: those were held above).
            let start = events[i].start
            let end = events[i].end
            let s = instants.utcSeconds(start)
            let e = max(s, instants.utcSeconds(end))
            if expander.span.contains(start: s, end: e) {
                singles.append(Occurrence(event: events[i], start: start, end: end), start: s, original: s)
            }
        }
        let occurrences = singles.takeSorted()
        out.occurrences = batch.content.contains(.occurrences) ? batch.occurrences + occurrences : occurrences
        out.content.insert(.occurrences)
        return out
    }

    /// Occurrences handed on per batch from `finish`: series are expanded and emitted a few at a time, so
    /// memory holds one chunk of occurrences, not all of them.
    package static let finishBatchSize = 4096
    /// The day entries a batch from `finish` may lead to (each occurrence counts the days it can touch): a
    /// batch of occurrences that each last weeks is cut smaller, so the split stage's batch stays bounded too.
    package static let finishBatchDays = 16_384

    /// The days an occurrence of `master` can touch in the window (at least 1), to weigh batches by.
    static func dayWeight(_ master: Event, expander: SeriesExpander) -> Int {
        let seconds = SeriesExpander.seconds(of: master.occurrenceDuration(in: expander.zone))
        var days = seconds / 86_400 + 2
        if let from = expander.span.from { days = min(days, max(0, expander.span.to - from) / 86_400 + 2) }
        return Int(max(1, min(days, Int64(finishBatchDays))))
    }

    /// One held series expanded (on the series worker's thread, `HeldSeries.drainPrepared`): its occurrences with their sort instants, and
    /// what the warnings need. @unchecked: the batch is handed over whole, from the thread that filled it to
    /// the one that empties it, never shared.
    struct Prepared: @unchecked Sendable {
        var occurrences: OccurrenceBatch
        /// False for overrides whose series has no master.
        var isSeries: Bool
        var truncated = false
        var exhausted = false
        /// What the series' rules can never give (`SeriesExpander.ruleNotes`).
        var notes: [String] = []
        var uid = ""
        /// Where the master came from, for the warnings (their text is made only when one is given).
        var origin: SourceLocation? = nil
        /// Day entries each occurrence may lead to (`dayWeight`).
        var weight = 1
        /// A series too large for one batch, left for the stage's thread to expand in chunks.
        var deferred: (master: Event, overrides: [Event])? = nil
        /// The parts of the window `deferred` is expanded in (an incremental run's gained days), in order; empty:
        /// the whole window.
        var deferredRanges: [Range<Int64>] = []
    }

    /// Expands one held series (or places the overrides that have no master), as `finish` hands it on.
    /// `everyStep` runs after each step of the expansion (`finish` checks for a signal there).
    static func prepare(_ master: Event?, _ overrides: [Event], expander: SeriesExpander, zone: Zone,
                        everyStep: () throws -> Void = {}) -> Prepared {
        // Most series have a few dozen instances in a window; the batch grows for more.
        let batch = OccurrenceBatch(capacity: 16)
        guard let master else {
            // Overrides without their series: each still shows up at its own time.
            for o in overrides where expander.includeCancelled || !o.isCancelled {
                let single = Occurrence(single: o)
                let (s, e) = single.interval(in: zone)
                if expander.span.contains(start: s, end: e) {
                    batch.append(single, start: s, original: single.recurrenceID?.utcSeconds(in: zone) ?? s)
                }
            }
            return Prepared(occurrences: batch, isSeries: false)
        }
        let weight = dayWeight(master, expander: expander)
        do {
            let result = try expander.expand(master, overrides: overrides, into: batch, chunk: max(1, finishBatchDays / weight),
                                             flush: { _ in throw CalpipeError("the series outgrew one batch") }, everyStep: everyStep)
            return Prepared(occurrences: batch, isSeries: true, truncated: result.truncated, exhausted: result.exhausted,
                            notes: result.notes, uid: master.uid, origin: master.origin, weight: weight)
        } catch {
            // Thrown by `flush` when the series outgrows one batch: start again on the stage's thread, in chunks
            // (`Prepared.deferred`; the work lost is one chunk), so results waiting on the worker stay small.
            // Thrown by `everyStep` when the run was asked to stop: the stage's thread, which checks at its
            // first step too, ends the run there; the worker is free at once, not after a long series.
            return Prepared(occurrences: OccurrenceBatch(capacity: 16), isSeries: true, uid: master.uid, origin: master.origin,
                            weight: weight, deferred: (master, overrides))
        }
    }

    /// A series expanded only in the ranges the window gained (incremental runs): each range on its own, with
    /// the run's caps and rule allowance. When the gained instances outgrow one batch, the whole delta goes to the
    /// stage's thread (`Prepared.deferred`, with its ranges), as a large series of a fresh load does.
    static func prepareGained(_ master: Event?, _ overrides: [Event], ranges: [Range<Int64>], expander: SeriesExpander, zone: Zone,
                              everyStep: () throws -> Void = {}) -> Prepared {
        let all = Prepared(occurrences: OccurrenceBatch(capacity: 16), isSeries: false)
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            let prepared = prepare(master, overrides, expander: expander.within(range), zone: zone, everyStep: everyStep)
            if let deferred = prepared.deferred {
                var whole = Prepared(occurrences: OccurrenceBatch(capacity: 16), isSeries: false, weight: prepared.weight,
                                     deferred: deferred)
                whole.deferredRanges = ranges.sorted(by: { $0.lowerBound < $1.lowerBound })
                return whole
            }
            all.occurrences.moveAll(from: prepared.occurrences)
        }
        return all
    }

    public func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
        let expander = expander(context: context)
        let zone = context.zone
        // One chunk of occurrences with their sort keys; handed on sorted once it holds `finishBatchSize`.
        let pending = OccurrenceBatch(capacity: 2 * Self.finishBatchSize)
        // The day entries `pending` may lead to.
        var pendingDays = 0
        func flush() throws {
            pendingDays = 0
            guard !pending.isEmpty else { return }
            try emit(Batch(occurrences: pending.takeSorted(), content: .occurrences))
        }
        defer { allowance = nil }
        guard let series = held else { return }
        held = nil
        spilledEvents = series.spilledEvents
        // Series are read back and expanded on another thread, a few ahead; chunks are cut and sorted here.
        let incremental = context.runState.incremental
        try series.drainPrepared(prepare: { master, overrides in
            // An incremental run skips a series that did not change, or expands it only where the window grew.
            if let incremental, let first = master ?? overrides.first {
                switch incremental.seriesPlan(source: first.metadata["source"] ?? "", uid: first.uid) {
                case .full: break
                case .skip: return Prepared(occurrences: OccurrenceBatch(capacity: 0), isSeries: false)
                case .delta(let ranges):
                    return Self.prepareGained(master, overrides, ranges: ranges, expander: expander, zone: zone,
                                              everyStep: { try context.checkCancellation() })
                }
            }
            // A runaway series takes long to expand even within the caps: a signal stops the worker too.
            return Self.prepare(master, overrides, expander: expander, zone: zone, everyStep: { try context.checkCancellation() })
        }, consume: { prepared, uidRank in
            pending.uidRank = uidRank
            var prepared = prepared
            if let (master, overrides) = prepared.deferred {
                // A large series: expanded here, handed on a chunk at a time.
                try flush()
                let chunk = min(max(1, Self.finishBatchDays / prepared.weight), Self.finishBatchSize)
                let parts = prepared.deferredRanges.isEmpty ? [expander] : prepared.deferredRanges.map { expander.within($0) }
                for part in parts {
                    let result = try part.expand(master, overrides: overrides, into: pending, chunk: chunk,
                                                 flush: { _ in try flush() }, everyStep: { try context.checkCancellation() })
                    prepared.truncated = prepared.truncated || result.truncated
                    prepared.exhausted = prepared.exhausted || result.exhausted
                    prepared.notes += result.notes.filter { !prepared.notes.contains($0) }
                }
                pendingDays = pending.count * prepared.weight
            } else {
                pendingDays += prepared.occurrences.count * prepared.weight
                pending.moveAll(from: prepared.occurrences)
            }
            guard prepared.isSeries else { return }
            for note in prepared.notes {
                context.warn("event \"\(prepared.uid)\"\(Self.place(prepared.origin)): \(note)")
            }
            if prepared.truncated {
                context.warn("event \"\(prepared.uid)\"\(Self.place(prepared.origin)) has more than \(maxOccurrences) occurrences; kept the first \(maxOccurrences) (option max_occurrences)")
            }
            if prepared.exhausted {
                context.warn("event \"\(prepared.uid)\"\(Self.place(prepared.origin)) has a recurrence rule that matches too rarely to expand in full; kept the occurrences found")
            }
            if pending.count >= Self.finishBatchSize || pendingDays >= Self.finishBatchDays { try flush() }
        })
        try flush()
        if let allowance, allowance.isSpent {
            context.warn("the recurrence rules of this run walked more than \(allowance.total) periods in all: each rule after that walked at most \(allowance.floor)")
        }
    }

    /// " (file:line)" when the event knows where it came from.
    static func place(_ event: Event) -> String {
        place(event.origin)
    }

    static func place(_ origin: SourceLocation?) -> String {
        origin.map { " (\($0))" } ?? ""
    }
}
