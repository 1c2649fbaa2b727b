import Pipeline

extension SQLiteRowEncoding {
    /// The `occurrence_*` columns of a day entry (schema 10: occurrences are folded into their day entries), each
    /// NULL where the day entry's own column holds the same value.
    static let foldedOccurrenceColumns = ["occurrence_all_day", "occurrence_start_utc", "occurrence_end_utc", "occurrence_start_local", "occurrence_end_local"]

    /// An occurrence's values (`occurrenceContentColumns`, as `bindOccurrenceValues` binds them), kept to be written
    /// into each of its day entries.
    struct OccurrenceValues {
        var allDay: Bool
        var startUTC: Int64
        var endUTC: Int64
        var startLocal: CivilDateTime
        var endLocal: CivilDateTime

        init(_ o: OccurrenceTimes, zone: Zone) {
            startUTC = o.start.utcSeconds(in: zone)
            endUTC = max(startUTC, o.end.utcSeconds(in: zone))
            allDay = o.start.isDate
            startLocal = zone.local(fromUTC: startUTC)
            endLocal = zone.local(fromUTC: endUTC)
        }

        /// Binds the five values from parameter `first`.
        func bind(to s: some RowBinder, from first: Int) throws {
            try s.bind(allDay, at: first)
            try s.bind(startUTC, at: first + 1)
            try s.bind(endUTC, at: first + 2)
            try bindLocal(startLocal, to: s, at: first + 3)
            try bindLocal(endLocal, to: s, at: first + 4)
        }

        /// Binds `foldedOccurrenceColumns` of the day entry `d` from parameter `first`: NULL where `d` has the value.
        func bind(to s: some RowBinder, from first: Int, besides d: DayEntry) throws {
            if allDay == d.allDay { try s.bindNull(at: first) } else { try s.bind(allDay, at: first) }
            if startUTC == d.startUTC { try s.bindNull(at: first + 1) } else { try s.bind(startUTC, at: first + 1) }
            if endUTC == d.endUTC { try s.bindNull(at: first + 2) } else { try s.bind(endUTC, at: first + 2) }
            if startLocal == d.start { try s.bindNull(at: first + 3) } else { try bindLocal(startLocal, to: s, at: first + 3) }
            if endLocal == d.end { try s.bindNull(at: first + 4) } else { try bindLocal(endLocal, to: s, at: first + 4) }
        }
    }
}
