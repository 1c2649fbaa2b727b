import CalSQLite
import Foundation
import Pipeline

/// What the `meta` table says about the pipeline that wrote a database (schema version 4).
package struct AgendaMeta: Sendable, Hashable {
    package var pipeline: String
    package var timezone: String
    package var window: Window?
    package var locale: String
    package var generatedAt: Int64
}

/// The agenda as days (`calpipe query`): the `days` table with every day's weather, and the live day entries
/// rebuilt as `DayEntry` values, so the JSON days renderer of the sink prints them (`DaysDocument`).
extension SQLiteAgendaReader {
    /// The `meta` row; nil for a database no run of schema 4 has written yet.
    package func meta() throws -> AgendaMeta? {
        do {
            let rows = try db.rows("SELECT pipeline, timezone, window_from, window_to, locale, generated_at FROM meta WHERE id = 1")
            guard let r = rows.first else { return nil }
            var window: Window?
            if let from = r[2].text.flatMap(ISODate.parseDate), let to = r[3].text.flatMap(ISODate.parseDate) { window = Window(from: from, to: to) }
            var generated: Int64 = 0
            if let text = r[5].text, case .instant(let s, _)? = ISODate.parse(text) { generated = s }
            return AgendaMeta(pipeline: r[0].text ?? "", timezone: r[1].text ?? "UTC", window: window, locale: r[4].text ?? "en", generatedAt: generated)
        } catch {
            throw CalpipeError.sqlite(wrapping: error, path: path, busyTimeout: 5_000)
        }
    }

    /// Every day from `from` to `to` (exclusive): the days the `days` table lists and the days with entries,
    /// and with `everyDay` each day of the range (empty ones included). Entries in agenda order.
    package func agendaDays(from: CivilDate, to: CivilDate, zone: Zone, everyDay: Bool) throws -> [AgendaDay] {
        do {
            var weather: [CivilDate: DayWeather?] = [:]
            let dayRows = try db.prepare("""
                SELECT date, weather_status, weather_reason, provider, place, latitude, longitude, weather_code, summary,
                       temperature_max, temperature_min, precipitation_probability, precipitation_amount, wind_speed_max, units, fetched_at
                FROM days WHERE date >= ?1 AND date < ?2 ORDER BY date
                """)
            try dayRows.bind(from.iso8601, at: 1)
            try dayRows.bind(to.iso8601, at: 2)
            try dayRows.forEachRow { s in
                guard let day = s.text(at: 0).flatMap(ISODate.parseDate) else { return }
                weather[day] = Self.weather(s, status: 1)
            }
            var entries: [CivilDate: [DayEntry]] = [:]
            let attendees = try db.prepare("SELECT name, email, role, status FROM attendees WHERE event_id = ? ORDER BY position")
            let statement = try db.prepare("""
                SELECT d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local, d.start_utc, d.end_utc,
                       e.id, e.source, e.uid, e.title, e.description, e.location, e.latitude, e.longitude, e.color, e.url, e.status,
                       e.categories, e.organizer_name, e.organizer_email, e.metadata, d.instance, coalesce(d.occurrence_all_day, d.all_day),
                       f.status, f.reason, f.provider, NULL, f.latitude, f.longitude, f.weather_code, f.summary,
                       f.temperature_max, f.temperature_min, f.precipitation_probability, f.precipitation_amount, f.wind_speed_max, f.units, NULL
                FROM day_entries d
                JOIN events e ON e.id = d.event_id
                LEFT JOIN forecasts f ON f.day_entry_id = d.id
                WHERE d.removed_run IS NULL AND d.occurrence_removed_run IS NULL AND e.removed_run IS NULL AND d.day >= ?1 AND d.day < ?2
                ORDER BY d.day, d.sort_key, e.title, e.uid, d.end_utc
                """)
            try statement.bind(from.iso8601, at: 1)
            try statement.bind(to.iso8601, at: 2)
            var events: [Int64: Event] = [:]
            try statement.forEachRow { s in
                guard let day = s.text(at: 0).flatMap(ISODate.parseDate),
                      let startLocal = s.text(at: 4).flatMap(Self.local), let endLocal = s.text(at: 5).flatMap(Self.local) else { return }
                let eventID = s.int64(at: 8)
                var event: Event
                if let known = events[eventID] {
                    event = known
                } else {
                    event = Event(uid: s.text(at: 10) ?? "", start: .floating(startLocal), title: s.text(at: 11))
                    event.description = s.text(at: 12)
                    event.location = s.text(at: 13)
                    if let lat = s.optionalDouble(at: 14), let lon = s.optionalDouble(at: 15) { event.coordinate = Coordinate(latitude: lat, longitude: lon) }
                    event.color = s.text(at: 16)
                    event.url = s.text(at: 17)
                    event.status = s.text(at: 18)
                    if let json = s.text(at: 19), let list = try? JSONParser.parse(json).arrayValue { event.categories = list.compactMap(\.stringValue) }
                    if s.text(at: 20) != nil || s.text(at: 21) != nil { event.organizer = Attendee(name: s.text(at: 20), email: s.text(at: 21)) }
                    var metadata: [String: String] = [:]
                    if let json = s.text(at: 22), let object = try? JSONParser.parse(json).objectValue {
                        for (k, v) in object.members { if let text = v.stringValue { metadata[k] = text } }
                    }
                    metadata["source"] = s.text(at: 9) ?? ""
                    event.metadata = metadata
                    try attendees.bind(eventID, at: 1)
                    try attendees.forEachRow { a in
                        event.attendees.append(Attendee(name: a.text(at: 0), email: a.text(at: 1), role: a.text(at: 2), status: a.text(at: 3)))
                    }
                    events[eventID] = event
                }
                let instance = s.text(at: 23) ?? ""
                let occurrenceAllDay = s.bool(at: 24)
                let start: EventTime = occurrenceAllDay ? .date(startLocal.date) : .floating(startLocal)
                let occurrence = Occurrence(event: event, start: start, end: start, recurrenceID: instance.isEmpty ? nil : StableHash.instance(fromISO: instance))
                var entry = DayEntry(occurrence: occurrence, day: day, part: s.int(at: 1), parts: s.int(at: 2), allDay: s.bool(at: 3),
                                     start: startLocal, end: endLocal, startUTC: s.int64(at: 6), endUTC: s.int64(at: 7))
                entry.forecast = Self.weather(s, status: 25)?.result
                entries[day, default: []].append(entry)
            }
            var dates = Set(weather.keys).union(entries.keys)
            if everyDay { for n in from.daysSinceEpoch..<to.daysSinceEpoch { dates.insert(CivilDate(daysSinceEpoch: n)) } }
            // SQL orders titles by their bytes: sorted again by the key, canonically equivalent titles compare equal.
            return dates.sorted().map { AgendaDay(date: $0, weather: weather[$0] ?? nil, entries: (entries[$0] ?? []).sorted(by: DayEntry.agendaOrder)) }
        } catch {
            throw CalpipeError.sqlite(wrapping: error, path: path, busyTimeout: 5_000)
        }
    }

    /// The weather of 15 columns from `status`: status, reason, provider, place, latitude, longitude, code,
    /// summary, max, min, probability, amount, wind, units, fetched_at.
    static func weather(_ s: Statement, status: Int) -> DayWeather? {
        switch s.text(at: status) {
        case "forecast"?:
            let code = s.isNull(at: status + 6) ? nil : s.int(at: status + 6)
            var fetched: Int64?
            if let text = s.text(at: status + 14), case .instant(let t, _)? = ISODate.parse(text) { fetched = t }
            let f = DailyForecast(weatherCode: code, summary: s.text(at: status + 7), temperatureMax: s.optionalDouble(at: status + 8),
                                  temperatureMin: s.optionalDouble(at: status + 9), precipitationProbability: s.optionalDouble(at: status + 10),
                                  precipitationAmount: s.optionalDouble(at: status + 11), windSpeedMax: s.optionalDouble(at: status + 12),
                                  units: s.text(at: status + 13) ?? "metric", provider: s.text(at: status + 2) ?? "", fetchedAt: fetched)
            let place = Coordinate(latitude: s.optionalDouble(at: status + 4) ?? 0, longitude: s.optionalDouble(at: status + 5) ?? 0)
            return DayWeather(result: .forecast(f, place: place), placeName: s.text(at: status + 3))
        case "missing"?:
            return DayWeather(result: .missing(reason: s.text(at: status + 1) ?? "unavailable"), placeName: s.text(at: status + 3))
        default:
            return nil
        }
    }

    /// "2026-11-10T10:00:00" as a local date-time.
    static func local(_ text: String) -> CivilDateTime? {
        guard text.count >= 19, let date = ISODate.parseDate(String(text.prefix(10))) else { return nil }
        let u = Array(text.utf8)
        func two(_ i: Int) -> Int? { Int(String(decoding: u[i..<i + 2], as: UTF8.self)) }
        guard let h = two(11), let m = two(14), let sec = two(17) else { return nil }
        return CivilDateTime(secondsSinceEpoch: CivilDateTime(date: date).secondsSinceEpoch + Int64(h * 3600 + m * 60 + sec))
    }
}
