/// What a stage may do to a batch, keeping its links (`DayEntry.occurrenceIndex`) and `content` true. A stage that
/// drops, replaces or inserts items uses these instead of editing the arrays, so it never re-links days by hand.
///
/// Each operation keeps the order of what stays. A day entry keeps pointing at the occurrence it pointed at before,
/// or goes with it; an entry without a link (handed on later by a stage such as `forecast`) keeps none. The
/// operations work in place: what they allocate is one table of moves per call, when there are links to move.
extension Batch {
    /// Keeps the events, occurrences and day entries whose event satisfies `keep`; the rest go (the `filter`
    /// stage). `keep` is called once per event, occurrence and day entry.
    public mutating func keepEvents(where keep: (Event) throws -> Bool) rethrows {
        let expanded = content.contains(.occurrences)
        let eventMoves = try Batch.compact(&events, linked: !expanded && hasLinks) { try keep($0) }
        let occurrenceMoves = try Batch.compact(&occurrences, linked: expanded && hasLinks) { try keep($0.event) }
        try Batch.compact(&days, linked: false) { try keep($0.event) }
        relink(expanded ? occurrenceMoves : eventMoves)
    }

    /// Removes the occurrences (of `effectiveOccurrences`) that satisfy `remove`, and the day entries made from
    /// them: a linked entry goes with its occurrence, an unlinked one when its own occurrence satisfies `remove`.
    /// In a batch that was not expanded an event is its one occurrence, so removing it removes the event.
    public mutating func removeOccurrences(where remove: (Occurrence) throws -> Bool) rethrows {
        let moves: [Int?]?
        if content.contains(.occurrences) {
            moves = try Batch.compact(&occurrences, linked: true) { try !remove($0) }
        } else {
            moves = try Batch.compact(&events, linked: true) { try !remove(Occurrence(single: $0)) }
        }
        try Batch.compact(&days, linked: false) { day in
            if let i = day.occurrenceIndex { return moves.map { $0.indices.contains(i) ? $0[i] != nil : true } ?? true }
            return try !remove(day.occurrence)
        }
        relink(moves)
    }

    /// Removes the day entries that satisfy `remove`; events and occurrences stay.
    public mutating func removeDays(where remove: (DayEntry) throws -> Bool) rethrows {
        try Batch.compact(&days, linked: false) { try !remove($0) }
    }

    /// Replaces the event at `index` of `events` with `event`. Occurrences and day entries made from the old event
    /// describe it, not the new one, so they go: in a batch that was expanded, the occurrences whose event is the
    /// old one (and their days); in one that was not, the days linked to `index` (the new event is its own single
    /// occurrence). A stage that changes events' times belongs before `expand` and `split`.
    public mutating func replaceEvent(at index: Int, with event: Event) {
        let old = events[index]
        events[index] = event
        if content.contains(.occurrences) {
            removeOccurrences { $0.event == old }
        } else if !days.isEmpty {
            removeDays { $0.occurrenceIndex == index || ($0.occurrenceIndex == nil && $0.event == old) }
        }
    }

    /// Inserts `newEvents` into `events` at `index` (by default at the end), as read: they have no occurrences or day
    /// entries yet. In a batch that was not expanded, the days linked to events after `index` follow their events.
    public mutating func insertEvents(_ newEvents: [Event], at index: Int? = nil) {
        let at = index ?? events.count
        precondition((0...events.count).contains(at), "insertEvents at \(at) of \(events.count)")
        if !content.contains(.occurrences), hasLinks, at < events.count {
            for i in days.indices {
                if let j = days[i].occurrenceIndex, j >= at { days[i].occurrenceIndex = j + newEvents.count }
            }
        }
        events.insert(contentsOf: newEvents, at: at)
        if !newEvents.isEmpty { content.insert(.events) }
    }

    /// Whether any day entry is linked to an occurrence.
    private var hasLinks: Bool { days.contains { $0.occurrenceIndex != nil } }

    /// Points every linked day entry at where its occurrence moved (`moves[old]`, nil: gone).
    private mutating func relink(_ moves: [Int?]?) {
        guard let moves else { return }
        for i in days.indices {
            guard let j = days[i].occurrenceIndex else { continue }
            days[i].occurrenceIndex = moves.indices.contains(j) ? moves[j] : nil
        }
    }

    /// Keeps the items that satisfy `keep`, in order, in place. Returns where each item moved (nil: removed) when
    /// `linked` and anything was removed; else nil (nothing to re-link).
    @discardableResult
    private static func compact<Item>(_ items: inout [Item], linked: Bool, _ keep: (Item) throws -> Bool) rethrows -> [Int?]? {
        var moves: [Int?]? = nil
        var w = 0
        for r in items.indices {
            if try keep(items[r]) {
                if w != r { items.swapAt(w, r) }
                moves?[r] = w
                w += 1
            } else if linked, moves == nil {
                var table = [Int?](repeating: nil, count: items.count)
                for k in 0..<r { table[k] = k }
                moves = table
            }
        }
        if w < items.count { items.removeSubrange(w...) }
        return moves
    }
}
