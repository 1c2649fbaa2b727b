/// `Event` in calpipe's compact binary form (`ByteWriter` / `ByteReader`), for holding events on a scratch
/// file during a run (the expand stage's held series). Every field goes in, so `Event(decoding:)` of
/// `encode(to:)` compares equal to the original; zones go in by number through a `ZoneTable`, so they come
/// back as the same objects. The form lives only as long as one run: no version, no compatibility.
extension Event {
    /// `includeOrigin: false` leaves the origin out (as if nil): the content hash of incremental runs.
    public func encode(to w: inout ByteWriter, zones: ZoneTable, includeOrigin: Bool = true) {
        w.string(uid)
        w.optionalString(title)
        w.optionalString(description)
        w.optionalString(location)
        if let coordinate {
            w.byte(1)
            w.double(coordinate.latitude)
            w.double(coordinate.longitude)
        } else {
            w.byte(0)
        }
        if let organizer {
            w.byte(1)
            w.attendee(organizer)
        } else {
            w.byte(0)
        }
        w.count(attendees.count)
        for a in attendees { w.attendee(a) }
        w.strings(categories)
        w.optionalString(color)
        w.optionalString(url)
        w.optionalString(status)
        w.time(start, zones)
        switch endSpec {
        case nil: w.byte(0)
        case .end(let t):
            w.byte(1)
            w.time(t, zones)
        case .duration(let d):
            w.byte(2)
            w.duration(d)
        }
        w.recurrence(recurrence, zones)
        if let recurrenceID {
            w.byte(recurrenceID.thisAndFuture ? 2 : 1)
            w.time(recurrenceID.time, zones)
        } else {
            w.byte(0)
        }
        w.count(otherProperties.count)
        for p in otherProperties { w.property(p) }
        w.count(components.count)
        for c in components { w.component(c) }
        // Dictionaries in key order, so the same event always gives the same bytes.
        w.count(fieldParameters.count)
        for key in fieldParameters.keys.sorted() {
            w.string(key)
            w.parameters(fieldParameters[key]!)
        }
        if includeOrigin, let origin {
            w.byte(1)
            w.string(origin.file)
            w.optionalInt(origin.line)
            w.optionalString(origin.path)
        } else {
            w.byte(0)
        }
        w.count(metadata.count)
        if metadata.count == 1, let only = metadata.first {
            w.string(only.key)
            w.string(only.value)
        } else {
            for key in metadata.keys.sorted() {
                w.string(key)
                w.string(metadata[key]!)
            }
        }
        if let source {
            source.withUTF8 { w.optionalBytes($0) }
        } else {
            w.byte(0)
        }
    }

    /// Reads an event `encode(to:zones:)` wrote, with the zones of the same table.
    public init(decoding r: inout ByteReader, zones: ZoneTable) throws {
        let uid = try r.string()
        let title = try r.optionalString()
        let description = try r.optionalString()
        let location = try r.optionalString()
        let coordinate: Coordinate? = try r.flag() ? Coordinate(latitude: try r.double(), longitude: try r.double()) : nil
        let organizer: Attendee? = try r.flag() ? try r.attendee() : nil
        var attendees: [Attendee] = []
        let attendeeCount = try r.count()
        attendees.reserveCapacity(attendeeCount)
        for _ in 0..<attendeeCount { attendees.append(try r.attendee()) }
        let categories = try r.strings()
        let color = try r.optionalString()
        let url = try r.optionalString()
        let status = try r.optionalString()
        let start = try r.time(zones)
        let endSpec: EndSpec?
        switch try r.byte() {
        case 0: endSpec = nil
        case 1: endSpec = .end(try r.time(zones))
        case 2: endSpec = .duration(try r.duration())
        case let b: throw CalpipeError("end tag \(b) at byte \(r.position - 1)")
        }
        self.init(uid: uid, start: start, endSpec: endSpec, title: title)
        self.description = description
        self.location = location
        self.coordinate = coordinate
        self.organizer = organizer
        self.attendees = attendees
        self.categories = categories
        self.color = color
        self.url = url
        self.status = status
        recurrence = try r.recurrence(zones)
        switch try r.byte() {
        case 0: recurrenceID = nil
        case 1: recurrenceID = RecurrenceID(time: try r.time(zones))
        case 2: recurrenceID = RecurrenceID(time: try r.time(zones), thisAndFuture: true)
        case let b: throw CalpipeError("RECURRENCE-ID tag \(b) at byte \(r.position - 1)")
        }
        let propertyCount = try r.count()
        otherProperties.reserveCapacity(propertyCount)
        for _ in 0..<propertyCount { otherProperties.append(try r.property()) }
        let componentCount = try r.count()
        components.reserveCapacity(componentCount)
        for _ in 0..<componentCount { components.append(try r.component(depth: 0)) }
        let parameterCount = try r.count()
        if parameterCount > 0 {
            fieldParameters.reserveCapacity(parameterCount)
            for _ in 0..<parameterCount {
                let key = try r.string()
                fieldParameters[key] = try r.parameters()
            }
        }
        if try r.flag() {
            origin = SourceLocation(file: try r.string(), line: try r.optionalInt(), path: try r.optionalString())
        }
        let metadataCount = try r.count()
        if metadataCount > 0 {
            metadata.reserveCapacity(metadataCount)
            for _ in 0..<metadataCount {
                let key = try r.string()
                metadata[key] = try r.string()
            }
        }
        source = try r.optionalBytes().map(SourceText.init(utf8:))
    }
}

extension ByteWriter {
    mutating func optionalInt(_ value: Int?) {
        guard let value else { return byte(0) }
        byte(1)
        int(value)
    }

    mutating func time(_ t: EventTime, _ zones: ZoneTable) {
        switch t {
        case .date(let d):
            byte(0)
            int(d.daysSinceEpoch)
        case .utc(let s):
            byte(1)
            signed(s)
        case .zoned(let local, let zone):
            byte(2)
            signed(local.secondsSinceEpoch)
            count(zones.index(of: zone))
        case .floating(let local):
            byte(3)
            signed(local.secondsSinceEpoch)
        }
    }

    mutating func duration(_ d: CalDuration) {
        int(d.days)
        signed(d.seconds)
    }

    mutating func parameters(_ list: [Parameter]) {
        count(list.count)
        for p in list {
            string(p.name)
            strings(p.values)
        }
    }

    mutating func attendee(_ a: Attendee) {
        optionalString(a.name)
        optionalString(a.email)
        optionalString(a.role)
        optionalString(a.status)
        parameters(a.otherParameters)
    }

    mutating func property(_ p: RawProperty) {
        string(p.name)
        parameters(p.parameters)
        string(p.value)
    }

    mutating func component(_ c: RawComponent) {
        string(c.name)
        count(c.properties.count)
        for p in c.properties { property(p) }
        count(c.components.count)
        for child in c.components { component(child) }
    }

    mutating func rule(_ rule: RecurrenceRule, _ zones: ZoneTable) {
        byte(UInt8(RecurrenceRule.Frequency.allCases.firstIndex(of: rule.frequency)!))
        int(rule.interval)
        switch rule.end {
        case .never: byte(0)
        case .count(let n):
            if let until = rule.untilWithCount {
                byte(3)
                int(n)
                time(until, zones)
            } else {
                byte(1)
                int(n)
            }
        case .until(let t):
            byte(2)
            time(t, zones)
        }
        ints(rule.bySecond)
        ints(rule.byMinute)
        ints(rule.byHour)
        count(rule.byDay.count)
        for d in rule.byDay {
            int(d.weekday)
            optionalInt(d.ordinal)
        }
        ints(rule.byMonthDay)
        ints(rule.byYearDay)
        ints(rule.byWeekNo)
        ints(rule.byMonth)
        ints(rule.bySetPos)
        int(rule.weekStart)
        count(rule.otherParts.count)
        for (k, v) in rule.otherParts {
            string(k)
            string(v)
        }
        optionalString(rule.rscale)
        byte(UInt8(RecurrenceRule.Skip.allCases.firstIndex(of: rule.skip)!))
        ints(rule.leapMonths)
    }

    mutating func recurrence(_ r: Recurrence, _ zones: ZoneTable) {
        count(r.rules.count)
        for rule in r.rules { self.rule(rule, zones) }
        count(r.exceptionRules.count)
        for rule in r.exceptionRules { self.rule(rule, zones) }
        count(r.dates.count)
        for d in r.dates {
            switch d {
            case .time(let t):
                byte(0)
                time(t, zones)
            case .period(let s, let e):
                byte(1)
                time(s, zones)
                time(e, zones)
            case .periodWithDuration(let s, let d):
                byte(2)
                time(s, zones)
                duration(d)
            }
        }
        count(r.exceptionDates.count)
        for t in r.exceptionDates { time(t, zones) }
    }
}

extension ByteReader {
    /// Components nest at most this deep (the ICS reader allows 16 levels in all).
    static let maxComponentDepth = 64

    mutating func flag() throws -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let b: throw CalpipeError("presence byte \(b) at \(position - 1)")
        }
    }

    mutating func optionalInt() throws -> Int? {
        try flag() ? try int() : nil
    }

    mutating func time(_ zones: ZoneTable) throws -> EventTime {
        switch try byte() {
        case 0: return .date(CivilDate(daysSinceEpoch: try int()))
        case 1: return .utc(try signed())
        case 2:
            let local = CivilDateTime(secondsSinceEpoch: try signed())
            let index = try count()
            guard let zone = zones.zone(at: index) else { throw CalpipeError("zone number \(index) is not in the table") }
            return .zoned(local, zone)
        case 3: return .floating(CivilDateTime(secondsSinceEpoch: try signed()))
        case let b: throw CalpipeError("time tag \(b) at byte \(position - 1)")
        }
    }

    mutating func duration() throws -> CalDuration {
        CalDuration(days: try int(), seconds: try signed())
    }

    mutating func parameters() throws -> [Parameter] {
        let n = try count()
        var out: [Parameter] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(Parameter(name: try string(), values: try strings())) }
        return out
    }

    mutating func attendee() throws -> Attendee {
        Attendee(name: try optionalString(), email: try optionalString(), role: try optionalString(), status: try optionalString(),
                 otherParameters: try parameters())
    }

    mutating func property() throws -> RawProperty {
        RawProperty(name: try string(), parameters: try parameters(), value: try string())
    }

    mutating func component(depth: Int) throws -> RawComponent {
        guard depth < Self.maxComponentDepth else { throw CalpipeError("components nested deeper than \(Self.maxComponentDepth)") }
        var c = RawComponent(name: try string())
        let propertyCount = try count()
        c.properties.reserveCapacity(propertyCount)
        for _ in 0..<propertyCount { c.properties.append(try property()) }
        let childCount = try count()
        c.components.reserveCapacity(childCount)
        for _ in 0..<childCount { c.components.append(try component(depth: depth + 1)) }
        return c
    }

    mutating func rule(_ zones: ZoneTable) throws -> RecurrenceRule {
        let all = RecurrenceRule.Frequency.allCases
        let f = Int(try byte())
        guard f < all.count else { throw CalpipeError("frequency \(f) at byte \(position - 1)") }
        var rule = RecurrenceRule(frequency: all[f])
        rule.interval = try int()
        switch try byte() {
        case 0: rule.end = .never
        case 1: rule.end = .count(try int())
        case 2: rule.end = .until(try time(zones))
        case 3:
            rule.end = .count(try int())
            rule.untilWithCount = try time(zones)
        case let b: throw CalpipeError("rule end tag \(b) at byte \(position - 1)")
        }
        rule.bySecond = try ints()
        rule.byMinute = try ints()
        rule.byHour = try ints()
        let days = try count()
        rule.byDay.reserveCapacity(days)
        for _ in 0..<days {
            let weekday = try int()
            rule.byDay.append(RecurrenceRule.WeekdayNum(weekday, ordinal: try optionalInt()))
        }
        rule.byMonthDay = try ints()
        rule.byYearDay = try ints()
        rule.byWeekNo = try ints()
        rule.byMonth = try ints()
        rule.bySetPos = try ints()
        rule.weekStart = try int()
        let parts = try count()
        for _ in 0..<parts { rule.otherParts.append((try string(), try string())) }
        rule.rscale = try optionalString()
        let skips = RecurrenceRule.Skip.allCases
        let skip = Int(try byte())
        guard skip < skips.count else { throw CalpipeError("rule skip \(skip) at byte \(position - 1)") }
        rule.skip = skips[skip]
        rule.leapMonths = try ints()
        return rule
    }

    mutating func recurrence(_ zones: ZoneTable) throws -> Recurrence {
        var r = Recurrence()
        let rules = try count()
        for _ in 0..<rules { r.rules.append(try rule(zones)) }
        let exceptionRules = try count()
        for _ in 0..<exceptionRules { r.exceptionRules.append(try rule(zones)) }
        let dates = try count()
        r.dates.reserveCapacity(dates)
        for _ in 0..<dates {
            switch try byte() {
            case 0: r.dates.append(.time(try time(zones)))
            case 1: r.dates.append(.period(start: try time(zones), end: try time(zones)))
            case 2: r.dates.append(.periodWithDuration(start: try time(zones), duration: try duration()))
            case let b: throw CalpipeError("RDATE tag \(b) at byte \(position - 1)")
            }
        }
        let exceptions = try count()
        r.exceptionDates.reserveCapacity(exceptions)
        for _ in 0..<exceptions { r.exceptionDates.append(try time(zones)) }
        return r
    }
}
