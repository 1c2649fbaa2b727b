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
///   it on later). A stage that drops, replaces or inserts items does it through the batch's operations
///   (`keepEvents(where:)`, ...: `Batch+Operations.swift`), which keep the links.
///
/// `agendaDays` (day headers with their weather, from the forecast stage) ride along with `.days`.
///
/// `deletions` are what a source says left its feed (`Deletion`). They are not content: the runner takes them off a
/// source's batch, stamps them with the source's label and hands them to the sinks that apply them
/// (`Sink.appliesDeletions`) before the batch's events go through the stages; stages never see them.
public struct Batch: Sendable {
    public var events: [Event]
    public var occurrences: [Occurrence]
    public var days: [DayEntry]
    /// Day headers: one `AgendaDay` per day of the window with its weather and no entries, made by the
    /// forecast stage (docs/agenda-days.md). Sinks that want whole days use `AgendaDayCollector`.
    public var agendaDays: [AgendaDay] = []
    /// Which outputs the batch carries: `.events` as read, `.occurrences` once expanded, `.days` once split.
    public var content: BatchContent
    /// Events (or instances) the source says left its feed, applied before this batch's events (`Deletion`).
    public var deletions: [Deletion] = []

    /// A batch of `content`; by default what the arrays given hold (`.events` for a source's batch).
    public init(events: [Event] = [], occurrences: [Occurrence] = [], days: [DayEntry] = [], content: BatchContent? = nil) {
        self.events = events
        self.occurrences = occurrences
        self.days = days
        self.content = content ?? [events.isEmpty ? [] : .events, occurrences.isEmpty ? [] : .occurrences, days.isEmpty ? [] : .days]
    }

    public var isEmpty: Bool { events.isEmpty && occurrences.isEmpty && days.isEmpty && agendaDays.isEmpty && deletions.isEmpty }

    /// The occurrences of this batch: the expanded ones, or the single occurrence of each event when
    /// nothing expanded them (recurring events then show their first instance only).
    public var effectiveOccurrences: [Occurrence] {
        content.contains(.occurrences) ? occurrences : events.map(Occurrence.init(single:))
    }
}

/// An event, or one instance of a series, that a source says left its feed. A sink that keeps rows across runs
/// (`Sink.appliesDeletions`: the sqlite sink) removes it, or marks it removed, with its occurrences and day entries.
public struct Deletion: Hashable, Sendable {
    /// The label of the source whose event it was; the runner sets it (as it stamps events), a source need not.
    public var source: String
    public var uid: String
    /// nil: the whole event, every instance and override of the UID. Else the one instance whose RECURRENCE-ID
    /// this is (written as the series' DTSTART is: date, UTC, floating or in the same zone).
    public var recurrenceID: EventTime?

    public init(source: String = "", uid: String, recurrenceID: EventTime? = nil) {
        self.source = source
        self.uid = uid
        self.recurrenceID = recurrenceID
    }
}

/// What a source's batches are, together (`EventSource.feed`).
public enum SourceFeed: String, Sendable {
    /// The whole feed, every run: what is absent is gone (a sink keeping rows removes it). The default.
    case complete
    /// Only what changed since the last run, and `Batch.deletions`: what is absent is unchanged, and only an
    /// explicit deletion removes anything. Only sinks that apply deletions can take such a source (the loader
    /// refuses a whole-file sink with one).
    case delta
}
