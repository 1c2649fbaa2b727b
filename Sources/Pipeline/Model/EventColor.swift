/// How an event's colour travels through iCalendar (ics, xCal, jCal; docs/formats.md, "Colours"). RFC 7986's
/// COLOR holds a CSS3 colour name, so a colour that is not one ("#00897B") is written there as the nearest name
/// and, exactly as it was, in `exactProperty`; calpipe's readers take the exact colour from that property in
/// preference to COLOR, so a round trip keeps it.
package enum EventColor {
    /// The X- property that carries an event's exact colour next to COLOR.
    package static let exactProperty = "X-CALPIPE-COLOR"
}
