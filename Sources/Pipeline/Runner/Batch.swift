/// What flows from sources through stages to sinks. A batch carries up to three outputs, and `content` says
/// which of them it holds (the same vocabulary as `Sink.needs` and `Stage.produces`):
///
/// - `.events`: `events`, as a source read them (stamped with their source's label by the runner).
/// - `.occurrences`: `occurrences`, made by an expand stage from these events (and from series held back from
///   earlier batches, so an occurrence's event need not be in `events`). Without `.occurrences` a batch's
///   occurrences are its events' single occurrences (`effectiveOccurrences`).
/// - `.days`: `days`, made by a split stage from `effectiveOccurrences`, in the order of their occurrences. Each
///   entry's `occurrenceIndex` links it to its occurrence: an index into this batch's `effectiveOccurrences`, or nil
///   when the occurrence is not known to be in this batch (a stage such as `forecast` held the entry back and hands
///   it on later). A stage that moves, drops or reorders occurrences or days re-links the days (`FilterStage`).
///
/// `agendaDays` (day headers with their weather, from the forecast stage) ride along with `.days`.
public struct Batch: Sendable {
    public var events: [Event]
    public var occurrences: [Occurrence]
    public var days: [DayEntry]
    /// Day headers: one `AgendaDay` per day of the window with its weather and no entries, made by the
    /// forecast stage (docs/agenda-days.md). Sinks that want whole days use `AgendaDayCollector`.
    public var agendaDays: [AgendaDay] = []
    /// Which outputs the batch carries: `.events` as read, `.occurrences` once expanded, `.days` once split.
    public var content: BatchContent

    /// A batch of `content`; by default what the arrays given hold (`.events` for a source's batch).
    public init(events: [Event] = [], occurrences: [Occurrence] = [], days: [DayEntry] = [], content: BatchContent? = nil) {
        self.events = events
        self.occurrences = occurrences
        self.days = days
        self.content = content ?? [events.isEmpty ? [] : .events, occurrences.isEmpty ? [] : .occurrences, days.isEmpty ? [] : .days]
    }

    public var isEmpty: Bool { events.isEmpty && occurrences.isEmpty && days.isEmpty && agendaDays.isEmpty }

    /// The occurrences of this batch: the expanded ones, or the single occurrence of each event when
    /// nothing expanded them (recurring events then show their first instance only).
    public var effectiveOccurrences: [Occurrence] {
        content.contains(.occurrences) ? occurrences : events.map(Occurrence.init(single:))
    }
}
