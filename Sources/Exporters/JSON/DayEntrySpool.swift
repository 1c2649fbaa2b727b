import Foundation
import Pipeline

/// Rendered day entries put into agenda order with bounded memory (an external merge sort), for the JSON
/// sink's `days` shape: entries gather in memory (their sort key and rendered bytes in one byte arena) until
/// they hold `runBytes`, are then sorted and written to a scratch file as one sorted run; `drain` merges the
/// runs. Memory holds one run plus a read buffer per run, whatever the size of the feed; a feed whose entries
/// fit in one run never touches the disk.
final class DayEntrySpool {
    /// One entry as `drain` hands it out: its key (titles and UIDs as bytes) and rendered bytes, valid during
    /// the call only.
    struct Entry {
        var key: AgendaKey<Text>
        var text: UnsafeBufferPointer<UInt8>
        var day: Int { key.day }

        /// Agenda order (`AgendaKey`, on the bytes; equal keys are neither before the other).
        static func < (a: Entry, b: Entry) -> Bool {
            a.key.precedes(b.key) { x, y in compareText(x.bytes, x.byteOrdered, y.bytes, y.byteOrdered) }
        }

        /// A title or UID as UTF-8 bytes, and whether they order as the String does (`isByteOrdered`); texts
        /// that do not are compared as Strings.
        struct Text {
            var bytes: UnsafeBufferPointer<UInt8>
            var byteOrdered: Bool
        }
    }

    static let defaultRunBytes = 4 << 20

    /// An entry in memory: its key, and where its title, UID and text lie (one after the other) in `arena`.
    private struct Record {
        var day: Int
        var startUTC: Int64
        var endUTC: Int64
        var offset: Int
        var titleLength: Int32
        var uidLength: Int32
        var textLength: Int32
        /// Bit 0: all day; bit 1: title byte-ordered; bit 2: UID byte-ordered.
        var flags: UInt8
        /// Order of arrival within its run: equal keys keep it.
        var sequence: Int32

        var size: Int { Int(titleLength) + Int(uidLength) + Int(textLength) }

        func entry(in arena: UnsafePointer<UInt8>) -> Entry {
            let title = arena + offset, uid = title + Int(titleLength), text = uid + Int(uidLength)
            return Entry(key: AgendaKey(day: day, allDay: flags & 1 != 0, startUTC: startUTC,
                                        title: Entry.Text(bytes: UnsafeBufferPointer(start: title, count: Int(titleLength)), byteOrdered: flags & 2 != 0),
                                        uid: Entry.Text(bytes: UnsafeBufferPointer(start: uid, count: Int(uidLength)), byteOrdered: flags & 4 != 0),
                                        endUTC: endUTC),
                         text: UnsafeBufferPointer(start: text, count: Int(textLength)))
        }
    }

    private let runBytes: Int
    private var records: [Record] = []
    private var arena: [UInt8] = []
    /// The title of the entry added last, and whether it is byte-ordered.
    private var lastTitle: [UInt8] = []
    private var lastTitleOrdered = true
    /// Which scalars keep text in NFC, learnt as they come (`isByteOrdered`, fast).
    private let nfc = NFCStarterTable()
    private var scratch: ScratchFile?
    /// Byte ranges of the sorted runs in `scratch`.
    private var runs: [Range<Int64>] = []
    /// Entries added in all.
    private(set) var count = 0

    init(runBytes: Int = DayEntrySpool.defaultRunBytes) {
        self.runBytes = max(1, runBytes)
    }

    /// Runs written to disk so far (for tests: a small `runBytes` must spill).
    var spilledRuns: Int { runs.count }

    /// Adds an entry whose rendered JSON is `text`.
    func add(_ key: AgendaKey<String>, text: UnsafeBufferPointer<UInt8>) throws {
        let offset = arena.count
        let titleLength = JSONBytes.withUTF8(key.title) { utf8 in
            // Consecutive entries often share their event's title: its check is remembered.
            let same = utf8.count == lastTitle.count
                && (utf8.isEmpty || lastTitle.withUnsafeBufferPointer { memcmp($0.baseAddress!, utf8.baseAddress!, utf8.count) == 0 })
            if !same {
                lastTitle.removeAll(keepingCapacity: true)
                lastTitle.append(contentsOf: utf8)
                lastTitleOrdered = nfc.isNFC(key.title)
            }
            arena.append(contentsOf: utf8)
            return utf8.count
        }
        let uidLength = JSONBytes.withUTF8(key.uid) { arena.append(contentsOf: $0); return $0.count }
        arena.append(contentsOf: text)
        let flags: UInt8 = (key.allDay ? 1 : 0) | (lastTitleOrdered ? 2 : 0) | (nfc.isNFC(key.uid) ? 4 : 0)
        records.append(Record(day: key.day, startUTC: key.startUTC, endUTC: key.endUTC, offset: offset,
                              titleLength: Int32(titleLength), uidLength: Int32(uidLength), textLength: Int32(text.count),
                              flags: flags, sequence: Int32(truncatingIfNeeded: records.count)))
        count += 1
        if arena.count + records.count * MemoryLayout<Record>.stride >= runBytes { try spill() }
    }

    /// Adds an entry whose rendered JSON is `text`.
    func add(_ key: AgendaKey<String>, text: String) throws {
        try JSONBytes.withUTF8(text) { try add(key, text: $0) }
    }

    /// Hands every entry to `body` in agenda order (entries with equal keys in the order they were added),
    /// then forgets them.
    func drain(_ body: (Entry) throws -> Void) throws {
        defer { reset() }
        if runs.isEmpty {
            sortRecords()
            try arena.withUnsafeBufferPointer { arena in
                guard let base = arena.baseAddress else { return }
                for record in records { try body(record.entry(in: base)) }
            }
            return
        }
        try spill()
        guard let scratch else { return }
        let transfer = TransferBuffer()
        let readers = runs.map { RunReader(scratch: scratch, range: $0, transfer: transfer) }
        var heap = MergeHeap()
        for i in readers.indices {
            if let head = try readers[i].next() { heap.insert(run: i, head: head) }
        }
        while let (run, head) = heap.first {
            try body(head)
            if let next = try readers[run].next() { heap.replaceFirst(next) } else { heap.removeFirst() }
        }
    }

    /// A binary min-heap of runs, ordered by their head entries; the run index breaks ties, so the merge is
    /// stable. The heads live in an array of plain values, so comparing touches no reference count.
    private struct MergeHeap {
        private var runs: [Int] = []
        private var heads: [Entry] = []

        var first: (run: Int, head: Entry)? { runs.first.map { ($0, heads[$0]) } }

        private func before(_ a: Int, _ b: Int) -> Bool {
            if heads[a] < heads[b] { return true }
            if heads[b] < heads[a] { return false }
            return a < b
        }

        mutating func insert(run: Int, head: Entry) {
            while heads.count <= run { heads.append(head) }
            heads[run] = head
            runs.append(run)
            var child = runs.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard before(runs[child], runs[parent]) else { return }
                runs.swapAt(child, parent)
                child = parent
            }
        }

        /// The first run has a new head.
        mutating func replaceFirst(_ head: Entry) {
            heads[runs[0]] = head
            siftDown()
        }

        /// The first run is exhausted.
        mutating func removeFirst() {
            runs[0] = runs[runs.count - 1]
            runs.removeLast()
            siftDown()
        }

        private mutating func siftDown() {
            var parent = 0
            while true {
                let l = 2 * parent + 1, r = l + 1
                var smallest = parent
                if l < runs.count, before(runs[l], runs[smallest]) { smallest = l }
                if r < runs.count, before(runs[r], runs[smallest]) { smallest = r }
                if smallest == parent { return }
                runs.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }

    func reset() {
        records = []
        arena = []
        runs = []
        scratch = nil
        count = 0
    }

    private func sortRecords() {
        // Stable: equal keys keep the order they came in.
        arena.withUnsafeBufferPointer { arena in
            guard let base = arena.baseAddress else { return }
            records.sort { a, b in
                let ea = a.entry(in: base), eb = b.entry(in: base)
                if ea < eb { return true }
                if eb < ea { return false }
                return a.sequence < b.sequence
            }
        }
    }

    private func spill() throws {
        guard !records.isEmpty else { return }
        sortRecords()
        if scratch == nil { scratch = try ScratchFile(prefix: "calpipe-json-days") }
        guard let scratch else { return }
        let start = scratch.size
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        var index = 0
        while index < records.count {
            arena.withUnsafeBufferPointer { arena in
                let base = arena.baseAddress!
                while index < records.count, out.count < 1 << 16 {
                    Self.encode(records[index], from: base, into: &out)
                    index += 1
                }
            }
            try scratch.append(out)
            out.removeAll(keepingCapacity: true)
        }
        runs.append(start..<scratch.size)
        records.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    // MARK: Run records

    // A record: day, start, end (8 bytes each, little-endian), flags (1 byte: all day, title and UID
    // byte-ordered), then the lengths of title, UID and text (4 bytes each) and their UTF-8 bytes.
    static let headerSize = 8 * 3 + 1 + 4 * 3

    private static func encode(_ record: Record, from arena: UnsafePointer<UInt8>, into out: inout [UInt8]) {
        func put64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func put32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        put64(Int64(record.day))
        put64(record.startUTC)
        put64(record.endUTC)
        out.append(record.flags)
        put32(record.titleLength)
        put32(record.uidLength)
        put32(record.textLength)
        out.append(contentsOf: UnsafeBufferPointer(start: arena + record.offset, count: record.size))
    }

    private final class TransferBuffer {
        var bytes: [UInt8] = []
    }

    /// Reads one run's records back in order, through a buffer of at least 32 KiB; an entry `next` returns
    /// is valid until the next call.
    private final class RunReader {
        let scratch: ScratchFile
        var position: Int64
        let end: Int64
        private var storage: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        /// The unread bytes are `storage[low..<high]`.
        private var low = 0
        private var high = 0
        /// Where reads land before they are copied behind the unread bytes; one for all the runs.
        private let transfer: TransferBuffer
        /// Bytes of the record `next` returned last (consumed by the next call).
        private var headSize = 0
        private static let chunkSize = 1 << 15

        init(scratch: ScratchFile, range: Range<Int64>, transfer: TransferBuffer) {
            self.scratch = scratch
            self.transfer = transfer
            position = range.lowerBound
            end = range.upperBound
            capacity = Self.chunkSize
            storage = .allocate(capacity: capacity)
        }

        deinit { storage.deallocate() }

        /// Makes `count` bytes available at `low`.
        private func need(_ count: Int) throws {
            if high - low >= count { return }
            let kept = high - low
            if kept > 0, low > 0 { storage.update(from: storage + low, count: kept) }
            low = 0
            high = kept
            if count > capacity {
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
                bigger.update(from: storage, count: kept)
                storage.deallocate()
                storage = bigger
                capacity = count
            }
            let want = Int(min(Int64(capacity - kept), end - position))
            guard kept + want >= count else {
                throw CalpipeError("a temporary file of the json sink is shorter than expected")
            }
            try scratch.read(at: position, count: want, into: &transfer.bytes)
            transfer.bytes.withUnsafeBufferPointer { storage.advanced(by: kept).update(from: $0.baseAddress!, count: want) }
            high += want
            position += Int64(want)
        }

        /// The next record; nil at the end of the run.
        func next() throws -> Entry? {
            low += headSize
            headSize = 0
            if low == high && position == end { return nil }
            try need(DayEntrySpool.headerSize)
            let h = UnsafeRawPointer(storage + low)
            let day = Int(Int64(littleEndian: h.loadUnaligned(as: Int64.self)))
            let start = Int64(littleEndian: h.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            let endUTC = Int64(littleEndian: h.loadUnaligned(fromByteOffset: 16, as: Int64.self))
            let flags = h.load(fromByteOffset: 24, as: UInt8.self)
            let titleLength = Int(Int32(littleEndian: h.loadUnaligned(fromByteOffset: 25, as: Int32.self)))
            let uidLength = Int(Int32(littleEndian: h.loadUnaligned(fromByteOffset: 29, as: Int32.self)))
            let textLength = Int(Int32(littleEndian: h.loadUnaligned(fromByteOffset: 33, as: Int32.self)))
            try need(DayEntrySpool.headerSize + titleLength + uidLength + textLength)
            let title = UnsafePointer(storage + low + DayEntrySpool.headerSize)
            let entry = Entry(key: AgendaKey(day: day, allDay: flags & 1 != 0, startUTC: start,
                                             title: Entry.Text(bytes: UnsafeBufferPointer(start: title, count: titleLength), byteOrdered: flags & 2 != 0),
                                             uid: Entry.Text(bytes: UnsafeBufferPointer(start: title + titleLength, count: uidLength), byteOrdered: flags & 4 != 0),
                                             endUTC: endUTC),
                              text: UnsafeBufferPointer(start: title + titleLength + uidLength, count: textLength))
            headSize = DayEntrySpool.headerSize + titleLength + uidLength + textLength
            return entry
        }
    }

    // MARK: Text order

    /// Whether Swift's String comparison orders the text as its UTF-8 bytes: true when it is in NFC (ASCII
    /// is). Swift compares Strings by their NFC scalars (canonically equivalent Strings are equal), and UTF-8
    /// keeps the order of scalars, so two NFC texts compare as their bytes. (The spool asks its
    /// `NFCStarterTable`, which gives the same answer faster.)
    static func isByteOrdered(_ text: String) -> Bool {
        NFCStarterTable.fullCheck(text)
    }

    /// -1, 0 or 1 as the texts compare as Swift Strings (`<`, `==`): by bytes when both are byte-ordered,
    /// else as Strings (canonically equivalent texts are equal, as `DayEntry.agendaOrder` sees them).
    static func compareText(_ a: UnsafeBufferPointer<UInt8>, _ aOrdered: Bool, _ b: UnsafeBufferPointer<UInt8>, _ bOrdered: Bool) -> Int {
        let n = min(a.count, b.count)
        let c = n == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, n)
        if c == 0, a.count == b.count { return 0 }
        if aOrdered, bOrdered { return c != 0 ? (c < 0 ? -1 : 1) : (a.count < b.count ? -1 : 1) }
        let sa = String(decoding: a, as: UTF8.self), sb = String(decoding: b, as: UTF8.self)
        return sa < sb ? -1 : (sb < sa ? 1 : 0)
    }
}
