/// Every kind of repair a reader makes (docs/formats.md, "What calpipe repairs"): a record kept with a part
/// dropped or fixed. Under `--strict` (or a source's `"strict": true`) each one rejects its record instead,
/// and the run fails. `StrictRepairTests` reads a sample of every case here, so a kind cannot be added
/// without a test that the default repairs it and strict rejects it.
public enum RepairKind: String, CaseIterable, Hashable, Sendable {
    // Structure (ICS reader).
    /// A line that is not a content line (no `:`, a bad parameter or name, longer than the line limit): dropped.
    case malformedLine = "malformed line"
    /// A parameter that is not `NAME=value` (`;V%LUE=DATE`, `;VALUE:`, `;=DATE`, `;;`), or text after a quoted
    /// parameter value: that parameter (or text) dropped, the line kept.
    case malformedParameter = "malformed parameter"
    /// `BEGIN:` with no name, or a name that is not a name: the component is skipped.
    case invalidComponentName = "invalid component name"
    /// Components nested deeper than the reader's limit: skipped.
    case nestingTooDeep = "nesting too deep"
    /// A component without its VCALENDAR: read as if in one.
    case componentOutsideCalendar = "component outside VCALENDAR"
    /// Content lines outside any VCALENDAR (after END:VCALENDAR, before BEGIN:VCALENDAR): ignored.
    case contentOutsideCalendar = "content outside VCALENDAR"
    /// An END that nothing open has: ignored.
    case endWithoutBegin = "END without BEGIN"
    /// An END whose name does not match the open component (`END:VEVENTS`): ignored.
    case endMismatch = "END does not match BEGIN"
    /// A component that is never closed (VEVENT, VALARM, VTIMEZONE): closed where noticed.
    case unclosedComponent = "component never closed"
    /// A VCALENDAR without END:VCALENDAR: closed at the end of the input.
    case unclosedCalendar = "VCALENDAR never closed"
    // The bytes (ICS reader).
    /// Bare CR line ends: read as line ends.
    case bareCR = "bare CR line ends"
    /// NUL bytes: removed.
    case nulBytes = "NUL bytes"
    /// Text that is not UTF-8: read as Windows-1252, stray bytes as U+FFFD.
    case invalidUTF8 = "invalid UTF-8"
    // Properties of an event.
    /// A VEVENT without UID (or an empty one): a derived UID.
    case missingUID = "missing UID"
    /// An empty DTEND, DURATION or RECURRENCE-ID: ignored.
    case emptyValue = "empty value"
    /// DTEND and DURATION both: DTEND wins.
    case endAndDuration = "DTEND and DURATION"
    /// A DTEND or DURATION that cannot be read: ignored.
    case unreadableEnd = "unreadable DTEND or DURATION"
    /// DTEND before DTSTART: zero length (all-day: one day).
    case endBeforeStart = "DTEND before DTSTART"
    /// DTEND of another kind than DTSTART (date and date-time, floating and zoned): made the start's kind.
    case endKindMismatch = "DTEND of another kind than DTSTART"
    /// `VALUE=DATE` with a date-time: read as the date-time.
    case valueTypeMismatch = "VALUE type mismatch"
    /// An RRULE or EXRULE the rule parser fixed (a value out of range dropped, a part twice, ...).
    case ruleRepaired = "rule repaired"
    /// An RRULE or EXRULE kept without one bad part that only bounds it (`COUNT=-1` next to UNTIL, WKST).
    case rulePartDropped = "rule part dropped"
    /// An RRULE or EXRULE that cannot be read: the event is kept without it.
    case ruleDropped = "rule dropped"
    /// An RDATE or EXDATE value that cannot be read: that value is dropped.
    case recurrenceValueDropped = "RDATE or EXDATE value dropped"
    /// A RECURRENCE-ID of another kind than the series' DTSTART: given the master's kind.
    case recurrenceIDKind = "RECURRENCE-ID kind"
    /// METHOD inside a VEVENT (a VCALENDAR property): dropped.
    case methodInEvent = "METHOD inside VEVENT"
    // Records of the JSON and mapped XML sources.
    /// A zone name the zone database does not know, with the offset of an instant given next to it: that offset.
    case unknownZoneAsOffset = "unknown zone read as an offset"
}
