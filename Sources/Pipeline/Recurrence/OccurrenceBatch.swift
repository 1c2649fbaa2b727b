/// Occurrences collected for one sorted batch, with the sort key of each computed once when it is added:
/// the deterministic output order is start instant, then UID, then original start, then arrival
/// (`SeriesExpander.sorted` gives the same order for any list of occurrences).
///
/// The occurrences sit in one buffer this batch owns and reuses from batch to batch. Sorting orders the
/// small integer keys and then moves each occurrence once into the list handed on, so no occurrence is
/// copied (its event and zones retained and released) on the way. When the occurrences come from the
/// expand stage's held series, `uidRank` stands for the UID (`HeldSeries` hands the series over with the
/// rank of their UID in Swift's string order), so ties on the start compare two integers, not two strings.
final class OccurrenceBatch {
    struct Key {
        var start: Int64
        var original: Int64
        /// The rank of the occurrence's UID among the batch's UIDs (equal UIDs, equal ranks); -1 when unknown,
        /// then ties compare the UIDs themselves.
        var uidRank: Int32
        var index: Int32
    }

    /// `count` initialized occurrences and their keys, room for `capacity`.
    private var items: UnsafeMutablePointer<Occurrence>
    private var keys: UnsafeMutablePointer<Key>
    private var capacity: Int
    private(set) var count = 0
    /// The rank that `append` gives the next occurrences (set per series by the expand stage).
    var uidRank: Int32 = -1
    /// Wall-clock instance starts, reused from series to series by `SeriesExpander` (scratch, not output).
    var scratchStarts: [Int64] = []

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        items = .allocate(capacity: self.capacity)
        keys = .allocate(capacity: self.capacity)
    }

    deinit {
        items.deinitialize(count: count)
        items.deallocate()
        keys.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Adds an occurrence whose start and original start instants (as `EventTime.utcSeconds(in:)` with the
    /// pipeline's zone gives them) are known.
    @inline(__always)
    func append(_ occurrence: consuming Occurrence, start: Int64, original: Int64) {
        if count == capacity { grow() }
        (items + count).initialize(to: occurrence)
        keys[count] = Key(start: start, original: original, uidRank: uidRank, index: Int32(truncatingIfNeeded: count))
        count += 1
    }

    private func grow() {
        let bigger = capacity * 2
        let newItems = UnsafeMutablePointer<Occurrence>.allocate(capacity: bigger)
        newItems.moveInitialize(from: items, count: count)
        items.deallocate()
        items = newItems
        let newKeys = UnsafeMutablePointer<Key>.allocate(capacity: bigger)
        newKeys.initialize(from: keys, count: count)
        keys.deallocate()
        keys = newKeys
        capacity = bigger
    }

    /// True when the keys from `index` on are strictly increasing by start.
    func startsIncrease(from index: Int) -> Bool {
        var i = index + 1
        while i < count {
            if keys[i - 1].start >= keys[i].start { return false }
            i += 1
        }
        return true
    }

    /// Moves every occurrence of `other` (made elsewhere, e.g. on the series worker's thread, `HeldSeries.drainPrepared`) to the end of this
    /// batch, in order, with its start and original start instants and this batch's `uidRank`, as `append`
    /// would add them one by one; leaves `other` empty.
    func moveAll(from other: OccurrenceBatch) {
        let n = other.count
        while count + n > capacity { grow() }
        (items + count).moveInitialize(from: other.items, count: n)
        for i in 0..<n {
            keys[count + i] = Key(start: other.keys[i].start, original: other.keys[i].original, uidRank: uidRank,
                                  index: Int32(truncatingIfNeeded: count + i))
        }
        count += n
        other.count = 0
    }

    /// Hands back the occurrences in the order they were added and leaves the batch empty.
    func takeInArrivalOrder() -> [Occurrence] {
        let n = count
        let list = [Occurrence](unsafeUninitializedCapacity: n) { buffer, initialized in
            if n > 0 { buffer.baseAddress!.moveInitialize(from: items, count: n) }
            initialized = n
        }
        count = 0
        return list
    }

    /// Hands back the occurrences in order and leaves the batch empty.
    func takeSorted() -> [Occurrence] {
        let n = count
        var order = UnsafeMutableBufferPointer(start: keys, count: n)
        if n > 0 && keys[0].uidRank >= 0 {
            order.sort { a, b in
                if a.start != b.start { return a.start < b.start }
                if a.uidRank != b.uidRank { return a.uidRank < b.uidRank }
                if a.original != b.original { return a.original < b.original }
                return a.index < b.index
            }
        } else {
            let items = self.items
            order.sort { a, b in
                if a.start != b.start { return a.start < b.start }
                let ua = items[Int(a.index)].event.uid, ub = items[Int(b.index)].event.uid
                if ua != ub { return ua < ub }
                if a.original != b.original { return a.original < b.original }
                return a.index < b.index
            }
        }
        let list = [Occurrence](unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0..<n {
                (buffer.baseAddress! + i).initialize(to: (items + Int(order[i].index)).move())
            }
            initialized = n
        }
        count = 0
        return list
    }
}
