import Foundation
import Pipeline

/// Writes events as VEVENTs and remembers which zones they used (and for which years), so the calendar can
/// carry one VTIMEZONE per zone. Fields are written in a fixed order, then the kept unknown properties in their
/// source order, then the kept components (VALARM).
public struct ICSEventWriter {
    public var lines = ICSLineWriter()
    /// Zones used, in first-use order, with the TZID written for each and the years their times fall in.
    public private(set) var zonesUsed: [(zone: Zone, tzid: String, firstYear: Int, lastYear: Int)] = []
    /// Series with no end are given VTIMEZONE data up to at least this year.
    public var openEndedYear: Int

    /// DTSTAMP for events that carry none (nor LAST-MODIFIED/CREATED): fixed, so output is deterministic.
    public static let fallbackStamp = "19700101T000000Z"

    public init(openEndedYear: Int = 2037) {
        self.openEndedYear = openEndedYear
    }

    /// The source event as it is: with its recurrence data and RECURRENCE-ID.
    public mutating func write(_ event: Event) {
        writeEvent(event, start: event.start, endSpec: event.endSpec, recurrenceID: event.recurrenceID, recurrence: event.recurrence)
    }

    /// One occurrence as a VEVENT of its own: DTSTART/DTEND of the instance and RECURRENCE-ID when it is part of a series.
    public mutating func write(_ occurrence: Occurrence) {
        let rid = occurrence.recurrenceID.map { RecurrenceID(time: $0) } ?? occurrence.event.recurrenceID
        writeEvent(occurrence.event, start: occurrence.start, endSpec: .end(occurrence.end), recurrenceID: rid, recurrence: Recurrence())
    }

    private mutating func writeEvent(_ event: Event, start: EventTime, endSpec: Event.EndSpec?, recurrenceID: RecurrenceID?, recurrence: Recurrence) {
        let fp = event.fieldParameters
        func params(_ name: String) -> [Parameter] { fp[name] ?? [] }
        lines.begin("VEVENT")
        lines.property("UID", params("UID"), event.uid)
        time("DTSTART", start, params("DTSTART"))
        switch endSpec {
        case .end(let e): time("DTEND", e, params("DTEND"))
        case .duration(let d): lines.property("DURATION", params("DURATION"), d.iCalendarText)
        case nil: break
        }
        if let recurrenceID {
            var extra = params("RECURRENCE-ID")
            if recurrenceID.thisAndFuture { extra.append(Parameter("RANGE", "THISANDFUTURE")) }
            time("RECURRENCE-ID", recurrenceID.time, extra)
        }
        for (i, rule) in recurrence.rules.enumerated() { lines.property("RRULE", i == 0 ? params("RRULE") : [], rule.text) }
        for rule in recurrence.exceptionRules { lines.property("EXRULE", [], rule.text) }
        if !recurrence.rules.isEmpty || !recurrence.dates.isEmpty { noteRecurrenceEnd(recurrence, start: start) }
        for (i, date) in recurrence.dates.enumerated() {
            let extra = i == 0 ? params("RDATE") : []
            switch date {
            case .time(let t): time("RDATE", t, extra)
            case .period(let s, let e):
                // TZID applies to both ends; a UTC end keeps its "Z".
                let p = extra + zoneParameters(s) + [Parameter("VALUE", "PERIOD")]
                note(e)
                lines.property("RDATE", p, BasicDateText.format(s) + "/" + BasicDateText.format(e))
            case .periodWithDuration(let s, let d):
                lines.property("RDATE", extra + zoneParameters(s) + [Parameter("VALUE", "PERIOD")], BasicDateText.format(s) + "/" + d.iCalendarText)
            }
        }
        for (i, t) in recurrence.exceptionDates.enumerated() { time("EXDATE", t, i == 0 ? params("EXDATE") : []) }
        if let v = event.title { lines.property("SUMMARY", params("SUMMARY"), ICSTextEscaping.escape(v)) }
        if let v = event.description { lines.property("DESCRIPTION", params("DESCRIPTION"), ICSTextEscaping.escape(v)) }
        if let v = event.location { lines.property("LOCATION", params("LOCATION"), ICSTextEscaping.escape(v)) }
        if let c = event.coordinate { lines.property("GEO", params("GEO"), Self.number(c.latitude) + ";" + Self.number(c.longitude)) }
        if let o = event.organizer { person("ORGANIZER", o) }
        for a in event.attendees { person("ATTENDEE", a) }
        if !event.categories.isEmpty {
            lines.property("CATEGORIES", params("CATEGORIES"), event.categories.map(ICSTextEscaping.escape).joined(separator: ","))
        }
        if let v = event.color { lines.property("COLOR", params("COLOR"), ICSTextEscaping.escape(v)) }
        if let v = event.url { lines.property("URL", params("URL"), v) }
        if let v = event.status { lines.property("STATUS", params("STATUS"), ICSTextEscaping.escape(v)) }
        // The event's own DTSTAMP stays where it was among the kept properties; an event without one gets one
        // derived from its data (LAST-MODIFIED, CREATED, else a fixed value) in front of them, so re-reading and
        // writing again gives the same bytes.
        let others = event.otherProperties
        if !others.contains(where: { $0.name.uppercased() == "DTSTAMP" }) {
            let derived = others.first { ["LAST-MODIFIED", "CREATED"].contains($0.name.uppercased()) && $0.value.hasSuffix("Z") }
            lines.property("DTSTAMP", [], derived?.value ?? Self.fallbackStamp)
        }
        for p in others { lines.property(p.name, p.parameters, p.value) }
        for c in event.components { lines.component(c) }
        lines.end("VEVENT")
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
        lines.property(name, p, address.contains(":") || address.isEmpty ? address : "mailto:" + address)
    }

    /// A DATE / DATE-TIME property: VALUE=DATE for dates, TZID for zoned times, "Z" for UTC.
    private mutating func time(_ name: String, _ t: EventTime, _ extra: [Parameter]) {
        note(t)
        var p = extra
        if t.isDate { p.append(Parameter("VALUE", "DATE")) }
        p.append(contentsOf: zoneParameters(t))
        lines.property(name, p, BasicDateText.format(t))
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
