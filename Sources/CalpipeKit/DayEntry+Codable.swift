import Exporters
import Importers
import Pipeline

/// A day entry codes as an entry of the days document (docs/json-format.md): `id`, the event's fields an
/// agenda shows, `all_day`, `start`/`end`, `duration_minutes`, `starts_at`/`ends_at`, `part`/`parts`,
/// `attendees` with `initials`, `source`, `calendar`, `recurrence_id` and `forecast`. Its offsets are those of
/// the zone `CodingUserInfoKey.calpipeTimeZone` names (the pipeline's: then the bytes are the json sink's),
/// else the entry's own (its local times less its UTC instants).
///
/// An entry describes one day of an instance, not its series: decoding gives an entry whose occurrence is that
/// day's part of the instance (its event: the entry's fields, its times: `starts_at`/`ends_at`), with the same
/// `id`; encoding it again gives the same JSON. An all-day entry's instants are midnights in the
/// `calpipeTimeZone` zone (UTC without it), and a local `recurrence_id` is read in that zone.
extension DayEntry: Codable {
    public func encode(to encoder: any Encoder) throws {
        try ModelJSON.encode(JSONRecords.dayEntry(self, zone: ModelJSON.zone(of: encoder, for: self)), of: self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let object = try ModelJSON.object("a day entry object", DayEntry.self, from: decoder)
        self = try ModelJSON.reading(decoder) { () throws(CalpipeError) in
            try DayEntry(json: object, zone: ModelJSON.zone(decoder.userInfo[.calpipeTimeZone]))
        }
    }

    private init(json o: JSONObject, zone: Zone?) throws(CalpipeError) {
        // The event: the entry's own fields, its instants as the times (not its `HH:MM` start and end).
        let named: [String: String] = ["start": "starts_at", "end": "ends_at"]
        let eventFields: Set<String> = ["uid", "title", "description", "location", "geo", "organizer", "attendees", "categories",
                                        "color", "url", "status", "starts_at", "ends_at"]
        var event = try EventMapping().event(lookup: { field in
            let key = named[field] ?? field
            return eventFields.contains(key) ? o[key] : nil
        }, zones: Calpipe.zones)
        if let source = o["source"]?.stringValue {
            event.metadata["source"] = source
            if let calendar = o[EventJSON.calendarKey]?.stringValue, calendar != source { event.metadata[EventJSON.calendarKey] = calendar }
        }
        func integer(_ key: String) throws(CalpipeError) -> Int {
            guard let n = o[key]?.numberValue, n.rounded() == n, abs(n) < 1e9 else {
                throw CalpipeError.rejected("expected a whole number, got \(o[key]?.kindDescription ?? "nothing")", path: key)
            }
            return Int(n)
        }
        guard let allDay = o["all_day"]?.boolValue else { throw CalpipeError.rejected("expected true or false", path: "all_day") }
        let instance = try o["recurrence_id"].flatMap { $0.isNull ? nil : $0 }.map { v throws(CalpipeError) in try ModelJSON.instance(v, zone: zone) }
        let occurrence = Occurrence(event: event, start: event.start, end: event.end, recurrenceID: instance)

        let day: CivilDate, start: CivilDateTime, end: CivilDateTime, startUTC: Int64, endUTC: Int64
        switch (event.start, event.end) {
        case (.date(let d), _):
            day = d
            start = CivilDateTime(date: d)
            end = CivilDateTime(date: d.adding(days: 1))
            startUTC = (zone ?? .utc).utc(fromLocal: start)
            endUTC = (zone ?? .utc).utc(fromLocal: end)
        case (.utc(let s), .utc(let e)):
            // starts_at/ends_at carry their offsets: the local times are the instants moved by them.
            guard case .instant(_, let startOffset)? = ISODate.parse(o["starts_at"]?.stringValue ?? ""),
                  case .instant(_, let endOffset)? = ISODate.parse(o["ends_at"]?.stringValue ?? "") else {
                throw CalpipeError.rejected("expected a time with its offset", path: "starts_at")
            }
            start = CivilDateTime(secondsSinceEpoch: s + Int64(startOffset))
            end = CivilDateTime(secondsSinceEpoch: e + Int64(endOffset))
            day = start.date
            startUTC = s
            endUTC = e
        default:
            throw CalpipeError.rejected("expected a date, or a time with its offset", path: "starts_at")
        }
        self.init(occurrence: occurrence, day: day, part: try integer("part"), parts: try integer("parts"), allDay: allDay,
                  start: start, end: end, startUTC: startUTC, endUTC: endUTC)
        if case .object(let weather)? = o["forecast"] { forecast = try ForecastResult(json: weather) }
    }
}

extension ForecastResult {
    /// The result a weather object says: a forecast for its place, or why there is none.
    init(json o: JSONObject) throws(CalpipeError) {
        guard o["available"]?.boolValue == true else {
            self = .missing(reason: o["reason"]?.stringValue ?? "unavailable")
            return
        }
        guard let latitude = o["latitude"]?.numberValue, let longitude = o["longitude"]?.numberValue else {
            throw CalpipeError.rejected("expected the forecast's latitude and longitude", path: "forecast")
        }
        self = .forecast(try DailyForecast(json: o), place: Coordinate(latitude: latitude, longitude: longitude))
    }
}
