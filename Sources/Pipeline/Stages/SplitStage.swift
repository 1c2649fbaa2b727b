/// `type: split`: turns each occurrence into one day entry per calendar day it touches in the pipeline's
/// zone ("day 2 of 3"), dropping days outside the window. See `DaySplitter` for the rules.
public final class SplitStage: Stage {
    public static let descriptor = StageDescriptor(
        type: "split",
        kind: .stage,
        summary: "Split occurrences into one entry per day they touch, in the pipeline's time zone",
        options: [],
        make: { _ in SplitStage() }
    )

    public init() {}

    public var produces: BatchContent { .days }

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        let splitter = DaySplitter(zone: context.zone, window: context.window)
        var out = batch
        var days: [DayEntry] = []
        days.reserveCapacity(batch.events.count)
        for (index, occurrence) in batch.effectiveOccurrences.enumerated() {
            let first = days.count
            splitter.split(occurrence, into: &days)
            for i in first..<days.count { days[i].occurrenceIndex = index }
        }
        out.days.append(contentsOf: days)
        out.content.insert(.days)
        return out
    }
}
