import Pipeline

extension SQLiteRowEncoding {
    /// The columns of a `day_rows` row (schema 11) that a day entry fills, in bind order: what `dayContentColumns`
    /// holds, with the local times as offsets from the UTC instants and no sort key (`day_entries` computes them).
    static let narrowDayColumns = [
        "event_id", "part", "parts", "all_day", "start_utc", "end_utc", "start_offset", "end_offset", "start_local_text", "end_local_text",
    ]

    /// Binds `narrowDayColumns` from parameter `first`: the start's offset, the end's only where it differs from the
    /// start's, and a local time as text only where SQLite cannot compute it (`SQLiteSchema.version11`).
    static func bindNarrowDayValues(_ d: DayEntry, eventID: Int64, to s: some RowBinder, from first: Int) throws {
        try s.bind(eventID, at: first)
        try s.bind(d.part, at: first + 1)
        try s.bind(d.parts, at: first + 2)
        try s.bind(d.allDay, at: first + 3)
        try s.bind(d.startUTC, at: first + 4)
        try s.bind(d.endUTC, at: first + 5)
        let start = offset(d.start, from: d.startUTC), end = offset(d.end, from: d.endUTC)
        if let start { try s.bind(start, at: first + 6) } else { try s.bindNull(at: first + 6) }
        if let end, end != start { try s.bind(end, at: first + 7) } else { try s.bindNull(at: first + 7) }
        if start == nil { try bindLocal(d.start, to: s, at: first + 8) } else { try s.bindNull(at: first + 8) }
        if end == nil { try bindLocal(d.end, to: s, at: first + 9) } else { try s.bindNull(at: first + 9) }
    }

    /// Seconds from the instant `utc` to the local time `local`, when SQLite's date functions can write it back
    /// (years 1 to 9999); nil otherwise (the text is stored).
    static func offset(_ local: CivilDateTime, from utc: Int64) -> Int64? {
        (1...9999).contains(local.date.components.year) ? local.secondsSinceEpoch - utc : nil
    }
}
