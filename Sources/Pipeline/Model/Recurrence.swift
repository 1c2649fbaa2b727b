/// One RDATE value: a date, a date-time, or a period (RFC 5545 3.8.5.2).
public enum RecurrenceDate: Hashable, Sendable {
    case time(EventTime)
    case period(start: EventTime, end: EventTime)
    case periodWithDuration(start: EventTime, duration: CalDuration)

    public var start: EventTime {
        switch self {
        case .time(let t), .period(let t, _), .periodWithDuration(let t, _): return t
        }
    }
}

/// The recurrence data of an event, kept as parsed from the source. Expanding it is the expand stage's job.
public struct Recurrence: Hashable, Sendable {
    public var rules: [RecurrenceRule]
    public var exceptionRules: [RecurrenceRule]
    public var dates: [RecurrenceDate]
    public var exceptionDates: [EventTime]

    public init(rules: [RecurrenceRule] = [], exceptionRules: [RecurrenceRule] = [], dates: [RecurrenceDate] = [], exceptionDates: [EventTime] = []) {
        self.rules = rules
        self.exceptionRules = exceptionRules
        self.dates = dates
        self.exceptionDates = exceptionDates
    }

    public var isEmpty: Bool { rules.isEmpty && dates.isEmpty }
}

/// RECURRENCE-ID: which instance of a series an override replaces, and whether it also changes later ones.
public struct RecurrenceID: Hashable, Sendable {
    public var time: EventTime
    public var thisAndFuture: Bool

    public init(time: EventTime, thisAndFuture: Bool = false) {
        self.time = time
        self.thisAndFuture = thisAndFuture
    }
}
