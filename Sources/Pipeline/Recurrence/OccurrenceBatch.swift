/// Occurrences collected for one sorted batch, with the sort key of each computed once when it is added:
/// the deterministic output order is start instant, then UID, then original start, then arrival
/// (`SeriesExpander.sorted` gives the same order for any list of occurrences).
///
/// Sorting orders the small integer keys and then moves each occurrence once into place, so no occurrence
/// is copied (its event and zones retained and released) on the way. When the occurrences come from the
/// expand stage's held series, `uidRank` stands for the UID (`HeldSeries` hands the series over with the
/// rank of their UID in Swift's string order), so ties on the start compare two integers, not two strings.
struct OccurrenceBatch {
    struct Key {
        var start: Int64
        var original: Int64
        /// The rank of the occurrence's UID among the batch's UIDs (equal UIDs, equal ranks); -1 when unknown,
        /// then ties compare the UIDs themselves.
        var uidRank: Int32
        var index: Int32
    }

    private(set) var occurrences: [Occurrence] = []
    private(set) var keys: [Key] = []
    /// The rank that `append` gives the next occurrences (set per series by the expand stage).
    var uidRank: Int32 = -1
    /// Wall-clock instance starts, reused from series to series by `SeriesExpander` (scratch, not output).
    var scratchStarts: [Int64] = []

    init(capacity: Int = 0) {
        occurrences.reserveCapacity(capacity)
        keys.reserveCapacity(capacity)
    }

    var count: Int { occurrences.count }
    var isEmpty: Bool { occurrences.isEmpty }

    /// Adds an occurrence whose start and original start instants (as `EventTime.utcSeconds(in:)` with the
    /// pipeline's zone gives them) are known.
    @inline(__always)
    mutating func append(_ occurrence: Occurrence, start: Int64, original: Int64) {
        keys.append(Key(start: start, original: original, uidRank: uidRank, index: Int32(truncatingIfNeeded: occurrences.count)))
        occurrences.append(occurrence)
    }

    /// True when the keys from `index` on are strictly increasing by start.
    func startsIncrease(from index: Int) -> Bool {
        var i = index + 1
        while i < keys.count {
            if keys[i - 1].start >= keys[i].start { return false }
            i += 1
        }
        return true
    }

    /// Hands back the occurrences in order and leaves the batch empty (its scratch kept). With
    /// `reservingAgain`, the batch makes room for as many occurrences again (for the next chunk).
    mutating func takeSorted(reservingAgain: Bool = false) -> [Occurrence] {
        let ranked = keys.first.map { $0.uidRank >= 0 } ?? true
        if ranked {
            keys.sort { a, b in
                if a.start != b.start { return a.start < b.start }
                if a.uidRank != b.uidRank { return a.uidRank < b.uidRank }
                if a.original != b.original { return a.original < b.original }
                return a.index < b.index
            }
        } else {
            let list = occurrences
            keys.sort { a, b in
                if a.start != b.start { return a.start < b.start }
                let ua = list[Int(a.index)].event.uid, ub = list[Int(b.index)].event.uid
                if ua != ub { return ua < ub }
                if a.original != b.original { return a.original < b.original }
                return a.index < b.index
            }
        }
        var sorted = occurrences
        occurrences = []
        if reservingAgain { occurrences.reserveCapacity(sorted.count) }
        Self.permute(&sorted, by: keys)
        keys.removeAll(keepingCapacity: true)
        return sorted
    }

    /// Puts `list[keys[i].index]` at position i by moving the values (no copies).
    static func permute(_ list: inout [Occurrence], by keys: [Key]) {
        let n = list.count
        guard n > 1 else { return }
        precondition(keys.count == n)
        var inPlace = true
        for i in 0..<n where Int(keys[i].index) != i {
            inPlace = false
            break
        }
        if inPlace { return }
        list.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let moved = UnsafeMutablePointer<Occurrence>.allocate(capacity: n)
            defer { moved.deallocate() }
            for i in 0..<n {
                (moved + i).initialize(to: (base + Int(keys[i].index)).move())
            }
            base.moveInitialize(from: moved, count: n)
        }
    }
}
