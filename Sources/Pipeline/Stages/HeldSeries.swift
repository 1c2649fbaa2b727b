import Foundation

/// The series masters and RECURRENCE-ID overrides the expand stage holds until the end of the input, by
/// source and UID, with bounded memory: events stay in memory while their estimated size fits the budget,
/// later ones go to a `ScratchFile` in the binary codec (Event+BinaryCodec.swift) with only their place on
/// file kept here. `drain` hands every series back in key order, with its overrides in arrival order,
/// exactly as they were held, then frees the file.
final class HeldSeries {
    /// One series: where its UID's bytes are in `uidBytes`, its source, its master and its overrides.
    /// A place `>= 0` is an offset on the spill file (`length` bytes); a negative one is `-(index + 1)` in
    /// `inMemory`; length 0 means "none" (a series with no master yet). 40 bytes, no allocation of its own.
    private struct Series {
        var uidStart: Int
        var masterPlace: Int64 = 0
        var uidLength: UInt32
        var source: Int32
        var hash: UInt32
        var masterLength: UInt32 = 0
        var firstOverride: Int32 = -1
        var lastOverride: Int32 = -1
    }

    /// One override, in a list per series in arrival order.
    private struct Override {
        var place: Int64
        var length: UInt32
        var next: Int32 = -1
    }

    /// Bytes of estimated event size kept in memory before events go to the spill file.
    let budget: Int
    /// Where the spill file goes (the system's temporary directory when nil).
    let directory: String?

    /// The index, kept compact for hundreds of thousands of series: every UID's bytes in one buffer, the
    /// series in one array, and an open-addressing table of series numbers (at most half full).
    private var uidBytes: [UInt8] = []
    private var series: [Series] = []
    private var overrides: [Override] = []
    private var table: [Int32] = []
    private var sourceLabels: [String] = []
    private var sourceIndex: [String: Int32] = [:]

    private var inMemory: [Event?] = []
    /// Estimated bytes of the events in `inMemory`.
    private(set) var memoryBytes = 0
    private var file: ScratchFile?
    private let zones = ZoneTable()
    private var writer = ByteWriter(capacity: 4096)

    init(budget: Int, directory: String?) {
        self.budget = budget
        self.directory = directory
    }

    var isEmpty: Bool { series.isEmpty }
    /// Events written to the spill file so far.
    private(set) var spilledEvents = 0

    /// What `addMaster` did with a master.
    enum MasterOutcome {
        /// The series' first master: held.
        case held
        /// An exact copy of the master already held (`Event.isCopy`): nothing held.
        case copy(of: Event)
        /// A later revision than the one held (higher SEQUENCE, else later DTSTAMP), or one SEQUENCE and
        /// DTSTAMP cannot tell from it: held instead of it.
        case replaced(Event, later: Bool)
        /// An earlier revision than the one held: nothing held.
        case older(than: Event)
    }

    /// Holds a series master. When the series (same source label and UID) already has one, the later
    /// revision is kept (RFC 5546: SEQUENCE, then DTSTAMP; when they tell nothing, the one read last, as a
    /// feed's later copy is its newer one) and an exact copy is held once.
    func addMaster(_ event: Event, source: String) throws -> MasterOutcome {
        let i = seriesNumber(source: source, uid: event.uid)
        guard series[i].masterLength == 0 else {
            let previous = try heldEvent(series[i].masterPlace, series[i].masterLength)
            if event.isCopy(of: previous) { return .copy(of: previous) }
            let order = event.revisionOrder(comparedTo: previous)
            if order < 0 { return .older(than: previous) }
            if series[i].masterPlace < 0 {
                inMemory[Int(-series[i].masterPlace - 1)] = nil
                memoryBytes -= Self.estimatedSize(of: previous)
            }
            let (place, length) = try hold(event)
            series[i].masterPlace = place
            series[i].masterLength = length
            return .replaced(previous, later: order > 0)
        }
        let (place, length) = try hold(event)
        series[i].masterPlace = place
        series[i].masterLength = length
        return .held
    }

    /// A held event, read where it is (left held).
    private func heldEvent(_ place: Int64, _ length: UInt32) throws -> Event {
        if place < 0 {
            guard let event = inMemory[Int(-place - 1)] else { throw CalpipeError("internal error: a held event is gone") }
            return event
        }
        guard let file else { throw CalpipeError("internal error: a held event is on a spill file that is gone") }
        var buffer: [UInt8] = []
        return try Self.decode(file: file, zones: zones, at: place, length: length, buffer: &buffer)
    }

    /// Holds a RECURRENCE-ID override of the series with the same source label and UID.
    func addOverride(_ event: Event, source: String) throws {
        let i = seriesNumber(source: source, uid: event.uid)
        let (place, length) = try hold(event)
        let link = Int32(overrides.count)
        overrides.append(Override(place: place, length: length))
        if series[i].lastOverride >= 0 {
            overrides[Int(series[i].lastOverride)].next = link
        } else {
            series[i].firstOverride = link
        }
        series[i].lastOverride = link
    }

    /// The number of the series, added when new. UIDs are compared as Swift compares strings (canonical
    /// equivalence): by their bytes when ASCII, else by the bytes of their NFC form.
    private func seriesNumber(source label: String, uid: String) -> Int {
        let source: Int32
        if let known = sourceIndex[label] {
            source = known
        } else {
            source = Int32(sourceLabels.count)
            sourceLabels.append(label)
            sourceIndex[label] = source
        }
        return Self.withKeyBytes(uid) { key in
            let hash = Self.hash(source: source, key: key)
            if table.isEmpty { table = [Int32](repeating: -1, count: 1024) }
            let mask = table.count - 1
            var bucket = Int(hash) & mask
            let found: Int? = uidBytes.withUnsafeBufferPointer { arena in
                while true {
                    let n = table[bucket]
                    if n < 0 { return nil }
                    let s = series[Int(n)]
                    if s.hash == hash && s.source == source && Int(s.uidLength) == key.count
                        && (key.isEmpty || memcmp(arena.baseAddress! + s.uidStart, key.baseAddress!, key.count) == 0) {
                        return Int(n)
                    }
                    bucket = (bucket + 1) & mask
                }
            }
            if let found { return found }
            let number = series.count
            series.append(Series(uidStart: uidBytes.count, uidLength: UInt32(key.count), source: source, hash: hash))
            uidBytes.append(contentsOf: key)
            table[bucket] = Int32(number)
            if series.count * 2 > table.count { growTable() }
            return number
        }
    }

    /// A quick hash of a series key for the table (eight bytes at a time, then mixed so the low bits,
    /// which pick the bucket, depend on all of them). Only the table's probing depends on it, not the output.
    static func hash(source: Int32, key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h = 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: source)) &* 0xFF51_AFD7_ED55_8CCD ^ UInt64(key.count)
        let raw = UnsafeRawBufferPointer(key)
        var i = 0
        while i + 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x0000_0100_0000_01B3
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return UInt32(truncatingIfNeeded: h)
    }

    private func growTable() {
        var bigger = [Int32](repeating: -1, count: table.count * 2)
        let mask = bigger.count - 1
        for (n, s) in series.enumerated() {
            var bucket = Int(s.hash) & mask
            while bigger[bucket] >= 0 { bucket = (bucket + 1) & mask }
            bigger[bucket] = Int32(n)
        }
        table = bigger
    }

    static func withKeyBytes<R>(_ uid: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var text = uid
        return text.withUTF8 { bytes in
            var ascii = true
            for b in bytes where b >= 0x80 {
                ascii = false
                break
            }
            if ascii { return body(bytes) }
            var normalized = uid.precomposedStringWithCanonicalMapping
            return normalized.withUTF8(body)
        }
    }

    /// Keeps the event in memory or writes it to the spill file; returns its place and length (see `Series`).
    private func hold(_ event: Event) throws -> (place: Int64, length: UInt32) {
        let size = Self.estimatedSize(of: event)
        if memoryBytes + size <= budget {
            memoryBytes += size
            inMemory.append(event)
            return (-Int64(inMemory.count), 1)
        }
        if file == nil { file = try ScratchFile(directory: directory, prefix: "calpipe-spill") }
        writer.removeAll()
        event.encode(to: &writer, zones: zones)
        guard writer.count < Int(UInt32.max) else { throw CalpipeError("event \"\(event.uid)\" is too large to hold (\(writer.count) bytes)") }
        let offset = try file!.append(writer.bytes)
        spilledEvents += 1
        return (offset, UInt32(writer.count))
    }

    /// A cheap guess of the memory an event takes: its text (the original component text counts most), the
    /// cost of each heap allocation (a string longer than 15 bytes, an array, a parameter), and the struct.
    /// Calibrated on the benchmark feed: a 32 MiB budget holds about 31 MB of resident memory there.
    static func estimatedSize(of e: Event) -> Int {
        func text(_ s: String?) -> Int {
            guard let s else { return 0 }
            let n = s.utf8.count
            return n <= 15 ? 0 : n + 48
        }
        var size = 640 + text(e.uid) + text(e.title) + text(e.description) + text(e.location) + (e.sourceTextUTF8Count <= 15 ? 0 : e.sourceTextUTF8Count + 48)
            + text(e.color) + text(e.url) + text(e.status)
        size += 320 * (e.attendees.count + (e.organizer == nil ? 0 : 1))
        size += 64 * e.categories.count
        size += 192 * e.otherProperties.count + 640 * e.components.count + 128 * e.fieldParameters.count
        size += 192 * (e.recurrence.rules.count + e.recurrence.exceptionRules.count) + 32 * (e.recurrence.dates.count + e.recurrence.exceptionDates.count)
        return size
    }

    /// Hands every series to `body` in order of source label, then UID: its master (nil when only overrides
    /// came) and its overrides in the order they arrived. Empties the store and frees the spill file, also
    /// when `body` or a read throws.
    func drain(_ body: (_ master: Event?, _ overrides: [Event]) throws -> Void) throws {
        try drainRanked { master, overrides, _ in try body(master, overrides) }
    }

    /// `drain`, also handing over the rank of each series' UID in Swift's string order among all the UIDs
    /// held, whatever their source (series of two sources with the same UID share a rank): sorting
    /// occurrences by that rank orders them as comparing their UIDs would.
    func drainRanked(_ body: (_ master: Event?, _ overrides: [Event], _ uidRank: Int32) throws -> Void) throws {
        defer { removeAll() }
        let (order, uidRank) = drainOrder()
        try work(order: order, uidRank: uidRank, prepare: { master, overrides in (master, overrides) }) { series, rank in
            try body(series.0, series.1, rank)
        }
    }

    /// The series numbers in drain order, and each series' UID rank (by series number).
    private func drainOrder() -> (order: [Int32], uidRank: [Int32]) {
        // Source labels in string order, then UIDs by their key bytes: the order Swift's `<` gives.
        var rank = [Int32](repeating: 0, count: sourceLabels.count)
        for (r, i) in sourceLabels.indices.sorted(by: { sourceLabels[$0] < sourceLabels[$1] }).enumerated() { rank[i] = Int32(r) }
        var order = Array(0..<Int32(series.count))
        let all = series
        uidBytes.withUnsafeBufferPointer { arena in
            let base = arena.baseAddress
            order.sort { a, b in
                let x = all[Int(a)], y = all[Int(b)]
                if x.source != y.source { return rank[Int(x.source)] < rank[Int(y.source)] }
                let n = Int(min(x.uidLength, y.uidLength))
                if n > 0 {
                    let c = memcmp(base! + x.uidStart, base! + y.uidStart, n)
                    if c != 0 { return c < 0 }
                }
                return x.uidLength < y.uidLength
            }
        }
        // UID ranks: the position in `order` when there is one source; else the UIDs alone ordered again.
        var uidRank = [Int32](repeating: 0, count: all.count)
        if sourceLabels.count <= 1 {
            for (r, n) in order.enumerated() { uidRank[Int(n)] = Int32(r) }
        } else {
            uidBytes.withUnsafeBufferPointer { arena in
                let base = arena.baseAddress
                func compare(_ x: Series, _ y: Series) -> Int32 {
                    let n = Int(min(x.uidLength, y.uidLength))
                    if n > 0 {
                        let c = memcmp(base! + x.uidStart, base! + y.uidStart, n)
                        if c != 0 { return c }
                    }
                    return x.uidLength == y.uidLength ? 0 : (x.uidLength < y.uidLength ? -1 : 1)
                }
                let byUID = order.sorted { compare(all[Int($0)], all[Int($1)]) < 0 }
                var rank: Int32 = -1
                for (k, n) in byUID.enumerated() {
                    if k == 0 || compare(all[Int(byUID[k - 1])], all[Int(n)]) != 0 { rank += 1 }
                    uidRank[Int(n)] = rank
                }
            }
        }
        return (order, uidRank)
    }

    /// One held event of a series job: in memory, or where it is on the spill file.
    enum HeldItem: Sendable {
        case memory(Event)
        case file(offset: Int64, length: UInt32)
    }

    /// One series for the worker: its master first when it has one, then its overrides in arrival order.
    struct SeriesJob: Sendable {
        var hasMaster = false
        var items: [HeldItem] = []
    }

    /// The spill file and the zone table, for the worker. @unchecked: while the stage drains, the worker is
    /// the only one to read them (nothing is appended then, the write buffer is flushed before the first job),
    /// and the pool is stopped before `removeAll` closes the file.
    private struct SpillReader: @unchecked Sendable {
        let file: ScratchFile?
        let zones: ZoneTable
    }

    /// `drainRanked` that runs `prepare` on each series on another thread (an `OrderedWorkerPool` of one
    /// worker), a few series ahead, and hands its results to `consume` on the caller's thread, in the same
    /// order, with the UID rank. The worker also reads the series' events back from the spill file when they
    /// wait there (decoding is most of what a spilled event costs). The results are the same as running
    /// `prepare` on the caller's thread, series by series; only the work moves to the machine's other core.
    func drainPrepared<Result: Sendable>(prepare: @escaping @Sendable (_ master: Event?, _ overrides: [Event]) -> Result,
                                         consume: (_ result: Result, _ uidRank: Int32) throws -> Void) throws {
        defer { removeAll() }
        let (order, uidRank) = drainOrder()
        try work(order: order, uidRank: uidRank, prepare: prepare, consume: consume)
    }

    /// Moves the held events into one job per series, in `order`, and has a worker read and prepare them.
    private func work<Result: Sendable>(order: [Int32], uidRank: [Int32],
                                        prepare: @escaping @Sendable (_ master: Event?, _ overrides: [Event]) -> Result,
                                        consume: (_ result: Result, _ uidRank: Int32) throws -> Void) throws {
        if let file {
            var none: [UInt8] = []
            try file.read(at: 0, count: 0, into: &none)  // writes out what is still buffered
        }
        let spill = SpillReader(file: file, zones: zones)
        // 32 series in flight, woken 8 at a time: the two threads do not hand over the lock for every series.
        let pool = OrderedWorkerPool<SeriesJob, Result>(name: "calpipe-series", workers: 1, bound: 32, wakeBatch: 8) { _ in
            var buffer: [UInt8] = []
            return { job in try Self.prepare(&job, spill: spill, buffer: &buffer, prepare) }
        }
        // Runs before `removeAll` closes the file.
        defer { pool.stop() }
        // Jobs are made here (they take events out of `inMemory`) as the series are taken, so memory never
        // holds one per series.
        var next = 0
        for k in order.indices {
            while next < order.count && next - k < pool.bound {
                pool.submit(try job(order[next]))
                next += 1
            }
            guard let result = try pool.take() else { throw CalpipeError("internal error: a held series was not read back") }
            try consume(result, uidRank[Int(order[k])])
        }
    }

    /// Moves the held events of series `n` into a job (in memory, or their place on the file).
    private func job(_ n: Int32) throws -> SeriesJob {
        let s = series[Int(n)]
        var job = SeriesJob()
        if s.masterLength != 0 {
            job.hasMaster = true
            job.items.append(try item(s.masterPlace, s.masterLength))
        }
        var link = s.firstOverride
        while link >= 0 {
            let o = overrides[Int(link)]
            job.items.append(try item(o.place, o.length))
            link = o.next
        }
        return job
    }

    /// On the worker: the series' events (read back when spilled), then `prepare`.
    private static func prepare<Result>(_ job: inout SeriesJob, spill: SpillReader, buffer: inout [UInt8],
                                        _ prepare: (_ master: Event?, _ overrides: [Event]) -> Result) throws -> Result {
        // Taken from the back, so each held event moves out of its item instead of being copied.
        var events: [Event] = []
        events.reserveCapacity(job.items.count)
        while let item = job.items.popLast() {
            switch item {
            case .memory(let held):
                events.append(held)
            case .file(let offset, let length):
                guard let file = spill.file else { throw CalpipeError("internal error: a held event is on a spill file that is gone") }
                events.append(try decode(file: file, zones: spill.zones, at: offset, length: length, buffer: &buffer))
            }
        }
        events.reverse()
        let master = job.hasMaster ? events.removeFirst() : nil
        return prepare(master, events)
    }

    /// A held event for a job: taken out of memory, or its place on the file.
    private func item(_ place: Int64, _ length: UInt32) throws -> HeldItem {
        if place < 0 {
            let i = Int(-place - 1)
            guard let event = inMemory[i] else { throw CalpipeError("internal error: a held event was taken twice") }
            inMemory[i] = nil
            return .memory(event)
        }
        guard file != nil else { throw CalpipeError("internal error: a held event is on a spill file that is gone") }
        return .file(offset: place, length: length)
    }

    /// Reads one held event back from the spill file.
    static func decode(file: ScratchFile, zones: ZoneTable, at place: Int64, length: UInt32, buffer: inout [UInt8]) throws -> Event {
        try file.read(at: place, count: Int(length), into: &buffer)
        return try buffer.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            do {
                let event = try Event(decoding: &reader, zones: zones)
                guard reader.isAtEnd else { throw CalpipeError("\(bytes.count - reader.position) bytes left over") }
                return event
            } catch let error as CalpipeError {
                throw CalpipeError("a temporary file of the expand stage is damaged (\(error.message))")
            }
        }
    }

    /// Forgets everything held and frees the spill file.
    func removeAll() {
        uidBytes = []
        series = []
        overrides = []
        table = []
        inMemory = []
        memoryBytes = 0
        file?.close()
        file = nil
        spilledEvents = 0
    }
}
