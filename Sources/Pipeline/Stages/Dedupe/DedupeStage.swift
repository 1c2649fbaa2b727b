/// `type: dedupe`: keeps once an event that several sources bring (an invitation in the team's calendar and in
/// yours), from the first source in pipeline order that has it; the summary counts the events merged away.
///
/// Compared `"by": "uid"` (the default): an event, or a series with all its RECURRENCE-ID overrides, belongs to the
/// first source that brings its UID, and every component of that UID from a later source goes (keeping a later
/// source's override of a series kept from an earlier one would show that instance twice). Or
/// `"by": "time_and_title"`: same start, end and title (case and spaces normalised), for feeds that give one
/// event different UIDs; a series is compared by its first instance, and a merged series' later overrides go
/// with it. Events of one source are never merged with each other (two revisions of an event are the `expand`
/// stage's to choose between).
///
/// It works on events as read (`EventStage`: before `expand`). It remembers 16 bytes per distinct event for the
/// run. Whether an event is kept depends on the other sources, so an incremental run with this stage reads every
/// source (it is not a `DeterministicStage`).
public final class DedupeStage: Stage, EventStage {
    public static let descriptor = StageDescriptor(
        type: "dedupe",
        kind: .stage,
        summary: "Keep once an event that several sources bring (same UID, or same start, end and title); the first source wins; before expand",
        options: [
            OptionDoc("by", "string", "what makes two events the same: uid (an event or series by its UID) or time_and_title (start, end and normalised title)",
                      values: DedupeKey.Mode.allCases.map(\.rawValue), default: "uid"),
        ],
        make: { options in
            let by = options.choice("by", DedupeKey.Mode.allCases.map(\.rawValue), default: DedupeKey.Mode.uid.rawValue)
            try options.finish()
            return DedupeStage(by: DedupeKey.Mode(rawValue: by) ?? .uid)
        }
    )

    /// The summary's counter.
    public static let mergedCounter = "duplicates merged (dedupe)"

    let mode: DedupeKey.Mode
    /// Each key seen, with the source that brought it first (its place in `sources`).
    private var owners: [DedupeKey: Int32] = [:]
    /// Under `time_and_title`: the UIDs of the series merged away, with their source, whose overrides go too.
    private var mergedSeries: Set<DedupeKey> = []
    /// The sources' labels in the order they first sent an event: the pipeline's order.
    private var sources: [String: Int32] = [:]

    init(by mode: DedupeKey.Mode) {
        self.mode = mode
    }

    public func process(_ batch: Batch, context: RunContext) throws -> Batch {
        try requireEvents(batch, type: "dedupe")
        var merged = 0
        var out = batch
        out.keepEvents { event in
            let label = event.metadata["source"] ?? ""
            let source: Int32
            if let known = sources[label] { source = known } else {
                source = Int32(sources.count)
                sources[label] = source
            }
            let key: DedupeKey
            switch mode {
            case .uid:
                key = DedupeKey(uid: event.uid)
            case .timeAndTitle:
                if event.recurrenceID != nil, mergedSeries.contains(DedupeKey("\(source)\u{0}" + event.uid)) {
                    merged += 1
                    return false
                }
                key = DedupeKey(timeAndTitleOf: event, zone: context.zone)
            }
            guard let owner = owners[key] else {
                owners[key] = source
                return true
            }
            if owner == source { return true }
            if mode == .timeAndTitle, event.isRecurring { mergedSeries.insert(DedupeKey("\(source)\u{0}" + event.uid)) }
            merged += 1
            return false
        }
        context.report.count(Self.mergedCounter, by: merged)
        return out
    }
}
