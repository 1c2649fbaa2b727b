import Pipeline

/// What the scanner (`ICSScanner`, bytes to components) tells the builder (`ICSEventBuilder`, components to
/// events), in input order. The builder performs them in that order, so the handlers see exactly the same
/// calls whether both halves run one after the other on one thread (`ICSReader`) or on two threads
/// (`ICSPipelinedReader`).
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
    case reject(line: Int, reason: String)
    case warn(String)
    case skip(String)
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
    /// The unfolded text of an event, CRLF after each line (see `sourceText`).
    @exclusivity(unchecked) var text: [UInt8] = []
    /// The text of a closed event as a String (the scanner makes it); `text` is then emptied when the event
    /// has a UID.
    @exclusivity(unchecked) var sourceText: String?
    /// The first problem found inside an event: it is rejected at its END.
    @exclusivity(unchecked) var failure: (line: Int, reason: String)?

    init(kind: Kind, name: String, beginLine: Int) {
        self.kind = kind
        self.name = name
        self.beginLine = beginLine
    }

    func fail(line: Int, _ reason: String) {
        if failure == nil { failure = (line, reason) }
    }

    var rawComponent: RawComponent {
        RawComponent(name: name, properties: properties.map(\.rawProperty), components: children)
    }
}
