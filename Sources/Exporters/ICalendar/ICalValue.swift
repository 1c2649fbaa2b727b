import Pipeline

/// The typed value of one property, as the calendar writers receive it: made directly from an `Event`
/// (`ICalEventWriter`) and rendered by each format in its own syntax (iCalendar text, xCal elements, jCal
/// JSON). Nothing is formatted as iCalendar text first and read back.
enum ICalValue {
    /// One TEXT value, unescaped.
    case text(String)
    /// A list of TEXT values (CATEGORIES).
    case texts([String])
    /// A value written as is in every format, with its value type ("uri", "cal-address", ...). UID is one:
    /// iCalendar has always been written without TEXT escaping for it.
    case verbatim(type: StaticString, String)
    /// DATE (`.date`) or DATE-TIME (UTC, zoned, floating). A zone's TZID is among the parameters.
    case time(EventTime)
    /// PERIOD with an explicit end.
    case period(EventTime, end: EventTime)
    /// PERIOD with a duration.
    case periodWithDuration(EventTime, CalDuration)
    case duration(CalDuration)
    case recur(RecurrenceRule)
    /// GEO: latitude and longitude.
    case geo(Double, Double)
    /// UTC-OFFSET in seconds.
    case utcOffset(Int)
    /// A kept property's value in iCalendar text form (what an importer stored): its type comes from its
    /// VALUE parameter or the property's default type, and xCal/jCal convert it (`ICalRawValue`).
    case raw(String)
}

/// What a calendar writer receives: components opened and closed, properties in between. `ICalEventWriter`
/// walks events (and `ICSTimeZoneWriter` zones) into one of these; the iCalendar, xCal and jCal writers
/// render them.
protocol ICalContentWriter {
    mutating func begin(_ name: String)
    mutating func end(_ name: String)
    /// `name` upper case as iCalendar writes it; parameters in order (TZID of times among them).
    mutating func property(_ name: String, _ parameters: [Parameter], _ value: ICalValue)
}

/// Names of components and properties: iana-tokens and x-names (RFC 5545 3.1: letters, digits and "-").
/// Property names from other formats are repaired by every writer alike ("x_note" is X-NOTE); a component
/// name with no letter or digit at all (`BEGIN:` with nothing after it) cannot be repaired into anything
/// meaningful and is left out.
enum ICalName {
    /// A component name a writer can write: at least one letter or digit.
    static func isWritableComponentName(_ name: String) -> Bool {
        name.utf8.contains { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
    }

    /// Upper case, characters other than letters, digits and "-" replaced by "-".
    static func repaired(_ name: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for c in name.utf8 {
            switch c {
            case 0x61...0x7A: bytes.append(c - 32)
            case 0x41...0x5A, 0x30...0x39, 0x2D: bytes.append(c)
            default: bytes.append(0x2D)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
