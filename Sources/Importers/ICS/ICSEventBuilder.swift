import Pipeline

/// What a worker's builder said while making an event, delivered with it in order.
enum ICSBuilderMessage: Sendable {
    case warn(String)
    case repair(Repair)
}

/// The second half of the iCalendar reader: performs the scanner's `ICSCommand`s in order. It turns VEVENTs
/// into `Event`s (see `ICSEventBuilder+Event.swift`), keeps the input's VTIMEZONEs and X-WR-TIMEZONE, holds
/// events whose TZID is defined by a VTIMEZONE that comes later in the same VCALENDAR, and calls the handlers.
final class ICSEventBuilder {
    let label: String
    let zones: ZoneDatabase
    let fallbackZone: Zone
    let handlers: ICSReader.Handlers

    /// A worker's builder (`ICSParallelBuilder`) makes events from a snapshot of the main builder's state and
    /// never changes that state: where it would (build a VTIMEZONE), it gives the event back to the main one.
    let isWorker: Bool
    /// Every repair rejects its event instead (`ICSReader`'s `strict`).
    let strict: Bool

    /// Zones defined by VTIMEZONE components of this input, by TZID.
    var fileZones: [String: Zone] = [:] { didSet { stateVersion &+= 1 } }
    /// VTIMEZONE components of this input not yet built, by TZID, with their line.
    var fileZoneDefinitions: [String: (RawComponent, Int)] = [:] { didSet { stateVersion &+= 1 } }
    var zoneCache: [String: Zone] = [:]
    /// The two TZIDs resolved last (feeds alternate between a few zones): checked before hashing into `zoneCache`.
    var recentZones: (last: (tzid: String, zone: Zone)?, previous: (tzid: String, zone: Zone)?) = (nil, nil)
    /// Zones guessed for TZIDs nothing defines (`ICSZoneGuess`), by trimmed TZID (main builder only).
    var guessedZones: [String: Zone] = [:]
    /// Parsed RRULE/EXRULE values by text.
    var ruleCache: [String: RecurrenceRule] = [:]
    /// X-WR-TIMEZONE of the current VCALENDAR.
    var calendarZone: Zone? { didSet { stateVersion &+= 1 } }
    /// X-WR-CALNAME (or NAME) of the current VCALENDAR: stamped on its events as metadata["calendar"].
    var calendarName: String? {
        didSet {
            stateVersion &+= 1
            makeCalendarMetadata()
        }
    }
    /// The current VCALENDAR's colour ("#rrggbb") and the rank of the property it came from (`ICSCommand.calendarColor`):
    /// stamped on its events as metadata["calendar_color"].
    var calendarColor: (hex: String, rank: Int)? {
        didSet {
            stateVersion &+= 1
            makeCalendarMetadata()
        }
    }
    /// `["calendar": calendarName, "calendar_color": ...]`, one dictionary that the calendar's events share (no copy
    /// per event).
    private(set) var calendarMetadata: [String: String] = [:]

    private func makeCalendarMetadata() {
        var metadata: [String: String] = [:]
        if let calendarName { metadata["calendar"] = calendarName }
        if let calendarColor { metadata[Event.calendarColorKey] = calendarColor.hex }
        calendarMetadata = metadata
    }
    /// Events waiting for a VTIMEZONE that may come later in the VCALENDAR.
    var pending: [ICSFrame] = []
    /// At most this many events wait for a later VTIMEZONE; then waiting stops for the rest of the VCALENDAR.
    static let maxPending = 1000
    /// Set once `maxPending` was reached in the current VCALENDAR: unknown TZIDs fall back at once.
    var deferralDisabled = false { didSet { stateVersion &+= 1 } }
    /// Changes with every change of the state above, which workers copy (`Snapshot`).
    private(set) var stateVersion = 0
    /// Whether the input's first line that is not UTF-8 was reported.
    var sawLatin1 = false
    /// Parameter sections already parsed (this builder's thread only).
    let parameterCaches = ICSParameterCaches()

    init(label: String, zones: ZoneDatabase, fallbackZone: Zone, handlers: ICSReader.Handlers, strict: Bool = false, isWorker: Bool = false) {
        self.strict = strict
        self.label = label
        self.zones = zones
        self.fallbackZone = fallbackZone
        self.handlers = handlers
        self.isWorker = isWorker
    }

    /// What a worker's builder needs of this one's state to make events exactly as this one would.
    struct Snapshot: Sendable {
        var version: Int
        var fileZones: [String: Zone]
        var fileZoneDefinitions: [String: (RawComponent, Int)]
        var calendarZone: Zone?
        var calendarName: String?
        var calendarColor: (hex: String, rank: Int)?
        var deferralDisabled: Bool
    }

    var snapshot: Snapshot {
        Snapshot(version: stateVersion, fileZones: fileZones, fileZoneDefinitions: fileZoneDefinitions,
                 calendarZone: calendarZone, calendarName: calendarName, calendarColor: calendarColor,
                 deferralDisabled: deferralDisabled)
    }

    /// A worker's builder takes the main builder's state; its caches stay while that state does not change.
    func adopt(_ snapshot: Snapshot) {
        guard snapshot.version != adoptedVersion else { return }
        adoptedVersion = snapshot.version
        fileZones = snapshot.fileZones
        fileZoneDefinitions = snapshot.fileZoneDefinitions
        calendarZone = snapshot.calendarZone
        calendarName = snapshot.calendarName
        calendarColor = snapshot.calendarColor
        deferralDisabled = snapshot.deferralDisabled
        zoneCache = [:]
        recentZones = (nil, nil)
    }

    private var adoptedVersion = -1

    /// Performs one command of the scanner.
    func perform(_ command: consuming ICSCommand) throws {
        switch command {
        case .event(let frame):
            try finishEvent(frame, final: false)
        case .timezone(let frame):
            defineZone(frame)
        case .calendarBegin:
            calendarZone = nil
            calendarName = nil
            calendarColor = nil
            deferralDisabled = false
        case .calendarEnd:
            try flushPending()
            calendarZone = nil
            calendarName = nil
            calendarColor = nil
        case .calendarName(let name):
            calendarName = name
        case .calendarColor(let hex, let rank):
            if calendarColor.map({ rank <= $0.rank }) ?? true { calendarColor = (hex, rank) }
        case .flushPending:
            try flushPending()
        case .calendarTimeZone(let name, let line):
            if let zone = zones.zone(named: name) {
                calendarZone = zone
            } else {
                handlers.warn("\(label):\(line): unknown X-WR-TIMEZONE \"\(name)\", floating times stay floating")
            }
        case .reject(let line, let reason):
            try handlers.reject(SourceLocation(file: label, line: line), reason)
        case .repair(let line, let reason, let action, let kind):
            handlers.report(Repair(kind, location: SourceLocation(file: label, line: line), uid: nil, message: reason + ": " + action))
        case .warn(let message):
            handlers.warn(message)
        case .skip(let name):
            handlers.skip(name)
        case .latin1(let line):
            try noteLatin1(line: line)
        }
    }

    // MARK: - Zones

    /// Keeps a VTIMEZONE; it is turned into a `Zone` only when a TZID is not known to the zone database
    /// (most files name IANA or Windows zones, whose VTIMEZONEs then cost nothing).
    private func defineZone(_ frame: ICSFrame) {
        var component = frame.rawComponent
        // TZID is TEXT: "Amsterdam\, Berlin" names the zone "Amsterdam, Berlin" that TZID parameters use.
        if let i = component.properties.firstIndex(where: { $0.name == "TZID" }) {
            component.properties[i].value = ICSText.unescape(component.properties[i].value)
        }
        guard let tzid = component.properties.first(where: { $0.name == "TZID" })?.value, !tzid.isEmpty else {
            handlers.warn("\(label):\(frame.beginLine): VTIMEZONE has no TZID, ignored")
            return
        }
        fileZoneDefinitions[tzid] = (component, frame.beginLine)
        fileZones[tzid] = nil
        zoneCache[tzid] = nil
        recentZones = (nil, nil)
    }

    /// The zone a VTIMEZONE of this input defines for `tzid`, built on first use.
    func fileZone(_ tzid: String) -> Zone? {
        if let built = fileZones[tzid] { return built }
        guard let (component, line) = fileZoneDefinitions[tzid] else { return nil }
        do {
            let zone = try VTimeZone.zone(from: component)
            fileZones[tzid] = zone
            return zone
        } catch {
            fileZoneDefinitions[tzid] = nil
            handlers.warn("\(label):\(line): VTIMEZONE \"\(tzid)\" cannot be used: \(CalpipeError(error))")
            return nil
        }
    }


    // MARK: - Events

    /// The input's first line that is not UTF-8 (once per input): a repair of the file's text, a rejection
    /// under strict.
    func noteLatin1(line: Int) throws {
        guard !sawLatin1 else { return }
        sawLatin1 = true
        let location = SourceLocation(file: label, line: line)
        if strict {
            try handlers.reject(location, Self.notUTF8)
        } else {
            handlers.report(Repair(.invalidUTF8, location: location, uid: nil,
                                   message: Self.notUTF8 + ": read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)"))
        }
    }

    static let notUTF8 = "text is not valid UTF-8"

    /// Hands on an event a worker made (`ICSParallelBuilder`), with the warnings and repairs it gave, as
    /// `finishEvent` would.
    func deliver(_ event: consuming Event, of frame: ICSFrame, messages: [ICSBuilderMessage]) throws {
        if let line = frame.latin1Line { try noteLatin1(line: line) }
        for message in messages {
            switch message {
            case .warn(let text): handlers.warn(text)
            case .repair(let repair): handlers.report(repair)
            }
        }
        var event = event
        guard try matchToMaster(&event, frame: frame), !repeatsEarlierEvent(event, textHash: frame.textHash) else { return }
        try handlers.event(consume event)
    }

    // MARK: - Exact copies

    /// The events read so far, by a 64-bit hash of their raw text and of the calendar context it is read in (a
    /// feed that publishes its calendar twice in one file), with the line of the first: an exact copy is kept
    /// once. At most `maxSeenEvents` (then it starts again: memory stays bounded, a copy far from its first
    /// is then kept twice, as every copy was before). Main builder only, in input order.
    private var seenEvents: [Int64: Int] = [:]
    static let maxSeenEvents = 1 << 17

    /// True (with a warning) when `event` is an exact copy of one read earlier in this input; `textHash` is its
    /// `rawTextHash`.
    func repeatsEarlierEvent(_ event: Event, textHash: Int64?) -> Bool {
        guard let text = textHash else { return false }
        var key = text
        // The same text means another event in a calendar with another X-WR-TIMEZONE or name.
        if let zone = calendarZone { key = key &* 31 &+ Self.textKey(zone.identifier) }
        if let name = calendarName { key = key &* 31 &+ Self.textKey(name) }
        if let first = seenEvents[key] {
            let line = event.origin?.line ?? 0
            handlers.warn("\(label):\(line): VEVENT with UID \"\(event.uid)\" repeats the one at line \(first) exactly: kept once")
            return true
        }
        if seenEvents.count >= Self.maxSeenEvents { seenEvents.removeAll(keepingCapacity: true) }
        seenEvents[key] = event.origin?.line ?? 0
        return false
    }

    private static func textKey(_ text: String) -> Int64 {
        var text = text
        return text.withUTF8 { Fingerprint.rawText(bytes: UnsafeRawBufferPointer($0)) }
    }

    // MARK: - Overrides and their masters

    /// A recurring event's DTSTART by UID, for overrides whose RECURRENCE-ID has another kind of value (a date
    /// where the master starts at a date-time, floating where it has a zone). Main builder only, in input
    /// order; at most `maxMasters` (then it starts again: an override far from its master keeps its value).
    /// Keyed by a 64-bit FNV-1a hash of the UID, not the UID: the table then holds no string of its own for each of
    /// the feed's series (two UIDs with one hash, about 1 in 10^10 for 100,000 series, would at worst take each
    /// other's start kind for that check).
    private var masterStarts: [UInt64: EventTime] = [:]
    static let maxMasters = 1 << 16

    /// Notes a master, or gives an override's RECURRENCE-ID the kind of its master's DTSTART (a repair, so the
    /// expand stage finds the instance it replaces). False: rejected under strict.
    func matchToMaster(_ event: inout Event, frame: ICSFrame) throws -> Bool {
        guard let rid = event.recurrenceID else {
            if event.isRecurring {
                if masterStarts.count >= Self.maxMasters { masterStarts.removeAll(keepingCapacity: true) }
                masterStarts[Self.uidKey(event.uid)] = event.start
            }
            return true
        }
        guard let master = masterStarts[Self.uidKey(event.uid)] else { return true }
        let fixed: EventTime?
        switch (master, rid.time) {
        case (.date, .date), (.utc, .utc), (.zoned, .zoned), (.floating, .floating), (.utc, .zoned), (.zoned, .utc):
            fixed = nil
        case (.date, let other):
            fixed = .date(other.localTime.date)
        case (let m, .date(let d)):
            let clock = m.localTime.secondsSinceEpoch - Int64(m.localTime.date.daysSinceEpoch) * 86_400
            fixed = m.withLocalTime(CivilDateTime(secondsSinceEpoch: Int64(d.daysSinceEpoch) * 86_400 + clock))
        case (.zoned, .floating(let local)), (.utc, .floating(let local)):
            fixed = master.withLocalTime(local)
        case (.floating, let other):
            fixed = .floating(other.localTime)
        }
        guard let fixed else { return true }
        let line = event.origin?.line ?? frame.beginLine
        let wrong = "RECURRENCE-ID \(rid.time.iso8601) is not the kind of value the series' DTSTART is (\(master.iso8601))"
        if strict {
            try handlers.reject(SourceLocation(file: label, line: line), wrong)
            return false
        }
        event.recurrenceID = RecurrenceID(time: fixed, thisAndFuture: rid.thisAndFuture)
        handlers.report(Repair(.recurrenceIDKind, location: SourceLocation(file: label, line: line), uid: event.uid,
                               message: wrong + ": read as \(fixed.iso8601)"))
        return true
    }

    private static func uidKey(_ uid: String) -> UInt64 {
        var uid = uid
        return uid.withUTF8 { bytes in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return h
        }
    }

    /// Rejects the event of `frame`, with its text when the handlers take it.
    private func reject(_ frame: ICSFrame, line: Int, _ reason: String) throws {
        let location = SourceLocation(file: label, line: line)
        if let rejectEvent = handlers.rejectEvent {
            try rejectEvent(location, reason, String(decoding: frame.text, as: UTF8.self))
        } else {
            try handlers.reject(location, reason)
        }
    }

    func finishEvent(_ frame: ICSFrame, final: Bool) throws {
        if frame.deferred {
            frame.parseDeferredLines(caches: parameterCaches) { if frame.latin1Line == nil { frame.latin1Line = $0 } }
        }
        if let line = frame.latin1Line {
            frame.latin1Line = nil
            if strict {
                // The event's own text is not UTF-8: the event is what strict rejects (for its first problem).
                if frame.failure == nil { frame.fail(line: line, Self.notUTF8) }
            } else {
                try noteLatin1(line: line)
            }
        }
        if let failure = frame.failure {
            try reject(frame, line: failure.line, failure.reason)
            return
        }
        if strict, let first = frame.repairs.first {
            // What the scanner repaired (a dropped line, a component never closed) rejects the event under strict.
            try reject(frame, line: first.line, first.reason)
            return
        }
        var event: Event
        do {
            event = try makeEvent(frame, final: final)
        } catch .rejected(let line, let reason) {
            try reject(frame, line: line, reason)
            return
        } catch {
            pending.append(frame)
            // Producers write VTIMEZONEs first; a feed full of TZIDs nothing defines must not be held whole.
            if pending.count >= Self.maxPending {
                deferralDisabled = true
                try flushPending()
            }
            return
        }
        guard try matchToMaster(&event, frame: frame), !repeatsEarlierEvent(event, textHash: event.rawTextHash) else { return }
        // Handed on as it is (no copy).
        try handlers.event(consume event)
    }

    private func flushPending() throws {
        let waiting = pending
        pending = []
        for frame in waiting { try finishEvent(frame, final: true) }
    }
}
