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
