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
    /// The link to its occurrence: an index into `effectiveOccurrences` of the batch that carries the entry, set
    /// by the split stage; nil when that occurrence is not in the batch (the entry was held back and handed on
    /// later). Not part of the entry's value (equality, hash): it says where the entry travels, not what it is.
    public var occurrenceIndex: Int?

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

    public static func == (a: DayEntry, b: DayEntry) -> Bool {
        a.day == b.day && a.part == b.part && a.parts == b.parts && a.allDay == b.allDay && a.start == b.start && a.end == b.end
            && a.startUTC == b.startUTC && a.endUTC == b.endUTC && a.forecast == b.forecast && a.occurrence == b.occurrence
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(occurrence)
        hasher.combine(startUTC)
    }

    public var event: Event { occurrence.event }
    public var durationSeconds: Int64 { endUTC - startUTC }
}
