import Pipeline

/// Writes a VTIMEZONE for a `Zone` covering the given years: one STANDARD or DAYLIGHT block per offset change
/// in that span (each a single onset with DTSTART, TZOFFSETFROM, TZOFFSETTO), preceded by the onset of the
/// offset in force when the span starts. A block is DAYLIGHT when its offset is larger than the one before.
enum ICSTimeZoneWriter {
    static func write<Output: ICalContentWriter>(_ zone: Zone, tzid: String, years: ClosedRange<Int>, to lines: inout Output) {
        // Two days of margin on both sides: local times near New Year may fall on either side in UTC.
        let low = CivilDateTime(year: years.lowerBound, month: 1, day: 1).secondsSinceEpoch - 2 * 86_400
        let high = CivilDateTime(year: years.upperBound + 1, month: 1, day: 1).secondsSinceEpoch + 2 * 86_400
        lines.begin("VTIMEZONE")
        lines.property("TZID", [], .text(tzid))
        // The offset in force at the start of the span, and the change that brought it.
        var first = 0
        while first < zone.transitions.count, zone.transitions[first] <= low { first += 1 }
        if first > 0 {
            block(zone, index: first - 1, to: &lines)
        } else {
            let offset = Int(zone.offsets[0])
            lines.begin("STANDARD")
            lines.property("DTSTART", [], .raw("16010101T000000"))
            lines.property("TZOFFSETFROM", [], .utcOffset(offset))
            lines.property("TZOFFSETTO", [], .utcOffset(offset))
            lines.end("STANDARD")
        }
        var i = first
        while i < zone.transitions.count, zone.transitions[i] < high {
            block(zone, index: i, to: &lines)
            i += 1
        }
        lines.end("VTIMEZONE")
    }

    /// The block for transition `index`: from offsets[index] to offsets[index + 1].
    private static func block<Output: ICalContentWriter>(_ zone: Zone, index: Int, to lines: inout Output) {
        let from = Int(zone.offsets[index])
        let to = Int(zone.offsets[index + 1])
        let name = to > from ? "DAYLIGHT" : "STANDARD"
        let local = CivilDateTime(secondsSinceEpoch: zone.transitions[index] + Int64(from))
        lines.begin(name)
        lines.property("DTSTART", [], .time(.floating(local)))
        lines.property("TZOFFSETFROM", [], .utcOffset(from))
        lines.property("TZOFFSETTO", [], .utcOffset(to))
        lines.end(name)
    }
}
