import Pipeline

/// The json sink's array of records (`shape: events`), for values held in memory: the same writer
/// (`JSONBytes.event`) and the same framing as `JSONExporter`, so the bytes are the sink's.
package enum JSONRecords {
    package static func events(_ events: [Event], pretty: Bool = true) -> [UInt8] {
        let out = JSONBytes(pretty: pretty)
        out.raw("[")
        for (i, event) in events.enumerated() {
            if i > 0 { out.byte(0x2C) }
            if pretty { out.raw("\n  ") }
            out.event(event, level: 1)
        }
        out.append(pretty && !events.isEmpty ? "\n]\n" : "]\n")
        return out.bytes
    }
}

/// One value of the model in its documented JSON (docs/json-format.md), by the json sink's own writer: the
/// `Codable` of `CalpipeKit`'s model types is these bytes.
extension JSONRecords {
    /// An occurrence as the sink's `shape: occurrences` writes it, its instants in `zone`.
    package static func occurrence(_ occurrence: Occurrence, zone: Zone) -> [UInt8] {
        let out = JSONBytes(pretty: false)
        out.occurrence(occurrence, zone: zone, level: 1)
        return out.bytes
    }

    /// A day entry as an entry of the days document, its offsets those of `zone` (the pipeline's), or without
    /// one its own (its local times less its UTC instants).
    package static func dayEntry(_ entry: DayEntry, zone: Zone?) -> [UInt8] {
        let out = JSONBytes(pretty: false)
        out.dayEntry(entry, zone: zone, level: 1, initials: AttendeeInitials())
        return out.bytes
    }

    /// An attendee (or organizer) as an event's `attendees[]` item: name, email, role and status when known.
    package static func attendee(_ attendee: Attendee) -> [UInt8] {
        let out = JSONBytes(pretty: false)
        out.person(attendee, level: 1)
        return out.bytes
    }

    /// A place as an event's `geo`: `{"latitude", "longitude"}`.
    package static func coordinate(_ coordinate: Coordinate) -> [UInt8] {
        let out = JSONBytes(pretty: false)
        out.coordinate(coordinate, level: 1)
        return out.bytes
    }

    /// A forecast as the weather object's members that are the forecast's: provider, then weather_code, icon,
    /// summary ... units, fetched_at (the place is the day's, not the forecast's).
    package static func forecast(_ forecast: DailyForecast) -> [UInt8] {
        let out = JSONBytes(pretty: false)
        var first = true
        out.raw("{")
        out.key("provider", level: 1, first: &first)
        out.quoted(forecast.provider)
        out.forecastMembers(forecast, level: 1, first: &first)
        out.close("}", level: 1, empty: first)
        return out.bytes
    }
}
