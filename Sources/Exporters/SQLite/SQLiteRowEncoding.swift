import CalSQLite
import Pipeline

/// How model values become column values of the agenda database (see docs/sqlite-schema.md).
/// Everything here is deterministic: the same event always gives the same values, which is what lets a
/// re-run on unchanged input compare equal and change no row.
enum SQLiteRowEncoding {
    /// The content columns of `events`, in bind order (after source, uid, recurrence_id). The sync compares
    /// all of them to decide whether a row changed; `origin` is stored but not compared (see `eventValues`).
    static let eventContentColumns = [
        "this_and_future", "title", "description", "location", "latitude", "longitude",
        "organizer_name", "organizer_email", "organizer_parameters", "categories", "color", "url", "status",
        "all_day", "dtstart", "dtstart_tzid", "start_utc", "dtend", "dtend_tzid", "duration", "end_utc", "span_end_utc",
        "rrule", "exrule", "rdate", "exdate", "other_properties", "components", "field_parameters", "metadata", "source_text",
    ]

    static let occurrenceContentColumns = ["all_day", "start_utc", "end_utc", "start_local", "end_local"]

    static let dayContentColumns = ["event_id", "part", "parts", "all_day", "start_local", "end_local", "start_utc", "end_utc", "sort_key"]

    static let forecastContentColumns = [
        "status", "reason", "latitude", "longitude", "provider", "units", "weather_code", "summary",
        "temperature_max", "temperature_min", "precipitation_probability", "precipitation_amount", "wind_speed_max",
    ]

    /// The source label of an event: the runner's stamp, else the file it came from.
    static func source(of event: Event) -> String {
        event.metadata["source"] ?? event.origin?.file ?? ""
    }

    /// RECURRENCE-ID as stored in the key: ISO text of the instance it replaces, "" for none.
    static func recurrenceIDText(_ event: Event) -> String {
        event.recurrenceID?.time.iso8601 ?? ""
    }

    /// A time as ISO-8601 with its zone in brackets when it has a named one (RFC 9557): used in lists.
    static func annotated(_ time: EventTime) -> String {
        if case .zoned(_, let zone) = time { return time.iso8601 + "[" + zone.identifier + "]" }
        return time.iso8601
    }

    static func tzid(_ time: EventTime) -> SQLiteValue {
        if case .zoned(_, let zone) = time { return .text(zone.identifier) }
        return .null
    }

    static func text(_ s: String?) -> SQLiteValue { s.map(SQLiteValue.text) ?? .null }

    /// Lines joined by "\n", NULL for none.
    static func lines(_ items: [String]) -> SQLiteValue { items.isEmpty ? .null : .text(items.joined(separator: "\n")) }

    static func json(_ value: JSONValue?) -> SQLiteValue {
        guard let value else { return .null }
        return .text(JSONWriter(pretty: false).string(value))
    }

    static func parametersJSON(_ parameters: [Parameter]) -> JSONValue {
        .array(parameters.map { .object(JSONObject([("name", .string($0.name)), ("values", .array($0.values.map(JSONValue.string)))])) })
    }

    static func propertyJSON(_ p: RawProperty) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(p.name))]
        if !p.parameters.isEmpty { members.append(("parameters", parametersJSON(p.parameters))) }
        members.append(("value", .string(p.value)))
        return .object(JSONObject(members))
    }

    static func componentJSON(_ c: RawComponent) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(c.name))]
        members.append(("properties", .array(c.properties.map(propertyJSON))))
        if !c.components.isEmpty { members.append(("components", .array(c.components.map(componentJSON)))) }
        return .object(JSONObject(members))
    }

    static func recurrenceDateText(_ d: RecurrenceDate) -> String {
        switch d {
        case .time(let t): return annotated(t)
        case .period(let s, let e): return annotated(s) + "/" + annotated(e)
        case .periodWithDuration(let s, let duration): return annotated(s) + "/" + duration.iCalendarText
        }
    }

    /// The last instant the event (or series) can touch, NULL when it recurs without a known end.
    static func spanEnd(_ event: Event, startUTC: Int64, endUTC: Int64, zone: Zone) -> SQLiteValue {
        guard event.isRecurring else { return .integer(endUTC) }
        guard event.recurrence.dates.isEmpty else { return .null }
        var last = Int64.min
        for rule in event.recurrence.rules {
            guard case .until(let until) = rule.end else { return .null }
            last = max(last, until.utcSeconds(in: zone))
        }
        // The last instance starts at or before UNTIL and lasts as long as the first.
        return .integer(max(endUTC, last + (endUTC - startUTC)))
    }

    /// Values of `eventContentColumns`, in order, for an event.
    static func eventValues(_ event: Event, zone: Zone) -> [SQLiteValue] {
        let startUTC = event.start.utcSeconds(in: zone)
        let endUTC = max(startUTC, event.end.utcSeconds(in: zone))
        var dtend: EventTime?
        var duration: CalDuration?
        switch event.endSpec {
        case .end(let e)?: dtend = e
        case .duration(let d)?: duration = d
        case nil: break
        }
        var metadata = event.metadata
        metadata["source"] = nil
        let metadataJSON: JSONValue? = metadata.isEmpty ? nil
            : .object(JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        let fieldParameters: JSONValue? = event.fieldParameters.isEmpty ? nil
            : .object(JSONObject(event.fieldParameters.sorted { $0.key < $1.key }.map { ($0.key, parametersJSON($0.value)) }))
        let recurrence = event.recurrence
        return [
            .integer(event.recurrenceID?.thisAndFuture == true ? 1 : 0),
            text(event.title),
            text(event.description),
            text(event.location),
            event.coordinate.map { .real($0.latitude) } ?? .null,
            event.coordinate.map { .real($0.longitude) } ?? .null,
            text(event.organizer?.name),
            text(event.organizer?.email),
            json((event.organizer?.otherParameters).flatMap { $0.isEmpty ? nil : parametersJSON($0) }),
            json(event.categories.isEmpty ? nil : .array(event.categories.map(JSONValue.string))),
            text(event.color),
            text(event.url),
            text(event.status),
            .integer(event.isAllDay ? 1 : 0),
            .text(event.start.iso8601),
            tzid(event.start),
            .integer(startUTC),
            dtend.map { .text($0.iso8601) } ?? .null,
            dtend.map(tzid) ?? .null,
            duration.map { .text($0.iCalendarText) } ?? .null,
            .integer(endUTC),
            spanEnd(event, startUTC: startUTC, endUTC: endUTC, zone: zone),
            lines(recurrence.rules.map(\.text)),
            lines(recurrence.exceptionRules.map(\.text)),
            lines(recurrence.dates.map(recurrenceDateText)),
            lines(recurrence.exceptionDates.map(annotated)),
            json(event.otherProperties.isEmpty ? nil : .array(event.otherProperties.map(propertyJSON))),
            json(event.components.isEmpty ? nil : .array(event.components.map(componentJSON))),
            json(fieldParameters),
            json(metadataJSON),
            text(event.sourceText),
        ]
    }

    /// Values of an attendee row after event_id and position: name, email, role, status, other_parameters.
    static func attendeeValues(_ a: Attendee) -> [SQLiteValue] {
        [text(a.name), text(a.email), text(a.role), text(a.status), json(a.otherParameters.isEmpty ? nil : parametersJSON(a.otherParameters))]
    }

    /// The instance key of an occurrence in its event: the RECURRENCE-ID it has or would have, "" for a
    /// single event.
    static func instance(_ occurrence: Occurrence) -> String {
        occurrence.recurrenceID?.iso8601 ?? ""
    }

    static func occurrenceValues(_ o: Occurrence, zone: Zone) -> [SQLiteValue] {
        let (s, e) = o.interval(in: zone)
        return [
            .integer(o.isAllDay ? 1 : 0), .integer(s), .integer(e),
            .text(zone.local(fromUTC: s).iso8601), .text(zone.local(fromUTC: e).iso8601),
        ]
    }

    /// Orders a day's entries: all-day first, then by start instant (the view adds title and uid).
    static func sortKey(_ d: DayEntry) -> String {
        // Offset so every instant from year 0 to 9999 is a positive 12-digit number; text order = time order.
        let shifted = d.startUTC + 62_167_219_200
        var digits = String(max(0, shifted))
        if digits.count < 12 { digits = String(repeating: "0", count: 12 - digits.count) + digits }
        return (d.allDay ? "0" : "1") + digits
    }

    static func dayValues(_ d: DayEntry, eventID: Int64) -> [SQLiteValue] {
        [
            .integer(eventID), .integer(Int64(d.part)), .integer(Int64(d.parts)), .integer(d.allDay ? 1 : 0),
            .text(d.start.iso8601), .text(d.end.iso8601), .integer(d.startUTC), .integer(d.endUTC), .text(sortKey(d)),
        ]
    }

    static func forecastValues(_ result: ForecastResult) -> [SQLiteValue] {
        switch result {
        case .missing(let reason):
            return ["missing", .text(reason)] + Array(repeating: .null, count: forecastContentColumns.count - 2)
        case .forecast(let f, let place):
            func real(_ v: Double?) -> SQLiteValue { v.map(SQLiteValue.real) ?? .null }
            return [
                "forecast", .null, .real(place.latitude), .real(place.longitude), .text(f.provider), .text(f.units),
                f.weatherCode.map { .integer(Int64($0)) } ?? .null, text(f.summary),
                real(f.temperatureMax), real(f.temperatureMin), real(f.precipitationProbability),
                real(f.precipitationAmount), real(f.windSpeedMax),
            ]
        }
    }
}
