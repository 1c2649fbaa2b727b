/// One concrete instance of an event: the event (or the override that replaced the instance) with its start and end.
///
/// The event is held by reference: all occurrences of a series share one copy, so copying and sorting
/// occurrences moves a pointer, not the event's many fields.
public struct Occurrence: Hashable, Sendable {
    private var storage: EventStorage

    public var event: Event {
        // Borrowed, not copied: reading one field (`occurrence.event.uid`) retains nothing else of the event.
        _read { yield storage.event }
        set { storage = EventStorage(newValue) }
    }

    /// Calls `body` with the event borrowed where it is stored. From another module, `occurrence.event` as a
    /// function argument (or each `occurrence.event.field`) can copy the whole event, retaining every field;
    /// hot loops (the JSON sink) read it through this instead.
    public func withEvent<Result>(_ body: (borrowing Event) throws -> Result) rethrows -> Result {
        try body(storage.event)
    }

    public var start: EventTime
    public var end: EventTime
    /// The instance's identity in its series (the start the rule produced); nil for a non-recurring event.
    public var recurrenceID: EventTime?

    public init(event: Event, start: EventTime, end: EventTime, recurrenceID: EventTime? = nil) {
        storage = EventStorage(event)
        self.start = start
        self.end = end
        self.recurrenceID = recurrenceID
    }

    /// The single occurrence of a non-recurring event (or the first of a recurring one).
    public init(single event: Event) {
        self.init(event: event, start: event.start, end: event.end, recurrenceID: event.recurrenceID?.time)
    }

    /// Another instance of the same event, sharing its stored copy.
    public init(sharingEventOf other: Occurrence, start: EventTime, end: EventTime, recurrenceID: EventTime?) {
        storage = other.storage
        self.start = start
        self.end = end
        self.recurrenceID = recurrenceID
    }

    public var isAllDay: Bool { start.isDate }

    public static func == (lhs: Occurrence, rhs: Occurrence) -> Bool {
        lhs.start == rhs.start && lhs.end == rhs.end && lhs.recurrenceID == rhs.recurrenceID
            && (lhs.storage === rhs.storage || lhs.storage.event == rhs.storage.event)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.event)
        hasher.combine(start)
        hasher.combine(end)
        hasher.combine(recurrenceID)
    }

    /// Start and end as UTC instants, floating times and dates read in `zone`. The end is never before the start.
    public func interval(in zone: Zone) -> (start: Int64, end: Int64) {
        let s = start.utcSeconds(in: zone)
        let e = end.utcSeconds(in: zone)
        return (s, max(s, e))
    }
}

/// The shared, immutable copy of an occurrence's event.
private final class EventStorage: Sendable {
    let event: Event

    init(_ event: Event) {
        self.event = event
    }
}
