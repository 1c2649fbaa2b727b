/// One concrete instance of an event: the event (or the override that replaced the instance) with its start and end.
public struct Occurrence: Hashable, Sendable {
    public var event: Event
    public var start: EventTime
    public var end: EventTime
    /// The instance's identity in its series (the start the rule produced); nil for a non-recurring event.
    public var recurrenceID: EventTime?

    public init(event: Event, start: EventTime, end: EventTime, recurrenceID: EventTime? = nil) {
        self.event = event
        self.start = start
        self.end = end
        self.recurrenceID = recurrenceID
    }

    /// The single occurrence of a non-recurring event (or the first of a recurring one).
    public init(single event: Event) {
        self.init(event: event, start: event.start, end: event.end, recurrenceID: event.recurrenceID?.time)
    }

    public var isAllDay: Bool { start.isDate }

    /// Start and end as UTC instants, floating times and dates read in `zone`. The end is never before the start.
    public func interval(in zone: Zone) -> (start: Int64, end: Int64) {
        let s = start.utcSeconds(in: zone)
        let e = end.utcSeconds(in: zone)
        return (s, max(s, e))
    }
}
