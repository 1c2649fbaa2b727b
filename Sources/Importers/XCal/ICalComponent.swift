import Pipeline

/// An iCalendar component as xCal and jCal carry it, before it becomes an `Event`: the XML and JSON
/// forms are decoded into this, with every value already turned into its iCalendar text form
/// ("2006-01-02T12:00:00" becomes "20060102T120000"), so one builder makes the same events from both.
struct ICalComponent: Hashable {
    /// Upper case: "VEVENT", "VALARM".
    var name: String
    var properties: [ICalProperty]
    var components: [ICalComponent]
    /// Where the component starts, for messages (a line for xCal, a JSON path for jCal).
    var location: SourceLocation?

    init(name: String, properties: [ICalProperty] = [], components: [ICalComponent] = [], location: SourceLocation? = nil) {
        self.name = name
        self.properties = properties
        self.components = components
        self.location = location
    }
}

/// One property: its name, parameters, value type and values in iCalendar text form (text unescaped).
struct ICalProperty: Hashable {
    /// Upper case: "DTSTART", "X-WR-CALNAME".
    var name: String
    /// Names upper case; the VALUE parameter is never here (the type is `valueType`).
    var parameters: [Parameter]
    /// Lower case RFC 5545 type name: "date-time", "text", "recur", ..., or "unknown".
    var valueType: String
    var values: [String]

    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }
}

/// Default value types of the RFC 5545 / RFC 7986 properties (others are "unknown").
enum ICalValueTypes {
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

    static func defaultType(of property: String) -> String {
        defaults[property] ?? "unknown"
    }

    /// Every value type name RFC 5545 defines, plus "unknown".
    static let known: Set<String> = [
        "binary", "boolean", "cal-address", "date", "date-time", "duration", "float", "integer", "period", "recur",
        "text", "time", "uri", "utc-offset", "unknown",
    ]
}
