import Pipeline

/// What the scanner (`ICSScanner`, bytes to components) tells the builder (`ICSEventBuilder`, components to
/// events), in input order. The builder performs them in that order, so the handlers see exactly the same
/// calls whether the builder makes every event itself or worker threads make them (`ICSParallelBuilder`).
enum ICSCommand: Sendable {
    /// A closed VEVENT (possibly already failed: it is then rejected).
    case event(ICSFrame)
    /// A closed VTIMEZONE.
    case timezone(ICSFrame)
    /// BEGIN:VCALENDAR: a new calendar starts, with no X-WR-TIMEZONE yet.
    case calendarBegin
    /// END:VCALENDAR: events waiting for a VTIMEZONE are finished, X-WR-TIMEZONE is forgotten.
    case calendarEnd
    /// The input ended: events waiting for a VTIMEZONE are finished.
    case flushPending
    /// X-WR-TIMEZONE of the current calendar, trimmed, with its line.
    case calendarTimeZone(name: String, line: Int)
    /// X-WR-CALNAME (or RFC 7986 NAME) of the current calendar, unescaped: the events' `calendar`.
    case calendarName(String)
    /// The current calendar's colour as "#rrggbb", from RFC 7986 COLOR (rank 0), X-APPLE-CALENDAR-COLOR (1) or
    /// X-WR-CALCOLOR (2): the lowest rank seen wins. The events' `calendar_color`.
    case calendarColor(String, rank: Int)
    case reject(line: Int, reason: String)
    /// A repair outside of any event (the file's bytes, its structure): reported without UID. Under strict
    /// the scanner sends `reject` instead.
    case repair(line: Int, reason: String, action: String, kind: RepairKind)
    case warn(String)
    case skip(String)
    /// A line that is not valid UTF-8 (read as Latin-1): the builder warns once per input, at the first such
    /// line in input order.
    case latin1(line: Int)
}

/// A component being read (by the scanner) or finished (handed to the builder). A class: handing a frame on
/// costs one reference, not one per array and string in it. The scanner owns it until it emits it, then only
/// the builder uses it.
final class ICSFrame: @unchecked Sendable {
    enum Kind: Sendable { case calendar, event, timezone, nested }

    // One thread at a time uses a frame (see above): no dynamic exclusivity checks on the hot fields.
    let kind: Kind
    let name: String
    let beginLine: Int
    @exclusivity(unchecked) var properties: [ICSContentLine] = []
    @exclusivity(unchecked) var children: [RawComponent] = []
    /// An event's ATTENDEE lines read as attendees (in `properties` they keep name, value and line only).
    @exclusivity(unchecked) var attendees: [Attendee] = []
    /// The unfolded text of an event, CRLF after each line (the event's `sourceText`).
    @exclusivity(unchecked) var text: [UInt8] = []
    /// The first problem found inside an event: it is rejected at its END.
    @exclusivity(unchecked) var failure: (line: Int, reason: String)?
    /// What the scanner repaired inside an event (a line dropped, a component closed that never was): reported
    /// with the event's UID, or under `strict` the first one rejects the event.
    @exclusivity(unchecked) var repairs: [(line: Int, reason: String, action: String, kind: RepairKind)] = []
    /// A VCALENDAR the reader opened for a component that had none (`BEGIN:VEVENT` first): it has no END to miss.
    @exclusivity(unchecked) var implicit = false
    /// Set when the scanner left the event's property lines unparsed (`ICSScanner.defersEventLines`): `text`
    /// then holds BEGIN, the property lines and END, and `lineNumbers` the property lines' numbers. Whoever
    /// makes the event parses them first (`ICSFrame.parseDeferredLines`).
    @exclusivity(unchecked) var deferred = false
    @exclusivity(unchecked) var lineNumbers: [Int] = []
    /// How many of the deferred lines are ATTENDEE lines (room is made for them at once).
    @exclusivity(unchecked) var attendeeLines = 0
    /// The first line of a deferred event that was not valid UTF-8 (found when its lines were parsed).
    @exclusivity(unchecked) var latin1Line: Int?
    /// Set by a worker that made the event and gave warnings (they travel in its job).
    @exclusivity(unchecked) var hasWarnings = false
    /// The raw-text hash of the event a worker made (`Event.rawTextHash`), worked out on the worker while the text
    /// is in its core's cache, for the reading thread's check for exact copies (`ICSEventBuilder.deliver`).
    @exclusivity(unchecked) var textHash: Int64?

    init(kind: Kind, name: String, beginLine: Int) {
        self.kind = kind
        self.name = name
        self.beginLine = beginLine
    }

    func fail(line: Int, _ reason: String) {
        if failure == nil { failure = (line, reason) }
    }

    func repair(_ kind: RepairKind, line: Int, _ reason: String, _ action: String) {
        repairs.append((line, reason, action, kind))
    }

    var rawComponent: RawComponent {
        RawComponent(name: name, properties: properties.map(\.rawProperty), components: children)
    }
}
