/// Agenda order, defined once: by day, all-day entries first, then by start instant, title (a missing one is ""),
/// UID, and end instant. Titles and UIDs compare as Swift Strings do: canonically equivalent texts ("é" as one
/// scalar or as "e" and a combining accent) are equal.
///
/// Everything that orders day entries derives from this key: `DayEntry.agendaOrder` (and `AgendaDayCollector`),
/// the JSON sink's spool (`DayEntrySpool.Entry`, on rendered bytes), the HTML page (`HTMLDayCollector`), the
/// forecast stage's choice of a day's place, and the SQLite sink, whose `sort_key` column holds the first two
/// fields after the day (`SQLiteRowEncoding.sortKey`) so that `ORDER BY day, sort_key, title, uid, end_utc` is this
/// order for texts in NFC; `SQLiteAgendaReader.agendaDays` sorts each day by the key again, for the others.
/// `AgendaOrderTests` checks that they all agree.
public struct AgendaKey<Text> {
    public var day: Int
    public var allDay: Bool
    public var startUTC: Int64
    public var title: Text
    public var uid: Text
    public var endUTC: Int64

    @inlinable
    public init(day: Int, allDay: Bool, startUTC: Int64, title: Text, uid: Text, endUTC: Int64) {
        self.day = day
        self.allDay = allDay
        self.startUTC = startUTC
        self.title = title
        self.uid = uid
        self.endUTC = endUTC
    }

    /// Whether this key comes before `other`; `compareText` orders titles and UIDs (-1, 0 or 1, as Swift
    /// Strings compare), for keys that hold them as something else (bytes).
    @inlinable @inline(__always)
    public func precedes(_ other: AgendaKey, compareText: (Text, Text) -> Int) -> Bool {
        if day != other.day { return day < other.day }
        if allDay != other.allDay { return allDay }
        if startUTC != other.startUTC { return startUTC < other.startUTC }
        let t = compareText(title, other.title)
        if t != 0 { return t < 0 }
        let u = compareText(uid, other.uid)
        if u != 0 { return u < 0 }
        return endUTC < other.endUTC
    }
}

extension AgendaKey: Equatable, Comparable where Text == String {
    @inlinable
    public static func < (a: AgendaKey, b: AgendaKey) -> Bool {
        a.precedes(b) { x, y in x == y ? 0 : (x < y ? -1 : 1) }
    }
}

extension DayEntry {
    /// The entry's place in agenda order.
    public var agendaKey: AgendaKey<String> {
        occurrence.withEvent { event in
            AgendaKey(day: day.daysSinceEpoch, allDay: allDay, startUTC: startUTC, title: event.title ?? "", uid: event.uid, endUTC: endUTC)
        }
    }

    /// Agenda order (`AgendaKey`): by day, all-day first, then start, title, UID and end.
    public static func agendaOrder(_ a: DayEntry, _ b: DayEntry) -> Bool {
        a.agendaKey < b.agendaKey
    }
}
