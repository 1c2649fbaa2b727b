import CalSQLite
import Pipeline

/// How model values become column values of the agenda database (see docs/sqlite-schema.md).
/// Everything here is deterministic: the same event always gives the same values, which is what lets a
/// re-run on unchanged input compare equal and change no row.
package enum SQLiteRowEncoding {
    /// The content columns of `events`, in bind order (after source, uid, recurrence_id). The sync compares
    /// all of them to decide whether a row changed; `origin` is stored but not compared (see `eventValues`).
    package static let eventContentColumns = [
        "this_and_future", "title", "description", "location", "latitude", "longitude",
        "organizer_name", "organizer_email", "organizer_parameters", "categories", "color", "url", "status",
        "all_day", "dtstart", "dtstart_tzid", "start_utc", "dtend", "dtend_tzid", "duration", "end_utc", "span_end_utc",
        "rrule", "exrule", "rdate", "exdate", "other_properties", "components", "field_parameters", "metadata", "source_text",
    ]

    package static let occurrenceContentColumns = ["all_day", "start_utc", "end_utc", "start_local", "end_local"]

    package static let dayContentColumns = ["event_id", "part", "parts", "all_day", "start_local", "end_local", "start_utc", "end_utc", "sort_key"]

    package static let forecastContentColumns = [
        "status", "reason", "latitude", "longitude", "provider", "units", "weather_code", "summary",
        "temperature_max", "temperature_min", "precipitation_probability", "precipitation_amount", "wind_speed_max",
    ]

    /// The source label of an event: the runner's stamp, else the file it came from.
    package static func source(of event: Event) -> String {
        event.metadata["source"] ?? event.origin?.file ?? ""
    }

    /// RECURRENCE-ID as stored in the key: ISO text of the instance it replaces, "" for none.
    package static func recurrenceIDText(_ event: Event) -> String {
        guard let time = event.recurrenceID?.time else { return "" }
        return iso(time, startUTC: nil)
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

    /// The last instant the event (or series) can touch, NULL when it recurs without a known end. A series
    /// whose rules all end (UNTIL, or COUNT of at most `countedSpanLimit` instances) ends with its last instance;
    /// for COUNT that instance is found by expanding the rules once (an incremental run then leaves the series
    /// unparsed when the window gains a day after it: docs/incremental.md).
    static func spanEnd(_ event: Event, startUTC: Int64, endUTC: Int64, zone: Zone) -> SQLiteValue {
        if event.recurrenceID?.thisAndFuture == true { return .null }  // it moves instances it does not list
        guard event.isRecurring else { return .integer(endUTC) }
        guard event.recurrence.dates.isEmpty else { return .null }
        var last = Int64.min
        var counted = false
        for rule in event.recurrence.rules {
            switch rule.end {
            case .until(let until): last = max(last, until.utcSeconds(in: zone))
            case .count(let n) where n <= countedSpanLimit: counted = true
            default: return .null
            }
        }
        // The last instance starts at or before UNTIL and lasts as long as the first.
        var end = max(endUTC, last == Int64.min ? endUTC : last + (endUTC - startUTC))
        if counted {
            // Every instance, from DTSTART on (a millennium is past any COUNT this limit allows).
            let expander = SeriesExpander(zone: zone, span: .init(from: nil, to: startUTC + 1000 * 366 * 86_400),
                                          maxOccurrences: countedSpanLimit * max(1, event.recurrence.rules.count) + 1,
                                          includeCancelled: true)
            let result = expander.expand(event)
            guard !result.truncated, !result.workBudgetExhausted else { return .null }
            for o in result.occurrences { end = max(end, o.end.utcSeconds(in: zone)) }
        }
        return .integer(end)
    }

    /// COUNT series longer than this keep no span end (expanding them at every write would cost more than it saves).
    static let countedSpanLimit = 1000

    /// Binds the values of `eventContentColumns`, in order, from parameter `first`; returns how many. JSON
    /// columns are written through `json`, a buffer the caller reuses for every event. `source_text` holds the
    /// event's original text only when `keepSourceText` (the sink option `source_text`), else NULL.
    package static func bindEventValues(_ event: Event, zone: Zone, to s: some RowBinder, from first: Int, json: inout SQLiteJSONText,
                                keepSourceText: Bool) throws -> Int {
        let startUTC = event.start.utcSeconds(in: zone)
        let endUTC = max(startUTC, event.end.utcSeconds(in: zone))
        var dtend: EventTime?
        var duration: CalDuration?
        switch event.endSpec {
        case .end(let e)?: dtend = e
        case .duration(let d)?: duration = d
        case nil: break
        }
        let i = first
        try s.bind(event.recurrenceID?.thisAndFuture == true, at: i)
        try s.bind(event.title, at: i + 1)
        try s.bind(event.description, at: i + 2)
        try s.bind(event.location, at: i + 3)
        try s.bind(event.coordinate?.latitude, at: i + 4)
        try s.bind(event.coordinate?.longitude, at: i + 5)
        try s.bind(event.organizer?.name, at: i + 6)
        try s.bind(event.organizer?.email, at: i + 7)
        let organizerParameters = event.organizer?.otherParameters ?? []
        try json.bind(to: s, at: i + 8, nullIf: organizerParameters.isEmpty) { $0.parameters(organizerParameters) }
        try json.bind(to: s, at: i + 9, nullIf: event.categories.isEmpty) { $0.strings(event.categories) }
        try s.bind(event.color, at: i + 10)
        try s.bind(event.url, at: i + 11)
        try s.bind(event.status, at: i + 12)
        try s.bind(event.isAllDay, at: i + 13)
        try s.bind(iso(event.start, startUTC: startUTC), at: i + 14)
        try s.bind(tzid(event.start), at: i + 15)
        try s.bind(startUTC, at: i + 16)
        try s.bind(dtend.map { iso($0, startUTC: nil) }, at: i + 17)
        try s.bind(dtend.map(tzid) ?? .null, at: i + 18)
        try s.bind(duration?.iCalendarText, at: i + 19)
        try s.bind(endUTC, at: i + 20)
        try s.bind(spanEnd(event, startUTC: startUTC, endUTC: endUTC, zone: zone), at: i + 21)
        if event.recurrence.rules.isEmpty && event.recurrence.exceptionRules.isEmpty && event.recurrence.dates.isEmpty
            && event.recurrence.exceptionDates.isEmpty {
            for k in 22...25 { try s.bindNull(at: i + k) }
        } else {
            let recurrence = event.recurrence
            try s.bind(recurrence.rules.isEmpty ? .null : lines(recurrence.rules.map(\.text)), at: i + 22)
            try s.bind(recurrence.exceptionRules.isEmpty ? .null : lines(recurrence.exceptionRules.map(\.text)), at: i + 23)
            try s.bind(recurrence.dates.isEmpty ? .null : lines(recurrence.dates.map(recurrenceDateText)), at: i + 24)
            try s.bind(recurrence.exceptionDates.isEmpty ? .null : lines(recurrence.exceptionDates.map(annotated)), at: i + 25)
        }
        try json.bind(to: s, at: i + 26, nullIf: event.otherProperties.isEmpty) { $0.properties(event.otherProperties) }
        try json.bind(to: s, at: i + 27, nullIf: event.components.isEmpty) { $0.components(event.components) }
        try json.bind(to: s, at: i + 28, nullIf: event.fieldParameters.isEmpty) { $0.fieldParameters(event.fieldParameters) }
        // The source label alone is not stored: the row's `source` column says it.
        let onlySource = event.metadata.isEmpty || (event.metadata.count == 1 && event.metadata["source"] != nil)
        try json.bind(to: s, at: i + 29, nullIf: onlySource) { $0.metadata(event.metadata) }
        if keepSourceText { try s.bind(event.sourceText, at: i + 30) } else { try s.bindNull(at: i + 30) }
        return 31
    }

    /// `EventTime.iso8601`, built without intermediate strings. `startUTC` saves recomputing a zoned instant.
    package static func iso(_ time: EventTime, startUTC: Int64?) -> String {
        switch time {
        case .date(let d): return isoDate(d)
        case .utc(let s): return isoLocal(CivilDateTime(secondsSinceEpoch: s)) + "Z"
        case .floating(let local): return isoLocal(local)
        case .zoned(let local, let zone):
            let instant = startUTC ?? zone.utc(fromLocal: local)
            let offset = zone.offset(atUTC: instant)
            // A wall-clock time that does not exist (DST gap) is written as the instant it stands for.
            let shown = instant + Int64(offset) == local.secondsSinceEpoch ? local : CivilDateTime(secondsSinceEpoch: instant + Int64(offset))
            return isoLocal(shown, offset: offset)
        }
    }

    /// `isoLocal(time) + Zone.offsetText(offset)` ("+01:00", "-03:30", "+00:19:32"), built in one buffer.
    static func isoLocal(_ time: CivilDateTime, offset: Int) -> String {
        let (y, m, d) = time.date.components
        guard (0...9999).contains(y) else { return time.iso8601 + Zone.offsetText(offset) }
        let magnitude = abs(offset)
        let count = magnitude % 60 == 0 ? 25 : 28
        return String(unsafeUninitializedCapacity: count) { buffer in
            putLocal(y, m, d, time.secondOfDay, into: buffer)
            buffer[19] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            put(magnitude / 3600 % 100, 2, into: buffer, at: 20)
            buffer[22] = UInt8(ascii: ":")
            put(magnitude / 60 % 60, 2, into: buffer, at: 23)
            if count == 28 {
                buffer[25] = UInt8(ascii: ":")
                put(magnitude % 60, 2, into: buffer, at: 26)
            }
            return count
        }
    }

    /// The event's metadata without the runner's "source" stamp, keys sorted; NULL when nothing is left.
    static func metadataJSON(_ metadata: [String: String]) -> SQLiteValue {
        if metadata.isEmpty || (metadata.count == 1 && metadata["source"] != nil) { return .null }
        let members = metadata.filter { $0.key != "source" }.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }
        return json(.object(JSONObject(members)))
    }

    static func attendeeParameters(_ a: Attendee) -> SQLiteValue {
        a.otherParameters.isEmpty ? .null : json(parametersJSON(a.otherParameters))
    }

    /// Binds an attendee's name, email, role, status and other_parameters (JSON through `json`) from parameter `first`.
    package static func bindAttendeeValues(_ a: Attendee, to s: some RowBinder, from first: Int, json: inout SQLiteJSONText) throws {
        try s.bind(a.name, at: first)
        try s.bind(a.email, at: first + 1)
        try s.bind(a.role, at: first + 2)
        try s.bind(a.status, at: first + 3)
        let parameters = a.otherParameters
        try json.bind(to: s, at: first + 4, nullIf: parameters.isEmpty) { $0.parameters(parameters) }
    }

    /// Values of an attendee row after event_id and position: name, email, role, status, other_parameters.
    package static func attendeeValues(_ a: Attendee) -> [SQLiteValue] {
        [text(a.name), text(a.email), text(a.role), text(a.status), attendeeParameters(a)]
    }

    /// What an occurrence row stores, taken from an `Occurrence` or straight from an event (its single
    /// occurrence, as `Occurrence(single:)` makes it) without copying the event.
    package struct OccurrenceTimes {
        var start: EventTime
        var end: EventTime
        var recurrenceID: EventTime?

        package init(_ o: Occurrence) {
            start = o.start
            end = o.end
            recurrenceID = o.recurrenceID
        }

        package init(singleOf event: Event) {
            start = event.start
            end = event.end
            recurrenceID = event.recurrenceID?.time
        }

        /// The instance key in its event: the RECURRENCE-ID it has or would have, "" for a single event.
        /// (`EventTime.iso8601`'s text, built by `iso`: computed for every occurrence and day row.)
        package var instance: String {
            guard let recurrenceID else { return "" }
            return SQLiteRowEncoding.iso(recurrenceID, startUTC: nil)
        }
    }

    /// Binds `occurrenceContentColumns` from parameter `first` (instants as `Occurrence.interval(in:)`).
    package static func bindOccurrenceValues(_ o: OccurrenceTimes, zone: Zone, to st: some RowBinder, from first: Int) throws {
        let s = o.start.utcSeconds(in: zone)
        let e = max(s, o.end.utcSeconds(in: zone))
        try st.bind(o.start.isDate, at: first)
        try st.bind(s, at: first + 1)
        try st.bind(e, at: first + 2)
        try bindLocal(zone.local(fromUTC: s), to: st, at: first + 3)
        try bindLocal(zone.local(fromUTC: e), to: st, at: first + 4)
    }

    /// "YYYY-MM-DD", as `CivilDate.iso8601`, without building intermediate strings (years 0-9999).
    package static func isoDate(_ date: CivilDate) -> String {
        let (y, m, d) = date.components
        guard (0...9999).contains(y) else { return date.iso8601 }
        return String(unsafeUninitializedCapacity: 10) { buffer in
            put(y, 4, into: buffer, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(m, 2, into: buffer, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(d, 2, into: buffer, at: 8)
            return 10
        }
    }

    /// "YYYY-MM-DDTHH:MM:SS", as `CivilDateTime.iso8601`, without intermediate strings (years 0-9999).
    static func isoLocal(_ time: CivilDateTime) -> String {
        let (y, m, d) = time.date.components
        guard (0...9999).contains(y) else { return time.iso8601 }
        return String(unsafeUninitializedCapacity: 19) { buffer in
            putLocal(y, m, d, time.secondOfDay, into: buffer)
            return 19
        }
    }

    /// Binds `isoLocal(time)`, written straight into the statement's parameter buffer (no String per row).
    static func bindLocal(_ time: CivilDateTime, to s: some RowBinder, at index: Int) throws {
        let (y, m, d) = time.date.components
        guard (0...9999).contains(y) else { return try s.bind(time.iso8601, at: index) }
        try s.bindText(at: index, capacity: 19) { raw in
            putLocal(y, m, d, time.secondOfDay, into: raw.bindMemory(to: UInt8.self))
            return 19
        }
    }

    /// Writes "YYYY-MM-DDTHH:MM:SS" into the first 19 bytes of `buffer`.
    private static func putLocal(_ y: Int, _ m: Int, _ d: Int, _ second: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        put(y, 4, into: buffer, at: 0)
        buffer[4] = UInt8(ascii: "-")
        put(m, 2, into: buffer, at: 5)
        buffer[7] = UInt8(ascii: "-")
        put(d, 2, into: buffer, at: 8)
        buffer[10] = UInt8(ascii: "T")
        put(second / 3600, 2, into: buffer, at: 11)
        buffer[13] = UInt8(ascii: ":")
        put(second / 60 % 60, 2, into: buffer, at: 14)
        buffer[16] = UInt8(ascii: ":")
        put(second % 60, 2, into: buffer, at: 17)
    }

    /// Writes `value` (not negative) as `width` zero-padded digits.
    private static func put(_ value: Int, _ width: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        var v = value
        var i = offset + width - 1
        while i >= offset {
            buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
            i -= 1
        }
    }

    /// Orders a day's entries: all-day first, then by start instant (the view adds title and uid).
    package static func sortKey(_ d: DayEntry) -> String {
        // Offset so every instant from year 0 to 9999 is a positive 12-digit number; text order = time order.
        let shifted = max(0, min(999_999_999_999, d.startUTC + 62_167_219_200))
        return String(unsafeUninitializedCapacity: 13) { buffer in
            buffer[0] = d.allDay ? UInt8(ascii: "0") : UInt8(ascii: "1")
            var v = shifted
            for i in stride(from: 12, through: 1, by: -1) {
                buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
            }
            return 13
        }
    }

    /// Binds `dayContentColumns` from parameter `first`.
    package static func bindDayValues(_ d: DayEntry, eventID: Int64, to s: some RowBinder, from first: Int) throws {
        try s.bind(eventID, at: first)
        try s.bind(d.part, at: first + 1)
        try s.bind(d.parts, at: first + 2)
        try s.bind(d.allDay, at: first + 3)
        try bindLocal(d.start, to: s, at: first + 4)
        try bindLocal(d.end, to: s, at: first + 5)
        try s.bind(d.startUTC, at: first + 6)
        try s.bind(d.endUTC, at: first + 7)
        try s.bind(sortKey(d), at: first + 8)
    }

    package static func forecastValues(_ result: ForecastResult) -> [SQLiteValue] {
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
