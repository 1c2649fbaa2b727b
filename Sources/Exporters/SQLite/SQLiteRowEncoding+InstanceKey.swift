import Pipeline

extension SQLiteRowEncoding {
    /// An occurrence's instance as a day row stores it (schema 12, `SQLiteSchema.version12`): the key, and the text
    /// only when the key cannot give it back (`SQLiteSchema.instanceText`).
    struct InstanceKey: Hashable {
        var key: Int64
        var text: String?
    }

    /// The key of the instance `recurrenceID` (nil: a single event, text ""), built from the time as `iso` writes it:
    /// the instant shifted left by 12 bits, and below it the form: 0 UTC, 1 floating, 2 date, 3 none, 844 plus the
    /// offset in minutes for a zoned time (shown with that offset). A time whose text the key cannot give back (an
    /// offset with seconds, a local year outside 1 to 9999) keeps its text, and its key is a hash of it (form 4095).
    static func instanceKey(_ recurrenceID: EventTime?) -> InstanceKey {
        guard let time = recurrenceID else { return InstanceKey(key: 3) }
        let instant: Int64, form: Int64, local: CivilDateTime
        switch time {
        case .date(let d):
            local = CivilDateTime(date: d)
            (instant, form) = (local.secondsSinceEpoch, 2)
        case .utc(let s):
            local = CivilDateTime(secondsSinceEpoch: s)
            (instant, form) = (s, 0)
        case .floating(let l):
            local = l
            (instant, form) = (l.secondsSinceEpoch, 1)
        case .zoned(let l, let zone):
            let utc = zone.utc(fromLocal: l)
            let offset = zone.offset(atUTC: utc)
            local = CivilDateTime(secondsSinceEpoch: utc + Int64(offset))
            guard offset % 60 == 0, abs(offset) <= 840 * 60 else { return hashed(iso(time, startUTC: nil)) }
            (instant, form) = (utc, 844 + Int64(offset / 60))
        }
        guard (1...9999).contains(local.date.components.year) else { return hashed(iso(time, startUTC: nil)) }
        return InstanceKey(key: instant << 12 | form)
    }

    /// A text the key cannot stand for: kept, with a 64-bit FNV-1a hash of it as the key (form 4095).
    private static func hashed(_ text: String) -> InstanceKey {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return InstanceKey(key: Int64(bitPattern: h | 4095), text: text)
    }

    /// Binds the key at `key` and the kept text (NULL for nearly every row) at `text`.
    static func bind(_ instance: InstanceKey, to s: some RowBinder, key: Int, text: Int) throws {
        try s.bind(instance.key, at: key)
        if let t = instance.text { try s.bind(t, at: text) } else { try s.bindNull(at: text) }
    }
}
