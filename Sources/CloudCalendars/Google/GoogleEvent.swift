import Pipeline

/// One item of a Google Calendar `events.list` page (https://developers.google.com/calendar/api/v3/reference/events)
/// as a calpipe event.
///
/// The source asks for `singleEvents=true`: Google expands every recurring event itself and lists each instance of
/// the window as an event of its own, linked to its series by `recurringEventId` and to its place in the series by
/// `originalStartTime`. calpipe keeps that link the way iCalendar does: an instance is an override of its series
/// (UID: the series' id, RECURRENCE-ID: `originalStartTime`) with no RRULE, and the series' master is never sent.
/// The expand stage places overrides without a master each at its own time, so nothing is expanded twice, and
/// calendars written from it keep the instances of one series under one UID. A one-off event's UID is its `id`.
/// Deletions name events the same way: Google's cancelled instances carry `recurringEventId` and
/// `originalStartTime` (one instance goes), and a deleted event or series carries its `id` (every row of that UID
/// goes). Google's iCalendar UID is kept in `metadata["ical_uid"]`, the event's own id in `metadata["google_id"]`.
enum GoogleEvent {
    /// - Parameters:
    ///   - calendarZone: the calendar's zone (the page's `timeZone`), for times that name none.
    ///   - delta: a read of changes: cancelled items are deletions (in a whole read they are skipped).
    static func item(_ o: JSONObject, calendar: String?, calendarZone: Zone?, zones: ZoneDatabase, delta: Bool) throws -> CloudItem {
        let id = try o.text("id", in: "")
        let series = o.optionalText("recurringEventId")
        if o["status"]?.stringValue == "cancelled" {
            guard delta else { return .skipped }
            if let series, let original = o["originalStartTime"]?.objectValue {
                return .deletion(Deletion(uid: series, recurrenceID: try time(original, field: "originalStartTime", calendarZone: calendarZone, zones: zones)))
            }
            return .deletion(Deletion(uid: id))
        }
        guard let startObject = o["start"]?.objectValue else { throw ItemProblem(field: "start", message: "missing (expected {\"date\"} or {\"dateTime\"})") }
        let start = try time(startObject, field: "start", calendarZone: calendarZone, zones: zones)
        var event = Event(uid: series ?? id, start: start)
        if let end = o["end"]?.objectValue, o["endTimeUnspecified"]?.boolValue != true {
            event.endSpec = .end(try time(end, field: "end", calendarZone: calendarZone, zones: zones))
        }
        if series != nil {
            let original = try o["originalStartTime"]?.objectValue.map { try time($0, field: "originalStartTime", calendarZone: calendarZone, zones: zones) }
            event.recurrenceID = RecurrenceID(time: original ?? start)
        }
        event.title = o.optionalText("summary")
        event.description = o.optionalText("description")
        event.location = o.optionalText("location")
        event.url = o.optionalText("htmlLink")
        if let colorId = o.optionalText("colorId") { event.color = GoogleColors.event[colorId] }
        switch o["status"]?.stringValue {
        case "confirmed": event.status = "CONFIRMED"
        case "tentative": event.status = "TENTATIVE"
        default: break
        }
        if let organizer = o["organizer"]?.objectValue {
            event.organizer = Attendee(name: organizer.optionalText("displayName"), email: organizer.optionalText("email"))
        }
        for case let attendee? in (o["attendees"]?.arrayValue ?? []).map(\.objectValue) {
            event.attendees.append(Self.attendee(attendee))
        }
        if o["transparency"]?.stringValue == "transparent" { event.otherProperties.append(RawProperty(name: "TRANSP", value: "TRANSPARENT")) }
        if let visibility = o.optionalText("visibility"), visibility == "private" || visibility == "confidential" {
            event.otherProperties.append(RawProperty(name: "CLASS", value: visibility.uppercased()))
        }
        if let sequence = o["sequence"]?.numberValue { event.otherProperties.append(RawProperty(name: "SEQUENCE", value: String(Int(sequence)))) }
        if let calendar { event.metadata["calendar"] = calendar }
        event.metadata["google_id"] = id
        if let uid = o.optionalText("iCalUID") { event.metadata["ical_uid"] = uid }
        if let etag = o.optionalText("etag") { event.metadata["etag"] = etag }
        return .event(event)
    }

    /// An attendee: `optional` gives the role, `responseStatus` the PARTSTAT, `resource` a CUTYPE.
    static func attendee(_ a: JSONObject) -> Attendee {
        var attendee = Attendee(name: a.optionalText("displayName"), email: a.optionalText("email"),
                                role: a["optional"]?.boolValue == true ? "OPT-PARTICIPANT" : "REQ-PARTICIPANT")
        switch a["responseStatus"]?.stringValue {
        case "needsAction": attendee.status = "NEEDS-ACTION"
        case "accepted": attendee.status = "ACCEPTED"
        case "declined": attendee.status = "DECLINED"
        case "tentative": attendee.status = "TENTATIVE"
        default: break
        }
        if a["resource"]?.boolValue == true { attendee.otherParameters.append(Parameter(name: "CUTYPE", values: ["RESOURCE"])) }
        return attendee
    }

    /// `{"date": "2026-11-03"}` (an all-day event's day; its end is exclusive) or `{"dateTime": RFC 3339,
    /// "timeZone": IANA name}`: the instant shown in its zone, else in the calendar's, else as UTC.
    static func time(_ o: JSONObject, field: String, calendarZone: Zone?, zones: ZoneDatabase) throws -> EventTime {
        if let text = o["date"]?.stringValue {
            guard let date = ISODate.parseDate(text) else { throw ItemProblem(field: field + ".date", message: "expected a date such as \"2026-11-03\", got \"\(text)\"") }
            return .date(date)
        }
        guard let text = o["dateTime"]?.stringValue else { throw ItemProblem(field: field, message: "expected \"date\" or \"dateTime\"") }
        var zone = calendarZone
        if let name = o.optionalText("timeZone") {
            guard let named = zones.zone(named: name) else { throw ItemProblem(field: field + ".timeZone", message: "unknown time zone \"\(name)\"") }
            zone = named
        }
        switch ISODate.parse(text) {
        case .instant(let seconds, _)?:
            guard let zone, zone != .utc else { return .utc(seconds) }
            return .zoned(zone.local(fromUTC: seconds), zone)
        case .local(let local)?:
            guard let zone else { return .floating(local) }
            return zone == .utc ? .utc(local.secondsSinceEpoch) : .zoned(local, zone)
        default:
            throw ItemProblem(field: field + ".dateTime", message: "expected an RFC 3339 date-time such as \"2026-11-03T09:00:00+01:00\", got \"\(text)\"")
        }
    }
}
