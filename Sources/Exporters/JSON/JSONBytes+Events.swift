import Pipeline

/// calpipe's JSON forms of day entries, events and occurrences (docs/json-format.md), written as bytes: the one
/// writer of the form. The tests compare it, member by member, with a `JSONValue` reference of the same form
/// (`EventJSON` in Tests/PipelineTests/EventJSON+Reference.swift).
extension JSONBytes {
    /// `EventJSON.dayEntry(d, zone:)` at indent `level`; `initials` remembers attendees' initials from entry
    /// to entry (a writer's run keeps one). Without a zone, the offsets in `starts_at`/`ends_at` are the entry's
    /// own (its local times less its UTC instants), as a zone-less value (`DayEntry`'s `Codable`) must.
    func dayEntry(_ d: DayEntry, zone: Zone?, level: Int, initials: AttendeeInitials) {
        d.occurrence.withEvent { dayEntry(d, event: $0, zone: zone, level: level, initials: initials) }
    }

    /// `e` is `d`'s event, borrowed (`Occurrence.withEvent`): reading `d.occurrence.event.uid` and the like
    /// field by field copied the whole event each time (a third of the sink's time on the benchmark feed).
    func dayEntry(_ d: DayEntry, event e: borrowing Event, zone: Zone?, level: Int, initials: AttendeeInitials) {
        var first = true
        raw("{")
        key("id", level: level, first: &first)
        quotedHex(d.stableIDValue)
        key("uid", level: level, first: &first)
        quoted(e.uid)
        key("title", level: level, first: &first)
        string(e.title)
        key("description", level: level, first: &first)
        string(e.description)
        key("location", level: level, first: &first)
        string(e.location)
        if let c = e.coordinate {
            key("geo", level: level, first: &first)
            coordinate(c, level: level + 1)
        }
        key("url", level: level, first: &first)
        string(e.url)
        key("color", level: level, first: &first)
        // The entry's colour: the event's own, else its calendar's (issue 26: a CalDAV calendar's colour).
        string(e.color ?? e.metadata[Event.calendarColorKey])
        key("all_day", level: level, first: &first)
        bool(d.allDay)
        key("start", level: level, first: &first)
        if d.allDay {
            null()
            key("end", level: level, first: &first)
            null()
        } else {
            byte(0x22)
            shortTime(d.start)
            byte(0x22)
            key("end", level: level, first: &first)
            if d.end.date > d.day {
                raw("\"24:00\"")
            } else {
                byte(0x22)
                shortTime(d.end)
                byte(0x22)
            }
        }
        key("duration_minutes", level: level, first: &first)
        integer(d.durationSeconds / 60)
        let allDayOccurrence = d.occurrence.isAllDay
        key("starts_at", level: level, first: &first)
        byte(0x22)
        if allDayOccurrence {
            date(d.day)
        } else {
            dateTime(d.start)
            offset(zone?.offset(atUTC: d.startUTC) ?? Int(d.start.secondsSinceEpoch - d.startUTC))
        }
        byte(0x22)
        key("ends_at", level: level, first: &first)
        byte(0x22)
        if allDayOccurrence {
            date(d.day.adding(days: 1))
        } else {
            dateTime(d.end)
            offset(zone?.offset(atUTC: d.endUTC) ?? Int(d.end.secondsSinceEpoch - d.endUTC))
        }
        byte(0x22)
        key("part", level: level, first: &first)
        integer(Int64(d.part))
        key("parts", level: level, first: &first)
        integer(Int64(d.parts))
        if let p = e.organizer {
            key("organizer", level: level, first: &first)
            person(p, level: level + 1)
        }
        key("attendees", level: level, first: &first)
        attendeesWithInitials(e.attendees, level: level + 1, initials: initials)
        key("attendee_count", level: level, first: &first)
        integer(Int64(e.attendees.count))
        if !e.categories.isEmpty {
            key("categories", level: level, first: &first)
            strings(e.categories, level: level + 1)
        }
        key("status", level: level, first: &first)
        if let s = e.status { quotedLowercased(s) } else { null() }
        entrySourceFields(e, level: level, first: &first)
        if let r = d.occurrence.recurrenceID {
            key("recurrence_id", level: level, first: &first)
            eventTime(r)
        }
        if let f = d.forecast {
            key("forecast", level: level, first: &first)
            weather(DayWeather(result: f, placeName: e.location), level: level + 1)
        }
        close("}", level: level, empty: first)
    }

    /// `EventJSON.event(e)` at indent `level`.
    package func event(_ e: borrowing Event, level: Int) {
        var first = true
        raw("{")
        descriptiveFields(e, level: level, first: &first)
        times(start: e.start, end: e.endSpec, level: level, first: &first)
        eventInstants(start: e.start, end: e.end, level: level, first: &first)
        if !e.recurrence.rules.isEmpty {
            key("rrule", level: level, first: &first)
            ruleTexts(e.recurrence.rules, level: level + 1)
        }
        if !e.recurrence.exceptionRules.isEmpty {
            key("exrule", level: level, first: &first)
            ruleTexts(e.recurrence.exceptionRules, level: level + 1)
        }
        if !e.recurrence.dates.isEmpty {
            key("rdate", level: level, first: &first)
            raw("[")
            var firstDate = true
            for d in e.recurrence.dates {
                element(level: level + 1, first: &firstDate)
                switch d {
                case .time(let t): eventTime(t)
                case .period, .periodWithDuration: quoted(EventJSON.text(of: d))
                }
            }
            close("]", level: level + 1, empty: firstDate)
        }
        if !e.recurrence.exceptionDates.isEmpty {
            key("exdate", level: level, first: &first)
            eventTimes(e.recurrence.exceptionDates, level: level + 1)
        }
        if let r = e.recurrenceID {
            key("recurrence_id", level: level, first: &first)
            eventTime(r.time)
            if r.thisAndFuture {
                key("recurrence_range", level: level, first: &first)
                raw("\"THISANDFUTURE\"")
            }
        }
        properties(e.otherProperties, level: level, first: &first)
        close("}", level: level, empty: first)
    }

    /// `EventJSON.occurrence(occ, zone:)` at indent `level`: the event's descriptive fields and properties,
    /// then this instance's times.
    func occurrence(_ occ: Occurrence, zone: Zone, level: Int) {
        occ.withEvent { occurrence(occ, event: $0, zone: zone, level: level) }
    }

    private func occurrence(_ occ: Occurrence, event: borrowing Event, zone: Zone, level: Int) {
        var first = true
        raw("{")
        descriptiveFields(event, level: level, first: &first)
        properties(event.otherProperties, level: level, first: &first)
        times(start: occ.start, end: .end(occ.end), level: level, first: &first)
        if let r = occ.recurrenceID {
            key("recurrence_id", level: level, first: &first)
            eventTime(r)
        }
        if case .floating = occ.start {
            eventInstants(start: occ.start, end: occ.end, level: level, first: &first)
        } else {
            let (s, e) = occ.interval(in: zone)
            key("starts_at", level: level, first: &first)
            instant(s, zone: zone, allDay: occ.isAllDay, date: occ.start)
            key("ends_at", level: level, first: &first)
            instant(e, zone: zone, allDay: occ.isAllDay, date: occ.end)
        }
        close("}", level: level, empty: first)
    }

    /// `EventJSON.instants`: "starts_at" and "ends_at" as RFC 3339 in the times' own zones (`EventTime.iso8601`),
    /// and `"floating": true` for floating times (written without an offset).
    private func eventInstants(start: EventTime, end: EventTime, level: Int, first: inout Bool) {
        key("starts_at", level: level, first: &first)
        eventTime(start, offset: true)
        key("ends_at", level: level, first: &first)
        eventTime(end, offset: true)
        if case .floating = start {
            key("floating", level: level, first: &first)
            bool(true)
        }
    }

    /// `EventJSON.forecast(f)` at indent `level`.
    func forecast(_ result: ForecastResult, level: Int) {
        var first = true
        raw("{")
        switch result {
        case .missing(let reason):
            key("available", level: level, first: &first)
            bool(false)
            key("reason", level: level, first: &first)
            quoted(reason)
        case .forecast(let f, let place):
            key("available", level: level, first: &first)
            bool(true)
            key("provider", level: level, first: &first)
            quoted(f.provider)
            key("units", level: level, first: &first)
            quoted(f.units)
            key("latitude", level: level, first: &first)
            number(place.latitude)
            key("longitude", level: level, first: &first)
            number(place.longitude)
            key("weather_code", level: level, first: &first)
            if let v = f.weatherCode { integer(Int64(v)) } else { null() }
            key("summary", level: level, first: &first)
            string(f.summary)
            key("temperature_max", level: level, first: &first)
            number(f.temperatureMax)
            key("temperature_min", level: level, first: &first)
            number(f.temperatureMin)
            key("precipitation_probability", level: level, first: &first)
            number(f.precipitationProbability)
            key("precipitation", level: level, first: &first)
            number(f.precipitationAmount)
            key("wind_speed_max", level: level, first: &first)
            number(f.windSpeedMax)
        }
        close("}", level: level, empty: first)
    }

    // MARK: Parts

    /// uid, title ... status: the members `EventJSON.event` writes before the times (absent ones left out).
    private func descriptiveFields(_ e: borrowing Event, level: Int, first: inout Bool) {
        key("uid", level: level, first: &first)
        quoted(e.uid)
        optionalQuoted("title", e.title, level: level, first: &first)
        optionalQuoted("description", e.description, level: level, first: &first)
        optionalQuoted("location", e.location, level: level, first: &first)
        if let c = e.coordinate {
            key("geo", level: level, first: &first)
            coordinate(c, level: level + 1)
        }
        if let p = e.organizer {
            key("organizer", level: level, first: &first)
            person(p, level: level + 1)
        }
        if !e.attendees.isEmpty {
            key("attendees", level: level, first: &first)
            people(e.attendees, level: level + 1)
        }
        if !e.categories.isEmpty {
            key("categories", level: level, first: &first)
            strings(e.categories, level: level + 1)
        }
        optionalQuoted("color", e.color, level: level, first: &first)
        optionalQuoted("url", e.url, level: level, first: &first)
        if let v = e.status {
            key("status", level: level, first: &first)
            quotedLowercased(v)
        }
    }

    /// `EventJSON.writeTimes`: start, all_day, timezone, end or duration, end_timezone.
    private func times(start: EventTime, end: Event.EndSpec?, level: Int, first: inout Bool) {
        key("start", level: level, first: &first)
        eventTime(start)
        if start.isDate {
            key("all_day", level: level, first: &first)
            bool(true)
        }
        if case .zoned(_, let z) = start {
            key("timezone", level: level, first: &first)
            quoted(z.identifier)
        }
        switch end {
        case .end(let t):
            key("end", level: level, first: &first)
            eventTime(t)
            if case .zoned(_, let ez) = t, ez.identifier != start.zone?.identifier {
                key("end_timezone", level: level, first: &first)
                quoted(ez.identifier)
            }
        case .duration(let d):
            key("duration", level: level, first: &first)
            quoted(d.iCalendarText)
        case nil:
            break
        }
    }

    /// `"properties": [...]` when there are any (`EventJSON.property`).
    private func properties(_ items: [RawProperty], level: Int, first: inout Bool) {
        guard !items.isEmpty else { return }
        key("properties", level: level, first: &first)
        raw("[")
        var firstItem = true
        for p in items {
            element(level: level + 1, first: &firstItem)
            property(p, level: level + 2)
        }
        close("]", level: level + 1, empty: firstItem)
    }

    private func property(_ p: RawProperty, level: Int) {
        var first = true
        raw("{")
        key("name", level: level, first: &first)
        quoted(p.name)
        if !p.parameters.isEmpty {
            key("parameters", level: level, first: &first)
            raw("{")
            var firstParameter = true
            for parameter in p.parameters {
                key(parameter.name, level: level + 1, first: &firstParameter)
                if parameter.values.count == 1 { quoted(parameter.values[0]) } else { strings(parameter.values, level: level + 2) }
            }
            close("}", level: level + 1, empty: firstParameter)
        }
        key("value", level: level, first: &first)
        quoted(p.value)
        close("}", level: level, empty: first)
    }

    /// The quoted text of `EventJSON.text(of:)`: "2026-11-23", "2026-11-23T08:00:00Z" or local
    /// "2026-11-23T09:00:00"; with `offset`, that of `EventTime.iso8601` (a zoned time with its offset),
    /// written as bytes (no String made per event).
    func eventTime(_ t: EventTime, offset withOffset: Bool = false) {
        byte(0x22)
        switch t {
        case .date(let d): date(d)
        case .utc(let s):
            dateTime(CivilDateTime(secondsSinceEpoch: s))
            byte(0x5A)
        case .zoned(let local, let z) where withOffset:
            let instant = z.utc(fromLocal: local)
            dateTime(z.local(fromUTC: instant))
            offset(z.offset(atUTC: instant))
        case .zoned(let l, _), .floating(let l): dateTime(l)
        }
        byte(0x22)
    }

    /// The quoted text of `EventJSON.instant`.
    private func instant(_ utc: Int64, zone: Zone, allDay: Bool, date d: EventTime) {
        byte(0x22)
        if allDay, case .date(let day) = d {
            date(day)
        } else {
            dateTime(zone.local(fromUTC: utc))
            offset(zone.offset(atUTC: utc))
        }
        byte(0x22)
    }

    private func eventTimes(_ items: [EventTime], level: Int) {
        raw("[")
        var first = true
        for t in items {
            element(level: level, first: &first)
            eventTime(t)
        }
        close("]", level: level, empty: first)
    }

    /// The rules' texts (`EventJSON.list`): one as is, several as an array; read in place (no array of texts made per event).
    private func ruleTexts(_ rules: [RecurrenceRule], level: Int) {
        // Each rule's text as bytes (`RecurrenceRule.appendText`), quoted from one buffer: no String per rule.
        var text: [UInt8] = []
        text.reserveCapacity(96)
        func ruleText(_ rule: borrowing RecurrenceRule) {
            text.removeAll(keepingCapacity: true)
            rule.appendText(to: &text)
            text.withUnsafeBufferPointer { quoted($0) }
        }
        if rules.count == 1 { return ruleText(rules[0]) }
        raw("[")
        var first = true
        for i in rules.indices {
            element(level: level, first: &first)
            ruleText(rules[i])
        }
        close("]", level: level, empty: first)
    }

    func strings(_ items: [String], level: Int) {
        raw("[")
        var first = true
        // By index: the elements are read in place, not copied (no retain of each String).
        for i in items.indices {
            element(level: level, first: &first)
            quoted(items[i])
        }
        close("]", level: level, empty: first)
    }

    private func number(_ n: Double?) {
        if let n { number(n) } else { null() }
    }

    func coordinate(_ c: Coordinate, level: Int) {
        var first = true
        raw("{")
        key("latitude", level: level, first: &first)
        number(c.latitude)
        key("longitude", level: level, first: &first)
        number(c.longitude)
        close("}", level: level, empty: first)
    }

    private func people(_ items: [Attendee], level: Int) {
        raw("[")
        var first = true
        // By index: each attendee is read in place, not copied (no retain of its five fields).
        for i in items.indices {
            element(level: level, first: &first)
            person(items[i], level: level + 1)
        }
        close("]", level: level, empty: first)
    }

    /// `EventJSON.person`: name, email, role, status when present; `{}` when none is.
    func person(_ p: Attendee, level: Int) {
        var first = true
        raw("{")
        optionalQuoted("name", p.name, level: level, first: &first)
        optionalQuoted("email", p.email, level: level, first: &first)
        optionalQuoted("role", p.role, level: level, first: &first)
        optionalQuoted("status", p.status, level: level, first: &first)
        close("}", level: level, empty: first)
    }
}
