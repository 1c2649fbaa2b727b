import Foundation
import Pipeline

/// Walks events and occurrences into typed properties for a calendar writer (`ICalContentWriter`): the one
/// place that decides what a VEVENT carries, shared by the `ics`, `xcal` and `jcal` sinks. Remembers which
/// zones the events used (and for which years), so the calendar can carry one VTIMEZONE per zone.
/// Fields are written in a fixed order, then the kept unknown properties in their source order, then the
/// kept components (VALARM).
struct ICalEventWriter<Output: ICalContentWriter> {
    var output: Output
    /// Zones used, in first-use order, with the TZID written for each and the years their times fall in.
    private(set) var zonesUsed: [(zone: Zone, tzid: String, firstYear: Int, lastYear: Int)] = []
    /// Series with no end are given VTIMEZONE data up to at least this year.
    var openEndedYear: Int
    /// DTSTAMP (UTC seconds) for events that carry none (nor LAST-MODIFIED/CREATED): the run's time
    /// (`SOURCE_DATE_EPOCH` fixes it), so output is deterministic for a given run time.
    var stamp: Int64
    /// Names of kept components left out because no iCalendar name can be made of them (empty, or without
    /// a letter or digit): a writer would make a malformed file of them (`BEGIN:`, `<>`).
    private(set) var skippedNames: [String] = []

    init(output: Output, openEndedYear: Int = 2037, stamp: Int64 = 0) {
        self.output = output
        self.openEndedYear = openEndedYear
        self.stamp = stamp
    }

    /// The source event as it is: with its recurrence data and RECURRENCE-ID.
    mutating func write(_ event: Event) {
        writeEvent(event, start: event.start, endSpec: event.endSpec, recurrenceID: event.recurrenceID, recurrence: event.recurrence)
    }

    /// One occurrence as a VEVENT of its own: DTSTART/DTEND of the instance and RECURRENCE-ID when it is part of a series.
    mutating func write(_ occurrence: Occurrence) {
        let rid = occurrence.recurrenceID.map { RecurrenceID(time: $0) } ?? occurrence.event.recurrenceID
        writeEvent(occurrence.event, start: occurrence.start, endSpec: .end(occurrence.end), recurrenceID: rid, recurrence: Recurrence())
    }

    private mutating func writeEvent(_ event: Event, start: EventTime, endSpec: Event.EndSpec?, recurrenceID: RecurrenceID?, recurrence: Recurrence) {
        let fp = event.fieldParameters
        func params(_ name: String) -> [Parameter] { fp.isEmpty ? [] : fp[name] ?? [] }
        output.begin("VEVENT")
        output.property("UID", params("UID"), .verbatim(type: "text", event.uid))
        time("DTSTART", start, params("DTSTART"))
        switch endSpec {
        case .end(let e): time("DTEND", e, params("DTEND"))
        case .duration(let d): output.property("DURATION", params("DURATION"), .duration(d))
        case nil: break
        }
        if let recurrenceID {
            var extra = params("RECURRENCE-ID")
            if recurrenceID.thisAndFuture { extra.append(Parameter("RANGE", "THISANDFUTURE")) }
            time("RECURRENCE-ID", recurrenceID.time, extra)
        }
        for (i, rule) in recurrence.rules.enumerated() { output.property("RRULE", i == 0 ? params("RRULE") : [], .recur(rule)) }
        for rule in recurrence.exceptionRules { output.property("EXRULE", [], .recur(rule)) }
        if !recurrence.rules.isEmpty || !recurrence.dates.isEmpty { noteRecurrenceEnd(recurrence, start: start) }
        for (i, date) in recurrence.dates.enumerated() {
            let extra = i == 0 ? params("RDATE") : []
            switch date {
            case .time(let t): time("RDATE", t, extra)
            case .period(let s, let e):
                // TZID applies to both ends; a UTC end keeps its "Z".
                note(s)
                note(e)
                output.property("RDATE", extra + zoneParameters(s), .period(s, end: e))
            case .periodWithDuration(let s, let d):
                note(s)
                output.property("RDATE", extra + zoneParameters(s), .periodWithDuration(s, d))
            }
        }
        for (i, t) in recurrence.exceptionDates.enumerated() { time("EXDATE", t, i == 0 ? params("EXDATE") : []) }
        if let v = event.title { output.property("SUMMARY", params("SUMMARY"), .text(v)) }
        if let v = event.description { output.property("DESCRIPTION", params("DESCRIPTION"), .text(v)) }
        if let v = event.location { output.property("LOCATION", params("LOCATION"), .text(v)) }
        if let c = event.coordinate { output.property("GEO", params("GEO"), .geo(c.latitude, c.longitude)) }
        if let o = event.organizer { person("ORGANIZER", o) }
        for a in event.attendees { person("ATTENDEE", a) }
        if !event.categories.isEmpty { output.property("CATEGORIES", params("CATEGORIES"), .texts(event.categories)) }
        if let v = event.color { colour(v, params("COLOR")) }
        if let v = event.url { output.property("URL", params("URL"), .verbatim(type: "uri", v)) }
        if let v = event.status { output.property("STATUS", params("STATUS"), .text(v)) }
        // The event's own DTSTAMP stays where it was among the kept properties; an event without one gets one
        // derived from its data (LAST-MODIFIED, CREATED, else the run's time) in front of them.
        let others = event.otherProperties
        if !others.contains(where: { Self.named($0.name, "DTSTAMP") }) {
            if let derived = others.first(where: { (Self.named($0.name, "LAST-MODIFIED") || Self.named($0.name, "CREATED")) && $0.value.hasSuffix("Z") }) {
                output.property("DTSTAMP", [], .raw(derived.value))
            } else {
                output.property("DTSTAMP", [], .time(.utc(stamp)))
            }
        }
        for p in others {
            // The colour's own property was written with COLOR from `event.color`, which a reader fills from it.
            if event.color != nil && Self.named(p.name, EventColor.exactProperty) { continue }
            output.property(p.name, p.parameters, .raw(p.value))
        }
        for c in event.components { component(c) }
        output.end("VEVENT")
    }

    /// An event's colour: COLOR holds a CSS3 colour name, as RFC 7986 says; a colour that is not a name goes
    /// there as the nearest name, and as it was into X-CALPIPE-COLOR (`EventColor.exactProperty`), which
    /// calpipe's readers prefer, so a round trip keeps "#00897B". A name stays as it was written; text that is
    /// neither a name nor "#rrggbb"/"#rgb" is written in X-CALPIPE-COLOR alone (COLOR would be invalid).
    private mutating func colour(_ value: String, _ parameters: [Parameter]) {
        let found: (name: String, exact: Bool)?
        if let last = lastColour, last.value == value {
            found = last.found
        } else {
            found = CSSColorNames.name(for: value)
            lastColour = (value, found)
        }
        let isName = found != nil && CSSColorNames.hexRGB(value.trimmingCharacters(in: .whitespaces).lowercased()) == nil
        if let found { output.property("COLOR", parameters, .text(isName ? value : found.name)) }
        if !isName { output.property(EventColor.exactProperty, [], .text(value)) }
    }

    /// The colour `colour` wrote last and its name: feeds give most events one of a few colours.
    private var lastColour: (value: String, found: (name: String, exact: Bool)?)?

    /// A kept component with its properties and nested components, its name repaired as property names are;
    /// one with no letter or digit in its name is left out with everything in it.
    mutating func component(_ c: RawComponent) {
        guard ICalName.isWritableComponentName(c.name) else { skippedNames.append(c.name); return }
        let name = ICalName.repaired(c.name)
        output.begin(name)
        for p in c.properties { output.property(p.name, p.parameters, .raw(p.value)) }
        for child in c.components { component(child) }
        output.end(name)
    }

    private static func named(_ name: String, _ expected: String) -> Bool {
        name.utf8.count == expected.utf8.count && name.uppercased() == expected
    }

    private mutating func person(_ name: String, _ a: Attendee) {
        var p: [Parameter] = []
        if let n = a.name { p.append(Parameter("CN", n)) }
        if name == "ATTENDEE" {
            if let r = a.role { p.append(Parameter("ROLE", r)) }
            if let s = a.status { p.append(Parameter("PARTSTAT", s)) }
        }
        p.append(contentsOf: a.otherParameters)
        let address = a.email ?? ""
        output.property(name, p, .verbatim(type: "cal-address", address.contains(":") || address.isEmpty ? address : "mailto:" + address))
    }

    /// A DATE / DATE-TIME property: the TZID of zoned times among the parameters.
    private mutating func time(_ name: String, _ t: EventTime, _ extra: [Parameter]) {
        note(t)
        guard case .zoned = t else { return output.property(name, extra, .time(t)) }
        output.property(name, extra + zoneParameters(t), .time(t))
    }

    private mutating func zoneParameters(_ t: EventTime) -> [Parameter] {
        guard case .zoned(_, let zone) = t else { return [] }
        return [Parameter("TZID", tzid(for: zone))]
    }

    /// Records the year of a zoned time for its zone's VTIMEZONE.
    private mutating func note(_ t: EventTime) {
        guard case .zoned(let local, let zone) = t else { return }
        let tzidText = tzid(for: zone)
        let year = local.date.year
        if let i = zonesUsed.firstIndex(where: { $0.tzid == tzidText }) {
            zonesUsed[i].firstYear = min(zonesUsed[i].firstYear, year)
            zonesUsed[i].lastYear = max(zonesUsed[i].lastYear, year)
        }
    }

    /// The TZID for a zone: its identifier, made unique when two different zones share one (two files with
    /// different VTIMEZONEs of the same name).
    private mutating func tzid(for zone: Zone) -> String {
        if let hit = zonesUsed.first(where: { $0.zone == zone }) { return hit.tzid }
        var name = zone.identifier
        var n = 2
        while zonesUsed.contains(where: { $0.tzid == name }) { name = zone.identifier + " (\(n))"; n += 1 }
        zonesUsed.append((zone, name, Int.max, Int.min))
        return name
    }

    /// A series' zone data must reach its last instance: UNTIL's year, or `openEndedYear` for open series.
    private mutating func noteRecurrenceEnd(_ recurrence: Recurrence, start: EventTime) {
        guard case .zoned(let local, _) = start else { return }
        var last = local.date.year
        for rule in recurrence.rules {
            switch rule.end {
            case .until(let t): last = max(last, t.localTime.date.year + 1)
            case .count(let n):
                // At most n periods of INTERVAL units after the start (BY parts only pick inside a period).
                let periods = Double(n) * Double(rule.interval)
                let perYear: Double
                switch rule.frequency {
                case .yearly: perYear = 1
                case .monthly: perYear = 12
                case .weekly: perYear = 52
                case .daily: perYear = 365
                case .hourly: perYear = 365 * 24
                case .minutely: perYear = 365 * 24 * 60
                case .secondly: perYear = 365 * 24 * 3600
                }
                last = max(last, min(openEndedYear, local.date.year + Int((periods / perYear).rounded(.up)) + 1))
            case .never: last = max(last, openEndedYear)
            }
        }
        for d in recurrence.dates { last = max(last, d.start.localTime.date.year) }
        note(start.withLocalTime(CivilDateTime(date: CivilDate(year: last, month: 12, day: 31))))
    }

    /// A FLOAT value: plain decimal notation, never an exponent.
    static func number(_ x: Double) -> String {
        let plain = "\(x)"
        if !plain.contains("e") {
            return plain.hasSuffix(".0") ? String(plain.dropLast(2)) : plain
        }
        var fixed = String(format: "%.12f", x)
        while fixed.hasSuffix("0") { fixed.removeLast() }
        if fixed.hasSuffix(".") { fixed.removeLast() }
        return fixed
    }
}
