import Pipeline

/// Reads one record through an `EventMapping`: one method per kind of field, each throwing a
/// `CalpipeError.rejected` that names the field's path in the record.
struct RecordReader {
    let mapping: EventMapping
    let lookup: (String) -> JSONValue?
    let zones: ZoneDatabase
    /// Repairs reject instead (`--strict`).
    var strict = false
    /// Repairs, with the field's path.
    var warn: (String) -> Void = { _ in }

    func path(_ field: String) -> String { mapping.path(for: field) }

    func value(_ field: String) -> JSONValue? {
        guard let v = lookup(path(field)), !v.isNull else { return nil }
        return v
    }

    func text(_ field: String) throws(CalpipeError) -> String? {
        guard let v = value(field) else { return nil }
        switch v {
        case .string(let s): return s
        case .number(let n): return JSONWriter.numberText(n)
        case .bool(let b): return b ? "true" : "false"
        default: throw CalpipeError.rejected("expected text, got \(v.kindDescription)", path: path(field))
        }
    }

    func zone(_ field: String, default fallback: Zone?) throws(CalpipeError) -> Zone? {
        guard let name = try text(field) else { return fallback }
        guard let z = zones.zone(named: name) else {
            throw CalpipeError.rejected("unknown time zone \"\(name)\" (expected an IANA name such as \"Europe/Berlin\")", path: path(field))
        }
        return z
    }

    /// Repairs one part: a warning, or under `strict` the error that rejects the record.
    func repair(_ field: String, _ problem: String, _ done: String) throws(CalpipeError) {
        if strict { throw CalpipeError.rejected(problem, path: field) }
        warn("\(field): \(problem); \(done)")
    }

    /// The zone named in `field`; a name calpipe cannot resolve (a zone defined only by the VTIMEZONE of the
    /// file the events came from) is read as the fixed offset calpipe wrote beside it in `instantField`
    /// ("starts_at"/"ends_at"), with a warning: instants are exact, recurrences across DST changes are not.
    func zone(_ field: String, default fallback: Zone?, instantField: String) throws(CalpipeError) -> Zone? {
        do {
            return try zone(field, default: fallback)
        } catch {
            guard let name = try text(field), let instant = try text(instantField),
                  case .instant(_, let offset)? = ISODate.parse(instant.trimmingWhitespace()) else { throw error }
            try repair(path(field), "unknown time zone \"\(name)\"", "read as the offset \(Zone.offsetText(offset)) of \(path(instantField)) (\"\(instant)\")")
            return Zone.fixed(offsetSeconds: offset, identifier: name)
        }
    }

    func event() throws(CalpipeError) -> Event {
        let zone = try self.zone("timezone", default: mapping.zone, instantField: "starts_at")
        let endZone: Zone?
        if value("end_timezone") == nil, let zone, zones.zone(named: zone.identifier) == nil, value("ends_at") != nil, mapping.zone?.identifier != zone.identifier {
            // A zone read from its offset: the end has its own offset (a DST change may fall inside the event);
            // the warning about the zone was given for the start.
            if let instant = try text("ends_at"), case .instant(_, let offset)? = ISODate.parse(instant.trimmingWhitespace()) {
                endZone = Zone.fixed(offsetSeconds: offset, identifier: zone.identifier)
            } else {
                endZone = zone
            }
        } else {
            endZone = try self.zone("end_timezone", default: zone, instantField: "ends_at")
        }
        var allDay: Bool?
        if let v = value("all_day") {
            guard case .bool(let b) = v else { throw CalpipeError.rejected("expected true or false, got \(v.kindDescription)", path: path("all_day")) }
            allDay = b
        }
        guard let startValue = value("start") else {
            throw CalpipeError.rejected("missing (expected an ISO-8601 date or date-time, or epoch seconds)", path: path("start"))
        }
        var start = try mapping.time(startValue, field: path("start"), zone: zone)
        if allDay == true { start = .date(start.localTime.date) }

        let uid: String
        if let given = try text("uid"), !given.isEmpty { uid = given } else { uid = try derivedUID(start: start) }
        var event = Event(uid: uid, start: start)

        if let endValue = value("end") {
            var end = try mapping.time(endValue, field: path("end"), zone: endZone)
            if start.isDate { end = .date(end.localTime.date) }
            event.endSpec = .end(end)
        } else if let d = try text("duration") {
            guard let duration = CalDuration(iCalendar: d) else {
                throw CalpipeError.rejected("invalid duration \"\(d)\" (expected ISO-8601 such as PT1H30M or P2D)", path: path("duration"))
            }
            event.endSpec = .duration(duration)
        }

        event.title = try text("title")
        event.description = try text("description")
        event.location = try text("location")
        event.color = try text("color")
        event.url = try text("url")
        event.status = try text("status").map { $0.uppercased() }
        event.coordinate = try coordinate()
        if let v = value("organizer") { event.organizer = try person(v, field: path("organizer")) }
        if let v = value("attendees") {
            guard case .array(let items) = v else { throw CalpipeError.rejected("expected an array, got \(v.kindDescription)", path: path("attendees")) }
            for (i, item) in items.enumerated() { event.attendees.append(try person(item, field: path("attendees") + "[\(i)]")) }
        }
        event.categories = try categories()
        event.recurrence.rules = try rules("rrule")
        event.recurrence.exceptionRules = try rules("exrule")
        event.recurrence.dates = try recurrenceDates(zone: zone)
        event.recurrence.exceptionDates = try times("exdate", zone: zone)
        if let v = value("recurrence_id") {
            let t = try mapping.time(v, field: path("recurrence_id"), zone: zone)
            let range = try text("recurrence_range")?.uppercased()
            event.recurrenceID = RecurrenceID(time: start.isDate ? .date(t.localTime.date) : t, thisAndFuture: range == "THISANDFUTURE")
        }
        if let v = value("properties") { event.otherProperties = try properties(v) }
        return event
    }

    func coordinate() throws(CalpipeError) -> Coordinate? {
        var lat: Double?
        var lon: Double?
        if let g = value("geo") {
            switch g {
            case .object(let o):
                lat = o["latitude"]?.numberValue ?? o["lat"]?.numberValue
                lon = o["longitude"]?.numberValue ?? o["lon"]?.numberValue ?? o["lng"]?.numberValue
            case .array(let a) where a.count == 2:
                lat = a[0].numberValue; lon = a[1].numberValue
            case .string(let s):
                // "52.52;13.40" as in iCalendar GEO, or "52.52,13.40".
                let parts = s.split(whereSeparator: { $0 == ";" || $0 == "," }).map { Double($0.trimmingWhitespace()) }
                if parts.count == 2 { lat = parts[0]; lon = parts[1] }
            default: break
            }
            guard let lat, let lon else {
                throw CalpipeError.rejected("expected {\"latitude\": .., \"longitude\": ..}, [lat, lon] or \"lat;lon\"", path: path("geo"))
            }
            let c = Coordinate(latitude: lat, longitude: lon)
            guard c.isValid else { throw CalpipeError.rejected("coordinates out of range", path: path("geo")) }
            return c
        }
        func number(_ field: String) throws(CalpipeError) -> Double? {
            guard let v = value(field) else { return nil }
            if case .number(let n) = v { return n }
            if case .string(let s) = v, let n = Double(s.trimmingWhitespace()) { return n }
            throw CalpipeError.rejected("expected a number, got \(v.kindDescription) \(v.preview)", path: path(field))
        }
        lat = try number("latitude")
        lon = try number("longitude")
        switch (lat, lon) {
        case (nil, nil): return nil
        case (let a?, let b?):
            let c = Coordinate(latitude: a, longitude: b)
            guard c.isValid else { throw CalpipeError.rejected("coordinates out of range (latitude -90...90, longitude -180...180)", path: path("latitude")) }
            return c
        case (nil, _): throw CalpipeError.rejected("missing (longitude is given)", path: path("latitude"))
        case (_, nil): throw CalpipeError.rejected("missing (latitude is given)", path: path("longitude"))
        }
    }

    func person(_ value: JSONValue, field: String) throws(CalpipeError) -> Attendee {
        switch value {
        case .string(let s):
            // "Name <mail@example.com>", "mailto:mail@example.com" or a plain address or name.
            if let lt = s.firstIndex(of: "<"), let gt = s.lastIndex(of: ">"), lt < gt {
                let name = s[..<lt].trimmingWhitespace()
                return Attendee(name: name.isEmpty ? nil : name, email: String(s[s.index(after: lt)..<gt]))
            }
            let lower = s.lowercased()
            if lower.hasPrefix("mailto:") { return Attendee(email: String(s.dropFirst(7))) }
            return s.contains("@") ? Attendee(email: s) : Attendee(name: s)
        case .object(let o):
            func str(_ key: String) throws(CalpipeError) -> String? {
                guard let v = o[key], !v.isNull else { return nil }
                guard case .string(let s) = v else { throw CalpipeError.rejected("expected a string, got \(v.kindDescription)", path: field + "." + key) }
                return s
            }
            var email = try str("email")
            if let e = email, e.lowercased().hasPrefix("mailto:") { email = String(e.dropFirst(7)) }
            return Attendee(name: try str("name"), email: email, role: try str("role")?.uppercased(), status: try str("status")?.uppercased())
        default:
            throw CalpipeError.rejected("expected a name/address string or an object with name and email, got \(value.kindDescription)", path: field)
        }
    }

    func categories() throws(CalpipeError) -> [String] {
        guard let v = value("categories") else { return [] }
        switch v {
        case .string(let s):
            return s.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        case .array(let items):
            var out: [String] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else {
                    throw CalpipeError.rejected("expected a string, got \(item.kindDescription)", path: path("categories") + "[\(i)]")
                }
                out.append(s)
            }
            return out
        default:
            throw CalpipeError.rejected("expected an array of strings or comma-separated text, got \(v.kindDescription)", path: path("categories"))
        }
    }

    func rules(_ field: String) throws(CalpipeError) -> [RecurrenceRule] {
        guard let v = value(field) else { return [] }
        let items: [(JSONValue, String)]
        if case .array(let a) = v { items = a.enumerated().map { ($1, path(field) + "[\($0)]") } } else { items = [(v, path(field))] }
        var out: [RecurrenceRule] = []
        for (item, itemPath) in items {
            guard case .string(var s) = item else { throw CalpipeError.rejected("expected RRULE text such as \"FREQ=WEEKLY;BYDAY=MO\", got \(item.kindDescription)", path: itemPath) }
            if s.uppercased().hasPrefix("RRULE:") || s.uppercased().hasPrefix("EXRULE:") { s = String(s[s.index(after: s.firstIndex(of: ":")!)...]) }
            do {
                let parsed = try RecurrenceRule.parse(s, strict: strict)
                for note in parsed.repairs { warn("\(itemPath): \(note)") }
                out.append(parsed.rule)
            } catch {
                try repair(itemPath, "invalid rule \"\(s)\": \(error)", "the event is kept without it")
            }
        }
        return out
    }

    /// The values of a list of times (RDATE, EXDATE): an array, comma-separated text, or one value, each with
    /// its path. A value that cannot be read is left out with a warning (the rest of the event is kept).
    func items(_ field: String) -> [(value: JSONValue, path: String)] {
        guard let v = value(field) else { return [] }
        if case .array(let a) = v { return a.enumerated().map { ($1, path(field) + "[\($0)]") } }
        if case .string(let s) = v, s.contains(",") { return s.split(separator: ",").map { (.string(String($0)), path(field)) } }
        return [(v, path(field))]
    }

    func times(_ field: String, zone: Zone?) throws(CalpipeError) -> [EventTime] {
        var out: [EventTime] = []
        for (item, itemPath) in items(field) {
            do {
                out.append(try mapping.time(item, field: itemPath, zone: zone))
            } catch {
                try repair((error.path ?? ""), error.message, "that value is left out")
            }
        }
        return out
    }

    /// RDATE values: times, and periods as calpipe writes them ("start/end" or "start/duration", RFC 5545 3.3.9)
    /// or as two-element arrays `[start, end or duration]` (jCal's form).
    func recurrenceDates(zone: Zone?) throws(CalpipeError) -> [RecurrenceDate] {
        var out: [RecurrenceDate] = []
        for (item, itemPath) in items("rdate") {
            do throws(CalpipeError) {
                var parts: (JSONValue, String)?
                if case .string(let s) = item, let slash = s.firstIndex(of: "/") {
                    parts = (.string(String(s[..<slash])), String(s[s.index(after: slash)...]))
                } else if case .array(let pair) = item, pair.count == 2, case .string(let second) = pair[1] {
                    parts = (pair[0], second)
                }
                guard let (startValue, second) = parts else {
                    out.append(.time(try mapping.time(item, field: itemPath, zone: zone)))
                    continue
                }
                let start = try mapping.time(startValue, field: itemPath, zone: zone)
                let trimmed = second.trimmingWhitespace()
                if trimmed.hasPrefix("P") || trimmed.hasPrefix("+P") || trimmed.hasPrefix("-P") {
                    guard let d = CalDuration(iCalendar: trimmed) else {
                        throw CalpipeError.rejected("invalid period duration \"\(second)\" (expected ISO-8601 such as PT2H)", path: itemPath)
                    }
                    out.append(.periodWithDuration(start: start, duration: d))
                } else {
                    out.append(.period(start: start, end: try mapping.time(.string(trimmed), field: itemPath, zone: zone)))
                }
            } catch {
                try repair((error.path ?? ""), error.message, "that value is left out")
            }
        }
        return out
    }

    func properties(_ v: JSONValue) throws(CalpipeError) -> [RawProperty] {
        guard case .array(let items) = v else { throw CalpipeError.rejected("expected an array of {\"name\", \"value\"} objects", path: path("properties")) }
        var out: [RawProperty] = []
        for (i, item) in items.enumerated() {
            let itemPath = path("properties") + "[\(i)]"
            guard case .object(let o) = item, let name = o["name"]?.stringValue, let value = o["value"]?.stringValue else {
                throw CalpipeError.rejected("expected an object with string \"name\" and \"value\"", path: itemPath)
            }
            var parameters: [Parameter] = []
            if let p = o["parameters"] {
                guard case .object(let po) = p else { throw CalpipeError.rejected("expected an object", path: itemPath + ".parameters") }
                for m in po.members {
                    switch m.value {
                    case .string(let s): parameters.append(Parameter(m.key, s))
                    case .array(let a): parameters.append(Parameter(name: m.key, values: a.compactMap(\.stringValue)))
                    default: throw CalpipeError.rejected("expected a string or an array of strings", path: itemPath + ".parameters." + m.key)
                    }
                }
            }
            out.append(RawProperty(name: name.uppercased(), parameters: parameters, value: value))
        }
        return out
    }

    /// A stable uid for records without one: a hash of title, start and location, so re-runs agree.
    func derivedUID(start: EventTime) throws(CalpipeError) -> String {
        let key = (try text("title") ?? "") + "\u{1F}" + start.iso8601 + "\u{1F}" + (try text("location") ?? "")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "calpipe-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
