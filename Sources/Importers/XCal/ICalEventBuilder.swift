import Pipeline

/// Builds an `Event` from a decoded VEVENT, following the same rules as the iCalendar text importer:
/// known properties fill the event's fields, everything else is kept as `RawProperty` (with a VALUE
/// parameter when its type is not the property's default), nested components as `RawComponent`.
struct ICalEventBuilder {
    let zones: ZoneDatabase

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    func event(from component: ICalComponent) throws -> Event {
        let props = component.properties
        guard let uidProperty = props.first(where: { $0.name == "UID" }), let uid = uidProperty.values.first, !uid.isEmpty else {
            throw Failure(message: "VEVENT has no UID")
        }
        guard let startProperty = props.first(where: { $0.name == "DTSTART" }) else {
            throw Failure(message: "VEVENT \"\(uid)\" has no DTSTART")
        }
        var event = Event(uid: uid, start: try time(startProperty))
        event.origin = component.location
        var seen = Set<String>()
        for p in props {
            let first = seen.insert(p.name).inserted
            switch p.name {
            case "UID" where first:
                keepParameters(p, except: [], in: &event)
            case "DTSTART" where first:
                keepParameters(p, except: ["TZID"], in: &event)
            case "DTEND" where first && !seen.contains("DURATION"):
                event.endSpec = .end(try time(p))
                keepParameters(p, except: ["TZID"], in: &event)
            case "DURATION" where first && !seen.contains("DTEND"):
                guard let text = p.values.first, let d = CalDuration(iCalendar: text) else {
                    throw Failure(message: "DURATION \"\(p.values.first ?? "")\" is not a duration")
                }
                event.endSpec = .duration(d)
                keepParameters(p, except: [], in: &event)
            case "SUMMARY" where first:
                event.title = p.values.first
                keepParameters(p, except: [], in: &event)
            case "DESCRIPTION" where first:
                event.description = p.values.first
                keepParameters(p, except: [], in: &event)
            case "LOCATION" where first:
                event.location = p.values.first
                keepParameters(p, except: [], in: &event)
            case "COLOR" where first:
                event.color = p.values.first
                keepParameters(p, except: [], in: &event)
            case "URL" where first:
                event.url = p.values.first
                keepParameters(p, except: [], in: &event)
            case "STATUS" where first:
                event.status = p.values.first
                keepParameters(p, except: [], in: &event)
            case "GEO" where first:
                if let c = coordinate(p) {
                    event.coordinate = c
                    keepParameters(p, except: [], in: &event)
                } else {
                    event.otherProperties.append(raw(p))
                }
            case "CATEGORIES":
                event.categories += p.values
                if first { keepParameters(p, except: [], in: &event) }
            case "ORGANIZER" where first:
                event.organizer = attendee(p)
            case "ATTENDEE":
                event.attendees.append(attendee(p))
            case "RRULE", "EXRULE":
                for text in p.values {
                    let rule: RecurrenceRule
                    do { rule = try RecurrenceRule(parsing: text) } catch { throw Failure(message: "\(p.name) \"\(text)\": \(error)") }
                    if p.name == "RRULE" { event.recurrence.rules.append(rule) } else { event.recurrence.exceptionRules.append(rule) }
                }
                keepParameters(p, except: [], in: &event)
            case "RDATE":
                for text in p.values { event.recurrence.dates.append(try recurrenceDate(p, text)) }
                keepParameters(p, except: ["TZID"], in: &event)
            case "EXDATE":
                for text in p.values { event.recurrence.exceptionDates.append(try time(p, text: text)) }
                keepParameters(p, except: ["TZID"], in: &event)
            case "RECURRENCE-ID" where first:
                let range = p.parameter("RANGE")?.uppercased()
                event.recurrenceID = RecurrenceID(time: try time(p), thisAndFuture: range == "THISANDFUTURE")
                keepParameters(p, except: ["TZID", "RANGE"], in: &event)
            default:
                event.otherProperties.append(raw(p))
            }
        }
        event.components = component.components.map(rawComponent)
        return event
    }

    /// Parameters of a field property that have no field of their own.
    private func keepParameters(_ p: ICalProperty, except: Set<String>, in event: inout Event) {
        var kept = p.parameters.filter { !except.contains($0.name) }
        // Times carry their type (date, date-time, period) in the model already.
        let typeInModel = ["DTSTART", "DTEND", "RECURRENCE-ID", "RDATE", "EXDATE"].contains(p.name) && ["date", "date-time", "period"].contains(p.valueType)
        if p.valueType != ICalValueTypes.defaultType(of: p.name), !typeInModel {
            kept.insert(Parameter("VALUE", p.valueType.uppercased()), at: 0)
        }
        if !kept.isEmpty { event.fieldParameters[p.name, default: []] += kept }
    }

    func raw(_ p: ICalProperty) -> RawProperty {
        var parameters = p.parameters
        if p.valueType != ICalValueTypes.defaultType(of: p.name), p.valueType != "unknown",
           !(p.name.hasPrefix("X-") && p.valueType == "text") {
            parameters.insert(Parameter("VALUE", p.valueType.uppercased()), at: 0)
        }
        return RawProperty(name: p.name, parameters: parameters, value: p.values.joined(separator: ","))
    }

    func rawComponent(_ c: ICalComponent) -> RawComponent {
        RawComponent(name: c.name, properties: c.properties.map(raw), components: c.components.map(rawComponent))
    }

    private func attendee(_ p: ICalProperty) -> Attendee {
        var a = Attendee()
        let address = p.values.first ?? ""
        a.email = address.lowercased().hasPrefix("mailto:") ? String(address.dropFirst(7)) : address
        for parameter in p.parameters {
            switch parameter.name {
            case "CN": a.name = parameter.values.first
            case "ROLE" where p.name == "ATTENDEE": a.role = parameter.values.first
            case "PARTSTAT" where p.name == "ATTENDEE": a.status = parameter.values.first
            default: a.otherParameters.append(parameter)
            }
        }
        return a
    }

    private func coordinate(_ p: ICalProperty) -> Coordinate? {
        guard let text = p.values.first else { return nil }
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        let c = Coordinate(latitude: lat, longitude: lon)
        return c.isValid ? c : nil
    }

    private func recurrenceDate(_ p: ICalProperty, _ text: String) throws -> RecurrenceDate {
        guard p.valueType == "period" else { return .time(try time(p, text: text)) }
        guard let (s, e) = ICalValueText.periodParts(text) else { throw Failure(message: "RDATE period \"\(text)\" has no \"/\"") }
        let start = try time(p, text: s)
        if let duration = CalDuration(iCalendar: e) { return .periodWithDuration(start: start, duration: duration) }
        return .period(start: start, end: try time(p, text: e))
    }

    private func time(_ p: ICalProperty) throws -> EventTime {
        guard let text = p.values.first else { throw Failure(message: "\(p.name) has no value") }
        return try time(p, text: text)
    }

    /// A DATE or DATE-TIME value with the property's TZID.
    func time(_ p: ICalProperty, text: String) throws -> EventTime {
        guard let parsed = BasicDateText.parse(text) else { throw Failure(message: "\(p.name) \"\(text)\" is not a date or date-time") }
        switch parsed {
        case .date:
            guard text.count == 8 else { throw Failure(message: "\(p.name) \"\(text)\" is not a date") }
            return parsed
        case .floating(let local):
            guard let tzid = p.parameter("TZID") else { return parsed }
            guard let zone = zones.zone(named: tzid) else { throw Failure(message: "\(p.name) has an unknown time zone \"\(tzid)\"") }
            return .zoned(local, zone)
        default:
            return parsed
        }
    }
}
