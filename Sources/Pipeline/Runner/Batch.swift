/// What flows between stages: events as read, their occurrences once expanded, and day entries once split.
public struct Batch: Sendable {
    public var events: [Event]
    /// Filled by the expand stage. Without one, `occurrences(window:zone:)` derives one per event.
    public var occurrences: [Occurrence]
    public var days: [DayEntry]
    /// Day headers: one `AgendaDay` per day of the window with its weather and no entries, made by the
    /// forecast stage (docs/agenda-days.md). Sinks that want whole days use `AgendaDayCollector`.
    public var agendaDays: [AgendaDay] = []
    /// True once an expand stage has turned events into occurrences.
    public var expanded: Bool
    /// True once a split stage has turned occurrences into day entries.
    public var split: Bool

    public init(events: [Event] = [], occurrences: [Occurrence] = [], days: [DayEntry] = [], expanded: Bool = false, split: Bool = false) {
        self.events = events
        self.occurrences = occurrences
        self.days = days
        self.expanded = expanded
        self.split = split
    }

    public var isEmpty: Bool { events.isEmpty && occurrences.isEmpty && days.isEmpty && agendaDays.isEmpty }

    /// The occurrences of this batch: the expanded ones, or the single occurrence of each event when
    /// nothing expanded them (recurring events then show their first instance only).
    public var effectiveOccurrences: [Occurrence] {
        expanded ? occurrences : events.map(Occurrence.init(single:))
    }
}
