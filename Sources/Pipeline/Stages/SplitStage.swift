/// `type: split`: turns each occurrence into one day entry per calendar day it touches in the pipeline's
/// zone ("day 2 of 3"), dropping days outside the window. See `DaySplitter` for the rules.
///
/// One series (or event) makes at most `maxDayEntries` entries: a minutely series whose instances last months
/// would otherwise make billions (each instance one entry per day it touches), which no agenda wants and no
/// output can hold. Entries past the cap are dropped, counted, and reported once per series with a warning
/// that names it once the series is done. A series is counted while it appears batch after batch (see
/// `previous`), so the stage holds the tallies of two batches' series, not of the whole feed.
// @unchecked Sendable: the per-series tallies change as batches pass, on the runner's thread only, one run at a
// time (the `Stage` contract).
public final class SplitStage: Stage, @unchecked Sendable {
    public static let descriptor = StageDescriptor(
        type: "split",
        kind: .stage,
        summary: "Split occurrences into one entry per day they touch, in the pipeline's time zone",
        options: Options.self,
        make: { options, _ in SplitStage(maxDayEntries: options.maxDayEntries) }
    )

    /// The `split` stage's options.
    public struct Options: OptionConfig {
        public var maxDayEntries = SplitStage.defaultMaxDayEntries

        public init() {}

        public static let options = OptionSpec<Options> {
            Key("max_day_entries", \.maxDayEntries, .integer(in: 1...1_000_000_000),
                "most day entries one series (or event) may produce; more are dropped with a warning")
        }
    }

    /// The default per-series cap: a daily event for 270 years, or an hourly one every hour of 11 years; an
    /// agenda of a real calendar does not come near it, and a series that does is a feed's mistake.
    public static let defaultMaxDayEntries = 100_000

    public let maxDayEntries: Int

    /// A series (or event) as the cap counts it: its UID and its source's label.
    private struct SeriesKey: Hashable {
        var uid: String
        var source: String?
    }

    /// What a series made so far, and what the cap dropped of it.
    private struct Tally {
        var entries = 0
        var dropped = 0
        /// Where the series came from and the start of the occurrence where the cut fell, for the warning.
        var origin: SourceLocation?
        var cutAt: EventTime?
        /// The order of the cuts, so the warnings come in a fixed order.
        var cut = 0
    }

    /// The series of the previous batch. A series' occurrences come in one batch or in consecutive batches
    /// (the expand stage hands on a small series inside one sorted chunk, a large one in chunks of its own),
    /// so a series counts on while it appears batch after batch, and is done (and reported) once a batch
    /// comes without it: memory holds the series of two batches, whatever the feed.
    private var previous: [SeriesKey: Tally] = [:]
    private var cuts = 0

    public init(maxDayEntries: Int = SplitStage.defaultMaxDayEntries) {
        self.maxDayEntries = maxDayEntries
    }

    public var produces: BatchContent { .days }

    /// Occurrences split between two checks for a signal.
    static let cancellationInterval = 4096

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        let splitter = DaySplitter(zone: context.zone, window: context.window)
        var out = batch
        var days: [DayEntry] = []
        days.reserveCapacity(batch.events.count)
        var tallies: [SeriesKey: Tally] = [:]
        // The series of the occurrence before (most follow one of their own): looked up again only on a change.
        var key: SeriesKey?
        var tally = Tally()
        for (index, occurrence) in batch.effectiveOccurrences.enumerated() {
            if index % Self.cancellationInterval == Self.cancellationInterval - 1 { try context.checkCancellation() }
            let same = occurrence.withEvent { event in key?.uid == event.uid && key?.source == event.metadata["source"] }
            if !same {
                if let key { tallies[key] = tally }
                let next = occurrence.withEvent { SeriesKey(uid: $0.uid, source: $0.metadata["source"]) }
                tally = tallies[next] ?? previous.removeValue(forKey: next) ?? Tally(origin: occurrence.event.origin)
                key = next
            }
            let room = maxDayEntries - tally.entries
            if room <= 0 {
                // Past the cap: only counted, in constant time (nothing is made).
                let n = splitter.count(occurrence)
                if n > 0 { noteCut(&tally, at: occurrence.start) }
                tally.dropped += n
                continue
            }
            let first = days.count
            splitter.split(occurrence, into: &days)
            if days.count - first > room {
                // The cut falls inside this occurrence: its first days are kept.
                noteCut(&tally, at: occurrence.start)
                tally.dropped += days.count - first - room
                days.removeLast(days.count - first - room)
            }
            tally.entries += days.count - first
            for i in first..<days.count { days[i].occurrenceIndex = index }
        }
        if let key { tallies[key] = tally }
        // Series of the batch before that did not go on in this one are done.
        report(previous, context: context)
        previous = tallies
        out.days.append(contentsOf: days)
        out.content.insert(.days)
        return out
    }

    public func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
        report(previous, context: context)
        previous = [:]
    }

    private func noteCut(_ tally: inout Tally, at start: EventTime) {
        guard tally.cutAt == nil else { return }
        tally.cutAt = start
        cuts += 1
        tally.cut = cuts
    }

    /// The warnings for the series the cap cut, in the order of their cuts.
    private func report(_ tallies: [SeriesKey: Tally], context: RunContext) {
        for (key, t) in tallies.filter({ $0.value.dropped > 0 }).sorted(by: { $0.value.cut < $1.value.cut }) {
            let from = t.cutAt.map { " (from its occurrence starting \($0.localTime.iso8601) on)" } ?? ""
            context.warn("event \"\(key.uid)\"\(ExpandStage.place(t.origin)) makes more than \(maxDayEntries) day entries; kept the first \(maxDayEntries), dropped \(t.dropped)\(from) (option max_day_entries)")
        }
    }
}
