/// One calendar collection the server lists in the calendar home: where it is, what it is called, its colour
/// and what it holds.
struct CalDAVCalendar: Hashable, Sendable {
    /// The collection's href as the server wrote it ("/alice/work/").
    var href: String
    /// Its full address.
    var url: String
    /// DAV:displayname; the last part of the href when it has none.
    var name: String
    /// Apple's calendar-color as "#rrggbb" (an alpha the server adds is dropped), when it has one.
    var color: String?
    /// CalendarServer's getctag: changes whenever anything in the collection changes.
    var ctag: String?
    /// DAV:sync-token (RFC 6578), when the server supports sync-collection.
    var syncToken: String?
    /// The component names of supported-calendar-component-set; empty when the server does not say.
    var components: [String]

    /// Whether it can hold events (VEVENT listed, or nothing said).
    var holdsEvents: Bool { components.isEmpty || components.contains("VEVENT") }
}
