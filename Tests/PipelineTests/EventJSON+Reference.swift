import Foundation
@testable import Exporters
@testable import Pipeline

/// calpipe's JSON form of events, occurrences and day entries as `JSONValue` trees: the reference the byte writer
/// (`JSONBytes+Events`) is compared with, member by member (JSONBytesTests). Moved here from Sources: the sinks
/// write the form only through `JSONBytes`.
extension EventJSON {
    /// The event in calpipe's format. Keys always in the same order; absent optional fields are left out.
    static func event(_ e: Event) -> JSONValue {
        var o = JSONObject()
        o["uid"] = .string(e.uid)
        if let v = e.title { o["title"] = .string(v) }
        if let v = e.description { o["description"] = .string(v) }
        if let v = e.location { o["location"] = .string(v) }
        if let c = e.coordinate { o["geo"] = coordinate(c) }
        if let p = e.organizer { o["organizer"] = person(p) }
        if !e.attendees.isEmpty { o["attendees"] = .array(e.attendees.map(person)) }
        if !e.categories.isEmpty { o["categories"] = .array(e.categories.map { .string($0) }) }
        if let v = e.color { o["color"] = .string(v) }
        if let v = e.url { o["url"] = .string(v) }
        if let v = e.status { o["status"] = .string(v.lowercased()) }
        writeTimes(start: e.start, end: e.endSpec, into: &o)
        writeInstants(start: e.start, end: e.end, into: &o)
        if !e.recurrence.rules.isEmpty { o["rrule"] = list(e.recurrence.rules.map(\.text)) }
        if !e.recurrence.exceptionRules.isEmpty { o["exrule"] = list(e.recurrence.exceptionRules.map(\.text)) }
        if !e.recurrence.dates.isEmpty { o["rdate"] = .array(e.recurrence.dates.map { .string(text(of: $0)) }) }
        if !e.recurrence.exceptionDates.isEmpty { o["exdate"] = .array(e.recurrence.exceptionDates.map { .string(text(of: $0)) }) }
        if let r = e.recurrenceID {
            o["recurrence_id"] = .string(text(of: r.time))
            if r.thisAndFuture { o["recurrence_range"] = .string("THISANDFUTURE") }
        }
        if !e.otherProperties.isEmpty { o["properties"] = .array(e.otherProperties.map(property)) }
        return .object(o)
    }

    /// One occurrence: the event's fields with this instance's start and end.
    static func occurrence(_ occ: Occurrence, zone: Zone) -> JSONValue {
        guard case .object(var o) = event(occ.event) else { return .null }
        for key in ["start", "end", "duration", "timezone", "end_timezone", "all_day", "starts_at", "ends_at", "floating", "rrule", "exrule", "rdate", "exdate", "recurrence_range"] { o[key] = nil }
        var out = JSONObject()
        for m in o.members where m.key != "recurrence_id" { out[m.key] = m.value }
        writeTimes(start: occ.start, end: .end(occ.end), into: &out)
        if let r = occ.recurrenceID { out["recurrence_id"] = .string(text(of: r)) }
        if case .floating = occ.start {
            writeInstants(start: occ.start, end: occ.end, into: &out)
        } else {
            let (s, e) = occ.interval(in: zone)
            out["starts_at"] = .string(instant(s, zone: zone, allDay: occ.isAllDay, date: occ.start))
            out["ends_at"] = .string(instant(e, zone: zone, allDay: occ.isAllDay, date: occ.end))
        }
        return .object(out)
    }

    /// One agenda row (a view model for an app's agenda list).
    static func dayEntry(_ d: DayEntry, zone: Zone) -> JSONValue {
        let e = d.event
        var o = JSONObject()
        o["id"] = .string(d.stableID)
        o["uid"] = .string(e.uid)
        o["title"] = e.title.map { .string($0) } ?? .null
        o["description"] = e.description.map { .string($0) } ?? .null
        o["location"] = e.location.map { .string($0) } ?? .null
        if let c = e.coordinate { o["geo"] = coordinate(c) }
        o["url"] = e.url.map { .string($0) } ?? .null
        // The event's own colour, else its calendar's (`Event.calendarColorKey`, as the readers keep it).
        o["color"] = (e.color ?? e.metadata[Event.calendarColorKey]).map { .string($0) } ?? .null
        o["all_day"] = .bool(d.allDay)
        if d.allDay {
            o["start"] = .null
            o["end"] = .null
        } else {
            o["start"] = .string(d.start.shortTimeText)
            o["end"] = .string(d.end.date > d.day ? "24:00" : d.end.shortTimeText)
        }
        o["duration_minutes"] = .number(Double(d.durationSeconds / 60))
        o["starts_at"] = .string(d.occurrence.isAllDay ? d.day.iso8601 : CivilDateTime(secondsSinceEpoch: d.start.secondsSinceEpoch).iso8601 + Zone.offsetText(zone.offset(atUTC: d.startUTC)))
        o["ends_at"] = .string(d.occurrence.isAllDay ? d.day.adding(days: 1).iso8601 : d.end.iso8601 + Zone.offsetText(zone.offset(atUTC: d.endUTC)))
        o["part"] = .number(Double(d.part))
        o["parts"] = .number(Double(d.parts))
        if let p = e.organizer { o["organizer"] = person(p) }
        o["attendees"] = .array(e.attendees.map { a in
            guard case .object(var p) = person(a) else { return .null }
            if let initials = a.initials { p["initials"] = .string(initials) }
            return .object(p)
        })
        o["attendee_count"] = .number(Double(e.attendees.count))
        if !e.categories.isEmpty { o["categories"] = .array(e.categories.map { .string($0) }) }
        o["status"] = e.status.map { .string($0.lowercased()) } ?? .null
        let source = e.metadata["source"] ?? ""
        o["source"] = .string(source)
        o["calendar"] = .string(e.metadata[calendarKey] ?? source)
        if let r = d.occurrence.recurrenceID { o["recurrence_id"] = .string(text(of: r)) }
        if let f = d.forecast { o["forecast"] = weather(DayWeather(result: f, placeName: e.location)) }
        return .object(o)
    }

    /// The weather object of a day or an entry (docs/json-format.md); nil: no forecast stage ran.
    static func weather(_ w: DayWeather?) -> JSONValue {
        guard let w else { return .object(JSONObject([("available", .bool(false)), ("reason", .string("no-forecast"))])) }
        switch w.result {
        case .missing(let reason):
            var o = JSONObject([("available", .bool(false)), ("reason", .string(reason))])
            if let name = w.placeName { o["place"] = .string(name) }
            return .object(o)
        case .forecast(let f, let place):
            var o = JSONObject()
            o["available"] = .bool(true)
            o["provider"] = .string(f.provider)
            o["place"] = w.placeName.map { .string($0) } ?? .null
            o["latitude"] = .number(place.latitude)
            o["longitude"] = .number(place.longitude)
            o["weather_code"] = f.weatherCode.map { .number(Double($0)) } ?? .null
            o["icon"] = f.icon.map { .string($0) } ?? .null
            o["summary"] = f.summary.map { .string($0) } ?? .null
            addMeasures(f, to: &o)
            o["units"] = .string(f.units)
            o["fetched_at"] = f.fetchedAt.map { .string(CivilDateTime(secondsSinceEpoch: $0).iso8601 + "Z") } ?? .null
            return .object(o)
        }
    }

    static func forecast(_ result: ForecastResult) -> JSONValue {
        switch result {
        case .missing(let reason):
            return .object(JSONObject([("available", .bool(false)), ("reason", .string(reason))]))
        case .forecast(let f, let place):
            var o = JSONObject()
            o["available"] = .bool(true)
            o["provider"] = .string(f.provider)
            o["units"] = .string(f.units)
            o["latitude"] = .number(place.latitude)
            o["longitude"] = .number(place.longitude)
            o["weather_code"] = f.weatherCode.map { .number(Double($0)) } ?? .null
            o["summary"] = f.summary.map { .string($0) } ?? .null
            addMeasures(f, to: &o)
            return .object(o)
        }
    }

    // MARK: Parts

    /// The day's measures, in the order both weather forms write them.
    private static func addMeasures(_ f: DailyForecast, to o: inout JSONObject) {
        o["temperature_max"] = f.temperatureMax.map { .number($0) } ?? .null
        o["temperature_min"] = f.temperatureMin.map { .number($0) } ?? .null
        o["precipitation_probability"] = f.precipitationProbability.map { .number($0) } ?? .null
        o["precipitation"] = f.precipitationAmount.map { .number($0) } ?? .null
        o["wind_speed_max"] = f.windSpeedMax.map { .number($0) } ?? .null
    }

    static func writeTimes(start: EventTime, end: Event.EndSpec?, into o: inout JSONObject) {
        o["start"] = .string(text(of: start))
        if start.isDate { o["all_day"] = .bool(true) }
        if case .zoned(_, let z) = start { o["timezone"] = .string(z.identifier) }
        switch end {
        case .end(let t):
            o["end"] = .string(text(of: t))
            if case .zoned(_, let ez) = t, ez.identifier != start.zone?.identifier { o["end_timezone"] = .string(ez.identifier) }
        case .duration(let d): o["duration"] = .string(d.iCalendarText)
        case nil: break
        }
    }

    /// "starts_at" and "ends_at" of an event: RFC 3339 in the times' own zones (`EventTime.iso8601`: local time
    /// with the zone's offset, "Z" for UTC, dates as dates), so a reader needs no VTIMEZONE; floating times have
    /// no offset and the record says `"floating": true`.
    static func writeInstants(start: EventTime, end: EventTime, into o: inout JSONObject) {
        o["starts_at"] = .string(start.iso8601)
        o["ends_at"] = .string(end.iso8601)
        if case .floating = start { o["floating"] = .bool(true) }
    }

    static func instant(_ utc: Int64, zone: Zone, allDay: Bool, date: EventTime) -> String {
        if allDay, case .date(let d) = date { return d.iso8601 }
        return zone.local(fromUTC: utc).iso8601 + Zone.offsetText(zone.offset(atUTC: utc))
    }

    static func list(_ items: [String]) -> JSONValue {
        items.count == 1 ? .string(items[0]) : .array(items.map { .string($0) })
    }

    static func coordinate(_ c: Coordinate) -> JSONValue {
        .object(JSONObject([("latitude", .number(c.latitude)), ("longitude", .number(c.longitude))]))
    }

    static func person(_ p: Attendee) -> JSONValue {
        var o = JSONObject()
        if let v = p.name { o["name"] = .string(v) }
        if let v = p.email { o["email"] = .string(v) }
        if let v = p.role { o["role"] = .string(v) }
        if let v = p.status { o["status"] = .string(v) }
        return .object(o)
    }

    static func property(_ p: RawProperty) -> JSONValue {
        var o = JSONObject()
        o["name"] = .string(p.name)
        if !p.parameters.isEmpty {
            o["parameters"] = .object(JSONObject(p.parameters.map { ($0.name, $0.values.count == 1 ? .string($0.values[0]) : .array($0.values.map { .string($0) })) }))
        }
        o["value"] = .string(p.value)
        return .object(o)
    }
}
