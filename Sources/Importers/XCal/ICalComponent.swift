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
