import Pipeline

/// Turning a finished VEVENT into an `Event`: fields, times and zones, recurrence data, the rest kept raw.
extension ICSEventBuilder {
    /// Why an event was not made: rejected, or waiting for a VTIMEZONE later in the VCALENDAR.
    enum Failure: Error {
        case rejected(line: Int, reason: String)
        case waitForZone
        /// A worker's builder (`isWorker`) met what only the main builder may do: build a VTIMEZONE.
        case needsMain
    }

    /// Properties whose first occurrence becomes a field. Later duplicates are kept raw.
    private enum Field: String, CaseIterable {
        case uid = "UID", summary = "SUMMARY", description = "DESCRIPTION", location = "LOCATION", geo = "GEO"
        case organizer = "ORGANIZER", color = "COLOR", url = "URL", status = "STATUS"
        case start = "DTSTART", end = "DTEND", duration = "DURATION", recurrenceID = "RECURRENCE-ID"

        /// The field a property name fills, if any (by length first: cheaper than a string switch).
        init?(name: String) {
            let f: Field?
            switch name.utf8.count {
            case 3: f = name == "UID" ? .uid : name == "GEO" ? .geo : name == "URL" ? .url : nil
            case 5: f = name == "DTEND" ? .end : name == "COLOR" ? .color : nil
            case 6: f = name == "STATUS" ? .status : nil
            case 7: f = name == "DTSTART" ? .start : name == "SUMMARY" ? .summary : nil
            case 8: f = name == "LOCATION" ? .location : name == "DURATION" ? .duration : nil
            case 9: f = name == "ORGANIZER" ? .organizer : nil
            case 11: f = name == "DESCRIPTION" ? .description : nil
            case 13: f = name == "RECURRENCE-ID" ? .recurrenceID : nil
            default: f = nil
            }
            guard let f else { return nil }
            self = f
        }
    }

    /// Properties that are not fields but are read (the rest are kept raw), found by length first: a switch over
    /// strings would compare the name with every case.
    private enum ListProperty {
        case attendee, categories, rrule, exrule, rdate, exdate, other
        /// METHOD, a property of the VCALENDAR (RFC 5545 3.7.2) that some feeds repeat in every VEVENT.
        case method

        init(name: String) {
            switch name.utf8.count {
            case 5: self = name == "RRULE" ? .rrule : name == "RDATE" ? .rdate : .other
            case 6: self = name == "EXRULE" ? .exrule : name == "EXDATE" ? .exdate : name == "METHOD" ? .method : .other
            case 8: self = name == "ATTENDEE" ? .attendee : .other
            case 10: self = name == "CATEGORIES" ? .categories : .other
            default: self = .other
            }
        }
    }

    /// Where the first line of each field is in the event's properties (-1: none). Indices, not copies of the
    /// lines: reading a line where it is costs no reference counting.
    private struct Fields {
        var uid = -1, summary = -1, description = -1, location = -1, geo = -1, organizer = -1, color = -1
        var url = -1, status = -1, start = -1, end = -1, duration = -1, recurrenceID = -1

        subscript(_ f: Field) -> Int {
            get {
                switch f {
                case .uid: uid; case .summary: summary; case .description: description; case .location: location; case .geo: geo
                case .organizer: organizer; case .color: color; case .url: url; case .status: status; case .start: start
                case .end: end; case .duration: duration; case .recurrenceID: recurrenceID
                }
            }
            set {
                switch f {
                case .uid: uid = newValue; case .summary: summary = newValue; case .description: description = newValue
                case .location: location = newValue; case .geo: geo = newValue; case .organizer: organizer = newValue
                case .color: color = newValue; case .url: url = newValue; case .status: status = newValue
                case .start: start = newValue; case .end: end = newValue; case .duration: duration = newValue
                case .recurrenceID: recurrenceID = newValue
                }
            }
        }
    }

    /// `Field.allCases` made once (the synthesized property builds a new array on each use).
    private static let allFields: [Field] = Field.allCases

    /// The repairs made while making one event (see docs/formats.md, "What calpipe repairs"): reported with the
    /// event's UID once it is made. Under `strict` the first repair rejects the event instead, with what was wrong.
    struct RepairLog {
        let strict: Bool
        var items: [(line: Int, message: String, kind: RepairKind)] = []

        mutating func add(_ kind: RepairKind, line: Int, _ wrong: String, _ done: String) throws(Failure) {
            if strict { throw .rejected(line: line, reason: wrong) }
            items.append((line, wrong + ": " + done, kind))
        }
    }

    func makeEvent(_ frame: ICSFrame, final: Bool) throws(Failure) -> Event {
        var fields = Fields()
        var other: [RawProperty] = []
        other.reserveCapacity(4)  // DTSTAMP, SEQUENCE and a few more in most feeds: one allocation
        var categories: [String] = []
        var categoryParameters: [Parameter]?
        var rules: [RecurrenceRule] = []
        var exceptionRules: [RecurrenceRule] = []
        var dates: [RecurrenceDate] = []
        var exceptionDates: [EventTime] = []
        var listParameters: [String: [Parameter]] = [:]
        var repairs = RepairLog(strict: strict)

        let props = frame.properties
        for index in props.indices {
            let name = props[index].name
            if let field = Field(name: name) {
                if fields[field] < 0 {
                    if field == .end || field == .duration || field == .recurrenceID, props[index].value.isEmpty {
                        // A property with no value says nothing: ignored.
                        try repairs.add(.emptyValue, line: props[index].line, "\(name) has no value", "ignored")
                        continue
                    }
                    fields[field] = index
                } else {
                    other.append(props[index].rawProperty)
                }
                continue
            }
            let kind = ListProperty(name: name)
            if kind == .attendee { continue }  // the scanner read every ATTENDEE line into `frame.attendees`, in order
            if kind == .other {
                other.append(props[index].rawProperty)
                continue
            }
            let p = props[index]
            switch kind {
            case .attendee, .other:
                break
            case .method:
                // Kept, it would be written back inside the VEVENT, which no output may have.
                try repairs.add(.methodInEvent, line: p.line, "METHOD inside VEVENT (a VCALENDAR property)", "dropped")
            case .categories:
                categories.append(contentsOf: ICSText.unescapeList(p.value))
                if categoryParameters == nil { categoryParameters = p.parameters }
            case .rrule, .exrule:
                let rule: RecurrenceRule
                if let known = ruleCache[p.value] {
                    rule = known
                } else {
                    do { rule = try RecurrenceRule(parsing: ICSText.trimmed(p.value)) } catch {
                        let wrong = ICSText.trimmed(p.value).isEmpty ? "\(p.name) is empty" : "\(error)"
                        // What the rule parser repairs itself (a value out of range dropped, COUNT with UNTIL
                        // both kept, ...): the rule as repaired, each repair said.
                        if let lenient = try? RecurrenceRule.parse(ICSText.trimmed(p.value)), !lenient.repairs.isEmpty {
                            for note in lenient.repairs {
                                let cut = note.range(of: "; ")
                                try repairs.add(.ruleRepaired, line: p.line, cut.map { String(note[..<$0.lowerBound]) } ?? note,
                                                cut.map { String(note[$0.upperBound...]) } ?? "repaired")
                            }
                            if kind == .rrule { rules.append(lenient.rule) } else { exceptionRules.append(lenient.rule) }
                            continue
                        }
                        // One bad part (`COUNT=-1` next to UNTIL): the rule without it. Else the event stays,
                        // without the rule (issue 15).
                        if let (salvaged, part) = Self.ruleWithoutOneBadPart(p.value) {
                            try repairs.add(.rulePartDropped, line: p.line, wrong, "the rule is kept without \(part)")
                            if kind == .rrule { rules.append(salvaged) } else { exceptionRules.append(salvaged) }
                        } else {
                            try repairs.add(.ruleDropped, line: p.line, wrong, "the event is kept without this rule")
                        }
                        continue
                    }
                    // Feeds repeat the same few rules; remember up to 256 of them.
                    if ruleCache.count >= 4096 { ruleCache.removeAll(keepingCapacity: true) }
                    ruleCache[p.value] = rule
                }
                if kind == .rrule { rules.append(rule) } else { exceptionRules.append(rule) }
            case .rdate:
                dates.append(contentsOf: try recurrenceDates(p, final: final, repairs: &repairs))
                keepListParameters(p, into: &listParameters)
            case .exdate:
                for item in p.value.split(separator: ",", omittingEmptySubsequences: true) {
                    // A value that cannot be read is dropped; the other values stay.
                    if let t = try droppingBadValue(String(item), p, final: final, repairs: &repairs) { exceptionDates.append(t) }
                }
                keepListParameters(p, into: &listParameters)
            }
        }

        guard fields.start >= 0 else {
            throw .rejected(line: frame.beginLine, reason: "VEVENT has no DTSTART")
        }
        let start = try time(props[fields.start].value, props[fields.start], final: final, repairs: &repairs)
        var endSpec: Event.EndSpec?
        if fields.end >= 0 {
            let endLine = props[fields.end]
            if fields.duration >= 0 {
                try repairs.add(.endAndDuration, line: props[fields.duration].line, "VEVENT has both DTEND and DURATION", "DURATION is ignored (DTEND wins)")
                other.append(props[fields.duration].rawProperty)
                fields.duration = -1
            }
            if let end = try droppingBadValue(endLine.value, endLine, final: final, repairs: &repairs, done: "DTEND is ignored", kind: .unreadableEnd) {
                endSpec = try checkedEnd(end, start: start, line: endLine.line, repairs: &repairs)
            }
        } else if fields.duration >= 0 {
            let durationLine = props[fields.duration]
            if let d = CalDuration(iCalendar: ICSText.trimmed(durationLine.value)) {
                endSpec = .duration(d)
            } else {
                try repairs.add(.unreadableEnd, line: durationLine.line, "DURATION: \"\(durationLine.value)\" is not a valid duration", "DURATION is ignored")
            }
        }

        let uid: String
        if fields.uid >= 0, !props[fields.uid].value.isEmpty {
            uid = props[fields.uid].value
        } else {
            uid = "calpipe-" + Self.fnv1a(frame.text)
            try repairs.add(.missingUID, line: frame.beginLine, "VEVENT has no UID", "using the derived UID \(uid)")
        }
        var event = Event(uid: consume uid, start: start, endSpec: endSpec)
        if fields.summary >= 0 { event.title = ICSText.unescape(props[fields.summary].value) }
        if fields.description >= 0 { event.description = ICSText.unescape(props[fields.description].value) }
        if fields.location >= 0 { event.location = ICSText.unescape(props[fields.location].value) }
        if fields.geo >= 0 {
            if let c = Self.coordinate(props[fields.geo].value) { event.coordinate = c } else { other.append(props[fields.geo].rawProperty); fields.geo = -1 }
        }
        if fields.organizer >= 0 { event.organizer = Self.attendee(props[fields.organizer]) }
        event.attendees = frame.attendees
        event.categories = consume categories
        if fields.color >= 0 { event.color = ICSText.unescape(props[fields.color].value) }
        // The exact colour calpipe writes beside COLOR's CSS name (`EventColor`) wins over the name.
        if !other.isEmpty, let i = other.firstIndex(where: { $0.name == EventColor.exactProperty }) {
            event.color = ICSText.unescape(other[i].value)
            other.remove(at: i)
        }
        if fields.url >= 0 { event.url = props[fields.url].value }
        if fields.status >= 0 { event.status = ICSText.unescape(props[fields.status].value) }
        event.recurrence = Recurrence(rules: consume rules, exceptionRules: consume exceptionRules, dates: consume dates,
                                      exceptionDates: consume exceptionDates)
        if fields.recurrenceID >= 0 {
            let rid = props[fields.recurrenceID]
            let t = try time(rid.value, rid, final: final, repairs: &repairs)
            event.recurrenceID = RecurrenceID(time: t, thisAndFuture: Self.isKeyword(rid.parameter("RANGE"), "THISANDFUTURE"))
        }
        event.otherProperties = consume other
        event.components = frame.children
        event.origin = SourceLocation(file: label, line: frame.beginLine)
        event.setSourceText(utf8: frame.text)

        // Parameters of fields that have no field of their own.
        var fieldParameters: [String: [Parameter]] = consume listParameters
        for field in Self.allFields where field != .organizer {
            let index = fields[field]
            guard index >= 0, !props[index].parameters.isEmpty else { continue }
            let parameters = props[index].parameters
            let timed = field == .start || field == .end || field == .recurrenceID
            let kept = timed ? parameters.filter { $0.name != "TZID" && $0.name != "VALUE" && $0.name != "RANGE" } : parameters
            if !kept.isEmpty { fieldParameters[field.rawValue] = kept }
        }
        if let categoryParameters, !categoryParameters.isEmpty { fieldParameters["CATEGORIES"] = categoryParameters }
        event.fieldParameters = consume fieldParameters
        if !calendarMetadata.isEmpty { event.metadata = calendarMetadata }
        if !frame.repairs.isEmpty || !repairs.items.isEmpty {
            // The scanner's repairs (lines dropped, components closed) come first: they are earlier in the input.
            for (line, message, kind) in frame.repairs.map({ ($0.line, $0.reason + ": " + $0.action, $0.kind) }) + repairs.items {
                handlers.report(Repair(kind, location: SourceLocation(file: label, line: line), uid: event.uid, message: message))
            }
        }
        return event
    }

    /// A rule that reads once one part that only bounds or annotates it is left out, and that part: COUNT next
    /// to UNTIL or UNTIL next to COUNT (`COUNT=-1;UNTIL=...`, seen in the wild), WKST, a part calpipe does not
    /// know. Never a BY* part or FREQ or INTERVAL: without them the rule would make occurrences its author
    /// never meant, so such a rule is dropped instead. Nil when no such part is to blame. Only for rules that
    /// did not read, so its cost does not matter.
    static func ruleWithoutOneBadPart(_ value: String) -> (RecurrenceRule, String)? {
        let parts = ICSText.trimmed(value).split(separator: ";", omittingEmptySubsequences: true).map(String.init)
        guard parts.count > 1 else { return nil }
        let names = parts.map { $0.prefix { $0 != "=" }.uppercased() }
        for (i, part) in parts.enumerated() {
            let name = names[i]
            let droppable: Bool
            switch name {
            case "COUNT": droppable = names.contains("UNTIL")
            case "UNTIL": droppable = names.contains("COUNT")
            case "WKST": droppable = true
            case "FREQ", "INTERVAL", "RSCALE", "SKIP": droppable = false
            default: droppable = !name.hasPrefix("BY")
            }
            guard droppable else { continue }
            var rest = parts
            rest.remove(at: i)
            if let rule = try? RecurrenceRule(parsing: rest.joined(separator: ";")) { return (rule, part) }
        }
        return nil
    }

    /// A DATE or DATE-TIME value, or nil (with a repair) when it cannot be read: for the values of RDATE, EXDATE
    /// and DTEND, which the event can do without.
    private func droppingBadValue(_ text: String, _ p: ICSContentLine, final: Bool, repairs: inout RepairLog,
                                  done: String = "this value is dropped", kind: RepairKind = .recurrenceValueDropped) throws(Failure) -> EventTime? {
        do {
            return try time(text, p, final: final, repairs: &repairs)
        } catch .rejected(let line, let reason) {
            try repairs.add(kind, line: line, reason, done)
            return nil
        } catch {
            throw error
        }
    }

    /// DTEND made to fit DTSTART: the same kind of value (date with date, floating with floating, zoned with a
    /// zone), and not before it (issue 15: zero length at DTSTART; a date DTEND before a date DTSTART gives the
    /// default one day).
    private func checkedEnd(_ rawEnd: EventTime, start: EventTime, line: Int, repairs: inout RepairLog) throws(Failure) -> Event.EndSpec? {
        var end = rawEnd
        switch (start, end) {
        case (.date(let s), .date(let e)):
            if e < s {
                try repairs.add(.endBeforeStart, line: line, "DTEND \(e.iso8601) is before DTSTART \(s.iso8601)", "the event lasts one day (no DTEND)")
                return nil
            }
            return .end(end)
        case (.date(let s), _):
            // A date-time end of an all-day event: the day it falls on is the last day (a time of 00:00 ends before it).
            let local = end.localTime
            let last = local.date.adding(days: local.hour == 0 && local.minute == 0 && local.second == 0 ? 0 : 1)
            guard last > s else {
                try repairs.add(.endKindMismatch, line: line, "DTSTART is a date but DTEND is a date-time", "DTEND is ignored (one day)")
                return nil
            }
            try repairs.add(.endKindMismatch, line: line, "DTSTART is a date but DTEND is a date-time", "DTEND read as the date \(last.iso8601)")
            return .end(.date(last))
        case (_, .date(let e)):
            end = start.withLocalTime(CivilDateTime(date: e))
            try repairs.add(.endKindMismatch, line: line, "DTSTART is a date-time but DTEND is a date", "DTEND read as \(e.iso8601) 00:00 in DTSTART's zone")
        case (.zoned, .floating(let local)), (.utc, .floating(let local)):
            end = start.withLocalTime(local)
            try repairs.add(.endKindMismatch, line: line, "DTSTART has a zone but DTEND is floating", "DTEND read in DTSTART's zone")
        case (.floating, .zoned), (.floating, .utc):
            end = .floating(end.localTime)
            try repairs.add(.endKindMismatch, line: line, "DTSTART is floating but DTEND has a zone", "DTEND read as floating time")
        default:
            break
        }
        let before: Bool
        switch (start, end) {
        case (.floating(let s), .floating(let e)): before = e < s
        case (.utc(let s), .utc(let e)): before = e < s
        case (.zoned(let s, let sz), .zoned(let e, let ez)) where sz === ez: before = e < s
        case (.date(let s), .date(let e)): before = e < s
        default: before = end.utcSeconds(in: fallbackZone) < start.utcSeconds(in: fallbackZone)
        }
        if before {
            try repairs.add(.endBeforeStart, line: line, "DTEND is before DTSTART", "the event has zero length at DTSTART")
            return .end(start)
        }
        return .end(end)
    }

    private func keepListParameters(_ p: ICSContentLine, into parameters: inout [String: [Parameter]]) {
        guard parameters[p.name] == nil else { return }
        let kept = p.parameters.filter { $0.name != "TZID" && $0.name != "VALUE" }
        if !kept.isEmpty { parameters[p.name] = kept }
    }

    // MARK: - Times

    /// A DATE or DATE-TIME value of `p` (its TZID and VALUE parameters apply).
    private func time(_ rawText: String, _ p: ICSContentLine, final: Bool, repairs: inout RepairLog) throws(Failure) -> EventTime {
        let text = ICSText.trimmed(rawText)
        let isDateType = Self.isKeyword(p.parameter("VALUE"), "DATE")
        guard let parsed = ICSDateText.parse(text) else {
            let what = isDateType ? "a valid date" : "a valid date or date-time"
            throw .rejected(line: p.line, reason: "\(p.name): \"\(text)\" is not \(what)")
        }
        if isDateType, !parsed.isDate {
            // The value says what it is: read it as a date-time.
            try repairs.add(.valueTypeMismatch, line: p.line, "\(p.name): \"\(text)\" is not a date (VALUE=DATE)", "read as a date-time")
        }
        switch parsed {
        case .floating(let local):
            if let tzid = p.parameter("TZID") {
                return .zoned(local, try zone(tzid, line: p.line, final: final))
            }
            if let calendarZone { return .zoned(local, calendarZone) }
            return parsed
        default:
            return parsed
        }
    }

    /// Resolves a TZID: IANA name (with prefixes), Windows name, this input's VTIMEZONE; else the fallback zone
    /// with a warning once the whole VCALENDAR was seen.
    private func zone(_ rawTZID: String, line: Int, final: Bool) throws(Failure) -> Zone {
        if let last = recentZones.last, last.tzid == rawTZID { return last.zone }
        if let previous = recentZones.previous, previous.tzid == rawTZID {
            recentZones = (previous, recentZones.last)
            return previous.zone
        }
        if let hit = zoneCache[rawTZID] {
            recentZones = ((rawTZID, hit), recentZones.last)
            return hit
        }
        let tzid = ICSText.trimmed(rawTZID)
        var found = zones.zone(named: tzid)
        if found == nil { found = try definedZone(rawTZID) }
        if found == nil { found = try definedZone(tzid) }
        if let z = found {
            zoneCache[rawTZID] = z
            recentZones = ((rawTZID, z), recentZones.last)
            return z
        }
        // Not final: the event was closed inside its VCALENDAR, whose VTIMEZONEs may still come.
        if !final && !deferralDisabled { throw .waitForZone }
        // The last resorts (an IANA name inside, an Outlook display name, a fixed offset), guessed once per TZID by
        // the main builder, which warns once.
        if isWorker { throw .needsMain }
        if let guessed = guessedZones[tzid] ?? ICSZoneGuess.zone(for: tzid, zones: zones) {
            if guessedZones[tzid] == nil {
                guessedZones[tzid] = guessed
                zoneCache[rawTZID] = guessed
                handlers.warn("\(label):\(line): unknown time zone \"\(tzid)\" (no VTIMEZONE defines it), read as \(guessed.identifier)")
            }
            return guessed
        }
        handlers.warn("\(label):\(line): unknown time zone \"\(tzid)\" (no VTIMEZONE defines it), read in \(fallbackZone.identifier)")
        return fallbackZone
    }

    /// The zone a VTIMEZONE of the input defines. A worker's builder uses only the ones already built.
    private func definedZone(_ tzid: String) throws(Failure) -> Zone? {
        guard isWorker else { return fileZone(tzid) }
        if let built = fileZones[tzid] { return built }
        if fileZoneDefinitions[tzid] != nil { throw .needsMain }
        return nil
    }

    /// The values of an RDATE; a value that cannot be read is dropped with a repair, the others stay.
    private func recurrenceDates(_ p: ICSContentLine, final: Bool, repairs: inout RepairLog) throws(Failure) -> [RecurrenceDate] {
        let isPeriod = Self.isKeyword(p.parameter("VALUE"), "PERIOD")
        var out: [RecurrenceDate] = []
        for itemSub in p.value.split(separator: ",", omittingEmptySubsequences: true) {
            let item = String(itemSub)
            if let slash = item.firstIndex(of: "/") {
                guard let start = try droppingBadValue(String(item[..<slash]), p, final: final, repairs: &repairs) else { continue }
                let rest = String(item[item.index(after: slash)...])
                if rest.hasPrefix("P") || rest.hasPrefix("+P") || rest.hasPrefix("-P") {
                    guard let d = CalDuration(iCalendar: rest) else {
                        try repairs.add(.recurrenceValueDropped, line: p.line, "RDATE: \"\(item)\" is not a valid period", "this value is dropped")
                        continue
                    }
                    out.append(.periodWithDuration(start: start, duration: d))
                } else {
                    guard let end = try droppingBadValue(rest, p, final: final, repairs: &repairs) else { continue }
                    out.append(.period(start: start, end: end))
                }
            } else {
                if isPeriod, ICSDateText.parse(ICSText.trimmed(item)) == nil {
                    try repairs.add(.recurrenceValueDropped, line: p.line, "RDATE: \"\(item)\" is not a valid period", "this value is dropped")
                    continue
                }
                // VALUE=PERIOD with a plain date-time: read as the date-time it is.
                if let t = try droppingBadValue(item, p, final: final, repairs: &repairs) { out.append(.time(t)) }
            }
        }
        return out
    }

    /// `value?.uppercased() == keyword` for an upper-case ASCII keyword, without building a String when the
    /// value is ASCII (the usual case); other values take the Unicode path, so results are the same.
    static func isKeyword(_ value: String?, _ keyword: StaticString) -> Bool {
        guard var value else { return false }
        let ascii: Bool? = value.withUTF8 { b in
            let k = keyword.utf8Start
            for c in b where c >= 0x80 { return nil }
            guard b.count == keyword.utf8CodeUnitCount else { return false }
            for i in 0..<b.count where ((b[i] >= 0x61 && b[i] <= 0x7A) ? b[i] - 32 : b[i]) != k[i] { return false }
            return true
        }
        if let ascii { return ascii }
        return value.uppercased() == keyword.description
    }

    // MARK: - People, places

    static func attendee(_ p: ICSContentLine) -> Attendee {
        var a = Attendee()
        var rest: [Parameter] = []
        var restCount = 0
        for parameter in p.parameters {
            switch parameter.name {
            case "CN": break
            case "ROLE" where p.name == "ATTENDEE", "PARTSTAT" where p.name == "ATTENDEE": break
            default: restCount += 1
            }
        }
        if restCount > 0 { rest.reserveCapacity(restCount) }  // none for an ORGANIZER with only CN
        for parameter in p.parameters {
            switch parameter.name {
            case "CN": a.name = parameter.values.count == 1 ? parameter.values[0] : parameter.values.joined(separator: ",")
            case "ROLE" where p.name == "ATTENDEE": a.role = parameter.values.first
            case "PARTSTAT" where p.name == "ATTENDEE": a.status = parameter.values.first
            default: rest.append(parameter)
            }
        }
        a.otherParameters = rest
        a.email = ICSContentLine.email(p.value)
        return a
    }

    static func coordinate(_ value: String) -> Coordinate? {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lat = Double(ICSText.trimmed(String(parts[0]))),
              let lon = Double(ICSText.trimmed(String(parts[1]))) else { return nil }
        let c = Coordinate(latitude: lat, longitude: lon)
        return c.isValid ? c : nil
    }

    /// A stable 64-bit FNV-1a hash in hex, for UIDs of events that have none.
    static func fnv1a(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
