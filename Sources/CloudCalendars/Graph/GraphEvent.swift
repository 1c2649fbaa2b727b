import Pipeline

/// One event of a Microsoft Graph `calendarView` (or its delta) page
/// (https://learn.microsoft.com/graph/api/resources/event) as a calpipe event.
///
/// A calendar view is already expanded by the server: it lists one-off events (`type: singleInstance`) and the
/// occurrences and exceptions of series (`occurrence`, `exception`, linked by `seriesMasterId`), never the series
/// masters. Each becomes an event of its own whose UID is its Graph `id`, with no recurrence, so the expand stage
/// takes it as it is. The id is the UID because it is all a delta's removal names (`{"id": ..., "@removed": ...}`):
/// a removed occurrence must find its row. The series link is kept in `metadata["series_master_id"]`, Outlook's
/// iCalendar UID in `metadata["ical_uid"]`.
enum GraphEvent {
    /// - Parameters:
    ///   - calendar: the calendar's name and `#rrggbb` colour.
    ///   - delta: a read of changes: removed items are deletions (in a whole read they are skipped).
    static func item(_ o: JSONObject, calendar: (name: String?, color: String?), zones: ZoneDatabase, delta: Bool) throws -> CloudItem {
        let id = try o.text("id", in: "")
        if o["@removed"] != nil { return delta ? .deletion(Deletion(uid: id)) : .skipped }
        let allDay = o["isAllDay"]?.boolValue == true
        var event = Event(uid: id, start: try time(o, "start", allDay: allDay, zones: zones))
        if o["end"] != nil { event.endSpec = .end(try time(o, "end", allDay: allDay, zones: zones)) }
        event.title = o.optionalText("subject")
        event.description = o.optionalText("bodyPreview")
        event.location = o["location"]?.objectValue?.optionalText("displayName")
        event.url = o.optionalText("webLink")
        event.categories = (o["categories"]?.arrayValue ?? []).compactMap(\.stringValue)
        if o["isCancelled"]?.boolValue == true { event.status = "CANCELLED" }
        if let address = o["organizer"]?.objectValue?["emailAddress"]?.objectValue {
            event.organizer = Attendee(name: address.optionalText("name"), email: address.optionalText("address"))
        }
        for case let attendee? in (o["attendees"]?.arrayValue ?? []).map(\.objectValue) {
            event.attendees.append(Self.attendee(attendee))
        }
        if let showAs = o.optionalText("showAs") {
            // Outlook's own iCalendar property for it; "free" is also TRANSP:TRANSPARENT (RFC 5545 3.8.2.7).
            if showAs == "free" { event.otherProperties.append(RawProperty(name: "TRANSP", value: "TRANSPARENT")) }
            event.otherProperties.append(RawProperty(name: "X-MICROSOFT-CDO-BUSYSTATUS", value: showAs.uppercased()))
        }
        if let sensitivity = o.optionalText("sensitivity"), sensitivity == "private" || sensitivity == "confidential" {
            event.otherProperties.append(RawProperty(name: "CLASS", value: sensitivity.uppercased()))
        }
        if let name = calendar.name { event.metadata["calendar"] = name }
        if let color = calendar.color { event.metadata[Event.calendarColorKey] = color }
        if let master = o.optionalText("seriesMasterId") { event.metadata["series_master_id"] = master }
        if let uid = o.optionalText("iCalUId") { event.metadata["ical_uid"] = uid }
        if let type = o.optionalText("type") { event.metadata["graph_type"] = type }
        return .event(event)
    }

    /// An attendee: `type` gives the role (a resource is also CUTYPE=RESOURCE), `status.response` the PARTSTAT.
    static func attendee(_ a: JSONObject) -> Attendee {
        let address = a["emailAddress"]?.objectValue
        var attendee = Attendee(name: address?.optionalText("name"), email: address?.optionalText("address"))
        switch a["type"]?.stringValue {
        case "required": attendee.role = "REQ-PARTICIPANT"
        case "optional": attendee.role = "OPT-PARTICIPANT"
        case "resource":
            attendee.role = "NON-PARTICIPANT"
            attendee.otherParameters.append(Parameter(name: "CUTYPE", values: ["RESOURCE"]))
        default: break
        }
        switch a["status"]?.objectValue?["response"]?.stringValue {
        case "none", "notResponded": attendee.status = "NEEDS-ACTION"
        case "accepted", "organizer": attendee.status = "ACCEPTED"
        case "tentativelyAccepted": attendee.status = "TENTATIVE"
        case "declined": attendee.status = "DECLINED"
        default: break
        }
        return attendee
    }

    /// `{"dateTime": "2026-11-02T08:00:00.0000000", "timeZone": "UTC"}`: a wall-clock time in the zone the request
    /// asked for (`Prefer: outlook.timezone`), an IANA or a Windows name ("W. Europe Standard Time"). An all-day
    /// event's start and (exclusive) end are midnights: they become dates.
    static func time(_ o: JSONObject, _ field: String, allDay: Bool, zones: ZoneDatabase) throws -> EventTime {
        guard let value = o[field]?.objectValue else { throw ItemProblem(field: field, message: "expected {\"dateTime\", \"timeZone\"}") }
        let text = try value.text("dateTime", in: field + ".")
        let local: CivilDateTime
        switch ISODate.parse(text) {
        case .local(let l)?: local = l
        case .date(let d)?: local = CivilDateTime(date: d)
        case .instant(let seconds, _)?:
            if allDay { return .date(CivilDateTime(secondsSinceEpoch: seconds).date) }
            return .utc(seconds)
        default:
            throw ItemProblem(field: field + ".dateTime", message: "expected a date-time such as \"2026-11-02T08:00:00.0000000\", got \"\(text)\"")
        }
        if allDay { return .date(local.date) }
        let name = value.optionalText("timeZone") ?? "UTC"
        guard let zone = zones.zone(named: name) else {
            throw ItemProblem(field: field + ".timeZone", message: "unknown time zone \"\(name)\" (neither an IANA nor a Windows zone name)")
        }
        return zone.identifier == "UTC" ? .utc(local.secondsSinceEpoch) : .zoned(local, zone)
    }
}
