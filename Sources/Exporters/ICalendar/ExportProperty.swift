/// A kept property in the typed form xCal and jCal write, converted from its iCalendar text by `ICalRawValue`.
struct ExportProperty {
    /// As written in iCalendar ("X-FOO", "DTSTAMP"); the writers lower-case it.
    var name: String
    /// Names, values, and the xCal value type of each parameter ("text", "cal-address", ...); VALUE removed.
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
