/// Default value types of the RFC 5545 / RFC 7986 properties (others are "unknown").
/// Shared by the xCal/jCal importers and exporters.
public enum ICalValueTypes {
    public static let defaults: [String: String] = [
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

    public static func defaultType(of property: String) -> String {
        defaults[property] ?? "unknown"
    }

    /// Every value type name RFC 5545 defines, plus "unknown".
    public static let known: Set<String> = [
        "binary", "boolean", "cal-address", "date", "date-time", "duration", "float", "integer", "period", "recur",
        "text", "time", "uri", "utc-offset", "unknown",
    ]

    /// xCal types of parameter values (RFC 6321 schema); the others are text.
    public static let parameterTypes: [String: String] = [
        "ALTREP": "uri", "DIR": "uri", "DELEGATED-FROM": "cal-address", "DELEGATED-TO": "cal-address",
        "MEMBER": "cal-address", "SENT-BY": "cal-address", "RSVP": "boolean",
    ]

    /// Recur parts whose values are integers (jCal writes them as numbers).
    public static let numericRecurParts: Set<String> = [
        "count", "interval", "bysecond", "byminute", "byhour", "bymonthday", "byyearday", "byweekno", "bymonth", "bysetpos",
    ]
}
