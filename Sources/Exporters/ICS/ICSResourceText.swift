import Pipeline

/// One calendar object resource (RFC 4791 4.1): a VCALENDAR holding the events of one UID (a series and its
/// overrides, or one event), with a VTIMEZONE for each zone they use. What the `caldav` sink PUTs. The same
/// writer as the `ics` sink's, so a resource says what an exported file would.
package enum ICSResourceText {
    /// The resource's bytes. `stamp` is the DTSTAMP (UTC seconds) of events that carry none; `openEndedYear`
    /// the last year of VTIMEZONE data for series with no end.
    package static func calendar(_ events: [Event], stamp: Int64, openEndedYear: Int = 2037) -> [UInt8] {
        var writer = ICalEventWriter(output: ICSLineWriter(), openEndedYear: openEndedYear, stamp: stamp)
        for event in events { writer.write(event) }
        var lines = ICSLineWriter()
        lines.begin("VCALENDAR")
        lines.property("VERSION", [], "2.0")
        lines.property("PRODID", [], ICalCalendarHead.productID)
        for used in writer.zonesUsed {
            let years = used.firstYear <= used.lastYear ? used.firstYear...used.lastYear : 1970...1970
            ICSTimeZoneWriter.write(used.zone, tzid: used.tzid, years: years, to: &lines)
        }
        var bytes = lines.bytes
        bytes += writer.output.bytes
        var tail = ICSLineWriter()
        tail.end("VCALENDAR")
        return bytes + tail.bytes
    }
}
