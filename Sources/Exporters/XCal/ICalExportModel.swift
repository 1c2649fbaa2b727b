import Pipeline

/// A calendar component in the typed form xCal and jCal write, read back from the iCalendar text that
/// `ICSEventWriter` and `ICSTimeZoneWriter` produce, so all three exports carry exactly the same data.
struct ExportComponent {
    /// Lower case: "vevent".
    var name: String
    var properties: [ExportProperty] = []
    var components: [ExportComponent] = []
}

struct ExportProperty {
    /// Lower case: "dtstart".
    var name: String
    /// Lower-case names, values, and the xCal value type of each parameter ("text", "cal-address", ...).
    var parameters: [(name: String, type: String, values: [String])]
    /// The value type: "date-time", "text", "unknown", ...
    var type: String
    var values: [ExportValue]
}

/// One value in the extended forms of RFC 6321 / RFC 7265 ("2006-01-02T12:00:00", "-05:00").
enum ExportValue {
    case string(String)
    case number(String)
    case boolean(Bool)
    /// Start, and an end or a duration.
    case period(start: String, end: String?, duration: String?)
    /// Lower-case part names with their values, in RFC 5545 order.
    case recur([(name: String, values: [String])])
    /// GEO: latitude and longitude.
    case geo(String, String)
    /// REQUEST-STATUS: code, description and optional data.
    case structured([String])
}

enum ICalExportTypes {
    /// Default value types of the RFC 5545 / RFC 7986 properties (the same table the xCal importer uses).
    static let defaults: [String: String] = [
        "CALSCALE": "text", "METHOD": "text", "PRODID": "text", "VERSION": "text", "CATEGORIES": "text", "CLASS": "text",
        "COMMENT": "text", "DESCRIPTION": "text", "LOCATION": "text", "RESOURCES": "text", "STATUS": "text",
        "SUMMARY": "text", "TZID": "text", "TZNAME": "text", "CONTACT": "text", "RELATED-TO": "text", "UID": "text",
        "ACTION": "text", "REQUEST-STATUS": "text", "COLOR": "text", "NAME": "text", "TRANSP": "text",
        "ATTACH": "uri", "TZURL": "uri", "URL": "uri", "IMAGE": "uri", "CONFERENCE": "uri", "SOURCE": "uri",
        "GEO": "float", "PERCENT-COMPLETE": "integer", "PRIORITY": "integer", "REPEAT": "integer", "SEQUENCE": "integer",
        "COMPLETED": "date-time", "DTEND": "date-time", "DUE": "date-time", "DTSTART": "date-time",
        "RECURRENCE-ID": "date-time", "EXDATE": "date-time", "RDATE": "date-time", "CREATED": "date-time",
        "DTSTAMP": "date-time", "LAST-MODIFIED": "date-time", "ACKNOWLEDGED": "date-time",
        "DURATION": "duration", "TRIGGER": "duration", "REFRESH-INTERVAL": "duration", "FREEBUSY": "period",
        "TZOFFSETFROM": "utc-offset", "TZOFFSETTO": "utc-offset", "ATTENDEE": "cal-address", "ORGANIZER": "cal-address",
        "RRULE": "recur", "EXRULE": "recur",
    ]

    static let knownTypes: Set<String> = [
        "binary", "boolean", "cal-address", "date", "date-time", "duration", "float", "integer", "period", "recur",
        "text", "time", "uri", "utc-offset",
    ]

    /// xCal types of parameter values (RFC 6321 schema); the others are text.
    static let parameterTypes: [String: String] = [
        "ALTREP": "uri", "DIR": "uri", "DELEGATED-FROM": "cal-address", "DELEGATED-TO": "cal-address",
        "MEMBER": "cal-address", "SENT-BY": "cal-address", "RSVP": "boolean",
    ]

    /// Recur parts whose values are integers (jCal writes them as numbers).
    static let numericRecurParts: Set<String> = [
        "count", "interval", "bysecond", "byminute", "byhour", "bymonthday", "byyearday", "byweekno", "bymonth", "bysetpos",
    ]
}
