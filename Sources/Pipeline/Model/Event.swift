/// One calendar event as read from a source (a VEVENT, a JSON record, ...), before expansion.
public struct Event: Hashable, Sendable {
    public var uid: String
    /// SUMMARY.
    public var title: String?
    public var description: String?
    public var location: String?
    /// GEO.
    public var coordinate: Coordinate?
    public var organizer: Attendee?
    public var attendees: [Attendee]
    public var categories: [String]
    /// COLOR (RFC 7986): a CSS3 colour name or "#rrggbb".
    public var color: String?
    public var url: String?
    /// STATUS as written: TENTATIVE, CONFIRMED, CANCELLED.
    public var status: String?

    /// DTSTART.
    public var start: EventTime
    /// DTEND or DURATION, or neither (RFC 5545 defaults apply, see `end`).
    public var endSpec: EndSpec?

    /// RRULE / RDATE / EXDATE / EXRULE, as parsed; the expand stage turns them into occurrences.
    public var recurrence: Recurrence
    /// Set on an override of one instance of a recurring event.
    public var recurrenceID: RecurrenceID?

    /// Properties calpipe has no field for, in source order, kept for round trips.
    public var otherProperties: [RawProperty]
    /// Nested components (VALARM, ...), kept whole.
    public var components: [RawComponent]
    /// Parameters of the fields above that have no field of their own (e.g. LANGUAGE on SUMMARY),
    /// keyed by property name, kept for round trips.
    public var fieldParameters: [String: [Parameter]]

    /// Where the record came from.
    public var origin: SourceLocation?
    /// Facts a source attaches (CalDAV href and etag, ...). The runner sets "source" to the source's label.
    public var metadata: [String: String]
    /// The component's original text when the source keeps it (ICS), for lossless re-export.
    public var sourceText: String? {
        get { source?.string }
        set { source = newValue.map(SourceText.init) }
    }
    /// `sourceText` as the reader kept it (bytes decoded on demand).
    var source: SourceText?

    /// Keeps the component's original text as UTF-8 bytes (a copy of exactly their size), decoded only if
    /// `sourceText` is read.
    package mutating func setSourceText(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        source = SourceText(utf8: [UInt8](unsafeUninitializedCapacity: bytes.count) { out, count in
            if let from = bytes.baseAddress, bytes.count > 0 { out.baseAddress!.initialize(from: from, count: bytes.count) }
            count = bytes.count
        })
    }

    /// The same from an array (which may have room to spare), so that a reader need not capture its event in a
    /// closure to pass a pointer (the ICS builder did: about 1 M more instructions per 5,000 events).
    package mutating func setSourceText(utf8 bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { setSourceText(utf8: $0) }
    }

    /// The length of `sourceText` in UTF-8 bytes, without decoding it.
    package var sourceTextUTF8Count: Int { source?.utf8Count ?? 0 }

    public enum EndSpec: Hashable, Sendable {
        case end(EventTime)
        case duration(CalDuration)
    }

    public init(uid: String, start: EventTime, endSpec: EndSpec? = nil, title: String? = nil) {
        self.uid = uid
        self.start = start
        self.endSpec = endSpec
        self.title = title
        attendees = []
        categories = []
        recurrence = Recurrence()
        otherProperties = []
        components = []
        fieldParameters = [:]
        metadata = [:]
    }

    public var isAllDay: Bool { start.isDate }

    /// The effective end of the first occurrence: DTEND, else DTSTART + DURATION, else the RFC 5545 default
    /// (a date lasts one day, a date-time lasts zero).
    public var end: EventTime {
        switch endSpec {
        case .end(let e): return e
        case .duration(let d): return start.adding(d)
        case nil: return start.isDate ? start.adding(CalDuration(days: 1)) : start
        }
    }

    /// The duration every occurrence of the event lasts (for recurring events), RFC 5545 3.8.5.3.
    public func occurrenceDuration(in zone: Zone) -> CalDuration {
        switch endSpec {
        case .duration(let d): return d
        case .end(let e):
            if case .date(let s) = start, case .date(let ed) = e { return CalDuration(days: ed.daysSinceEpoch - s.daysSinceEpoch) }
            if case .date = start { return CalDuration(days: 1) }
            // Timed: exact seconds between the two instants.
            return CalDuration(seconds: e.utcSeconds(in: zone) - start.utcSeconds(in: zone))
        case nil: return start.isDate ? CalDuration(days: 1) : .zero
        }
    }

    /// True for a series master (has RRULE or RDATE).
    public var isRecurring: Bool { !recurrence.isEmpty }

    /// STATUS:CANCELLED in any letter case.
    public var isCancelled: Bool {
        // Inlined, so that reading it from an array element copies only the status, not the whole event.
        @inline(__always) get {
            guard let status else { return false }
            return Self.isCancelled(status: status)
        }
    }

    /// `status.uppercased() == "CANCELLED"`, without building the uppercased copy when the status is ASCII
    /// (the usual case): then it is compared byte by byte.
    static func isCancelled(status: String) -> Bool {
        var length = 0
        for byte in status.utf8 {
            if byte >= 0x80 { return status.uppercased() == "CANCELLED" }
            // Every byte so far was ASCII, so the uppercased text has the same letters at the same places.
            let upper = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
            let expected: UInt8
            switch length {
            case 0, 3: expected = 0x43  // C
            case 1: expected = 0x41  // A
            case 2: expected = 0x4E  // N
            case 4, 7: expected = 0x45  // E
            case 5, 6: expected = 0x4C  // L
            case 8: expected = 0x44  // D
            default: return false  // longer than CANCELLED
            }
            guard upper == expected else { return false }
            length += 1
        }
        return length == 9
    }
}
