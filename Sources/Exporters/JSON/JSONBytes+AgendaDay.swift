import Pipeline

/// The parts of the days document (docs/json-format.md, docs/agenda-days.schema.json) that are not an
/// event's own fields: an entry's app fields (id, source, calendar, attendee initials), the weather object
/// of a day or an entry, and the document's head. `EventJSON` writes the same as `JSONValue`s.
extension JSONBytes {
    /// `"description"` and the other members an app needs beside an entry's times.
    func entrySourceFields(_ e: borrowing Event, level: Int, first: inout Bool) {
        let source = e.metadata["source"] ?? ""
        key("source", level: level, first: &first)
        quoted(source)
        key("calendar", level: level, first: &first)
        quoted(e.metadata[EventJSON.calendarKey] ?? source)
    }

    /// The attendees, each with `initials` when it has a name or address.
    func attendeesWithInitials(_ items: [Attendee], level: Int, initials: AttendeeInitials) {
        raw("[")
        var first = true
        for i in items.indices {
            element(level: level, first: &first)
            var inner = true
            raw("{")
            optionalQuoted("name", items[i].name, level: level + 1, first: &inner)
            optionalQuoted("email", items[i].email, level: level + 1, first: &inner)
            optionalQuoted("role", items[i].role, level: level + 1, first: &inner)
            optionalQuoted("status", items[i].status, level: level + 1, first: &inner)
            optionalQuoted("initials", initials.of(items[i]), level: level + 1, first: &inner)
            close("}", level: level + 1, empty: inner)
        }
        close("]", level: level, empty: first)
    }

    /// The weather object of a day or an entry (`EventJSON.weather`); `nil` (no forecast stage) writes
    /// `{"available": false, "reason": "no-forecast"}`.
    func weather(_ w: DayWeather?, level: Int) {
        var first = true
        raw("{")
        switch w?.result {
        case nil:
            key("available", level: level, first: &first)
            bool(false)
            key("reason", level: level, first: &first)
            raw("\"no-forecast\"")
        case .missing(let reason)?:
            key("available", level: level, first: &first)
            bool(false)
            key("reason", level: level, first: &first)
            quoted(reason)
            optionalQuoted("place", w?.placeName, level: level, first: &first)
        case .forecast(let f, let place)?:
            key("available", level: level, first: &first)
            bool(true)
            key("provider", level: level, first: &first)
            quoted(f.provider)
            key("place", level: level, first: &first)
            string(w?.placeName)
            key("latitude", level: level, first: &first)
            number(place.latitude)
            key("longitude", level: level, first: &first)
            number(place.longitude)
            forecastMembers(f, level: level, first: &first)
        }
        close("}", level: level, empty: first)
    }

    /// A forecast's members of the weather object, after its place: weather_code, icon, summary,
    /// temperature_max ... units, fetched_at (also `DailyForecast`'s JSON, after its provider).
    func forecastMembers(_ f: DailyForecast, level: Int, first: inout Bool) {
        key("weather_code", level: level, first: &first)
        if let v = f.weatherCode { integer(Int64(v)) } else { null() }
        key("icon", level: level, first: &first)
        string(f.icon)
        key("summary", level: level, first: &first)
        string(f.summary)
        key("temperature_max", level: level, first: &first)
        optionalNumber(f.temperatureMax)
        key("temperature_min", level: level, first: &first)
        optionalNumber(f.temperatureMin)
        key("precipitation_probability", level: level, first: &first)
        optionalNumber(f.precipitationProbability)
        key("precipitation", level: level, first: &first)
        optionalNumber(f.precipitationAmount)
        key("wind_speed_max", level: level, first: &first)
        optionalNumber(f.windSpeedMax)
        key("units", level: level, first: &first)
        quoted(f.units)
        key("fetched_at", level: level, first: &first)
        if let t = f.fetchedAt {
            byte(0x22)
            dateTime(CivilDateTime(secondsSinceEpoch: t))
            raw("Z\"")
        } else {
            null()
        }
    }

    /// `"0123456789abcdef"`: the 16 lower-case hex digits of `value` (`DayEntry.stableID`), quoted.
    func quotedHex(_ value: UInt64) {
        byte(0x22)
        var shift = 60
        while shift >= 0 {
            let d = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 15)
            byte(d < 10 ? 0x30 + d : 0x57 + d)
            shift -= 4
        }
        byte(0x22)
    }

    func optionalNumber(_ n: Double?) {
        if let n { number(n) } else { null() }
    }

    /// The members of a day before its entries: date, weekday, weekday_short, is_today, weather; then the key
    /// "entries" (the caller writes the array). With `standalone` (an NDJSON line) the document's context
    /// comes first: pipeline, generated_at, timezone, locale, attribution.
    func dayHead(_ date: CivilDate, weather w: DayWeather?, document: DaysDocumentHead, level: Int, standalone: Bool) {
        var first = true
        raw("{")
        if standalone { document.members(into: self, level: level, first: &first, withSources: false) }
        key("date", level: level, first: &first)
        byte(0x22)
        self.date(date)
        byte(0x22)
        key("weekday", level: level, first: &first)
        quoted(document.weekdays.name(of: date))
        key("weekday_short", level: level, first: &first)
        quoted(document.weekdays.shortName(of: date))
        key("is_today", level: level, first: &first)
        bool(date == document.today)
        key("weather", level: level, first: &first)
        weather(w, level: level + 1)
        key("entries", level: level, first: &first)
    }
}

/// The top of a days document: what the json sink writes before `"days"` and on every NDJSON line.
struct DaysDocumentHead {
    var generatedAt: Int64
    var pipeline: String
    var timezone: String
    var window: Window?
    var locale: String
    var weekdays: WeekdayNames
    var today: CivilDate
    var attribution: String?
    var sources: [SourceLedger.Entry]

    init(generatedAt: Int64, pipeline: String, timezone: String, window: Window?, locale: String, today: CivilDate,
         attribution: String?, sources: [SourceLedger.Entry]) {
        self.generatedAt = generatedAt
        self.pipeline = pipeline
        self.timezone = timezone
        self.window = window
        self.locale = locale
        weekdays = WeekdayNames(locale: locale)
        self.today = today
        self.attribution = attribution
        self.sources = sources
    }

    init(context: RunContext, attribution: String?) {
        let env = context.environment
        generatedAt = env.now
        pipeline = env.name
        timezone = env.zone.identifier
        window = env.window
        locale = env.locale
        weekdays = WeekdayNames(locale: env.locale)
        today = env.today
        self.attribution = attribution
        sources = context.runState.sourceLedger.entries
    }

    /// generated_at, pipeline, timezone, window, locale, attribution and (with `withSources`) sources.
    func members(into out: JSONBytes, level: Int, first: inout Bool, withSources: Bool) {
        out.key("generated_at", level: level, first: &first)
        out.byte(0x22)
        out.dateTime(CivilDateTime(secondsSinceEpoch: generatedAt))
        out.raw("Z\"")
        out.key("pipeline", level: level, first: &first)
        out.quoted(pipeline)
        out.key("timezone", level: level, first: &first)
        out.quoted(timezone)
        if let window, withSources {
            out.key("window", level: level, first: &first)
            var inner = true
            out.raw("{")
            out.key("from", level: level + 1, first: &inner)
            out.quoted(window.from.iso8601)
            out.key("to", level: level + 1, first: &inner)
            out.quoted(window.to.iso8601)
            out.close("}", level: level + 1, empty: false)
        }
        out.key("locale", level: level, first: &first)
        out.quoted(locale)
        out.key("attribution", level: level, first: &first)
        out.string(attribution)
        guard withSources else { return }
        out.key("sources", level: level, first: &first)
        out.raw("[")
        var firstSource = true
        for s in sources {
            out.element(level: level + 1, first: &firstSource)
            var inner = true
            out.raw("{")
            out.key("name", level: level + 2, first: &inner)
            out.quoted(s.name)
            out.key("type", level: level + 2, first: &inner)
            out.quoted(s.type)
            out.key("origin", level: level + 2, first: &inner)
            out.quoted(s.origin)
            out.key("age_seconds", level: level + 2, first: &inner)
            if let age = s.ageSeconds { out.integer(age) } else { out.null() }
            out.key("events", level: level + 2, first: &inner)
            out.integer(Int64(s.events))
            out.close("}", level: level + 2, empty: false)
        }
        out.close("]", level: level + 1, empty: firstSource)
    }
}
