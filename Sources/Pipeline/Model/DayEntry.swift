/// One row of an agenda: the part of an occurrence that falls on one calendar day of the pipeline's zone.
public struct DayEntry: Hashable, Sendable {
    public var occurrence: Occurrence
    /// The day, in the pipeline's zone.
    public var day: CivilDate
    /// 1-based part number and the number of days the occurrence touches ("day 2 of 3").
    public var part: Int
    public var parts: Int
    /// True for all-day events, and for the middle days of timed events that cover the whole day.
    public var allDay: Bool
    /// Clipped local start and end on this day in the pipeline's zone; the end may be the next day's 00:00.
    public var start: CivilDateTime
    public var end: CivilDateTime
    /// The same as UTC instants; their difference is the real duration (23 h or 25 h on DST days).
    public var startUTC: Int64
    public var endUTC: Int64
    /// Set by the forecast stage; nil when no forecast stage ran.
    public var forecast: ForecastResult?

    public init(occurrence: Occurrence, day: CivilDate, part: Int, parts: Int, allDay: Bool,
                start: CivilDateTime, end: CivilDateTime, startUTC: Int64, endUTC: Int64) {
        self.occurrence = occurrence
        self.day = day
        self.part = part
        self.parts = parts
        self.allDay = allDay
        self.start = start
        self.end = end
        self.startUTC = startUTC
        self.endUTC = endUTC
    }

    public var event: Event { occurrence.event }
    public var durationSeconds: Int64 { endUTC - startUTC }

    /// Agenda order within a day: all-day first, then by start, then title, then uid.
    public static func agendaOrder(_ a: DayEntry, _ b: DayEntry) -> Bool {
        if a.day != b.day { return a.day < b.day }
        if a.allDay != b.allDay { return a.allDay }
        if a.startUTC != b.startUTC { return a.startUTC < b.startUTC }
        let ta = a.event.title ?? "", tb = b.event.title ?? ""
        if ta != tb { return ta < tb }
        if a.event.uid != b.event.uid { return a.event.uid < b.event.uid }
        return a.endUTC < b.endUTC
    }
}
