import Importers

/// The XML namespaces a CalDAV client speaks.
enum DAVNames {
    static let dav = CalDAVSource.dav
    static let caldav = CalDAVSource.caldav
    /// Apple's calendar properties (calendar-color), which Nextcloud, Radicale, Fastmail and iCloud keep.
    static let apple = "http://apple.com/ns/ical/"
    /// CalendarServer's getctag.
    static let calendarServer = "http://calendarserver.org/ns/"
}
