import Foundation
import Pipeline

/// Rendered day entries put into agenda order with bounded memory (an external merge sort), for the JSON
/// sink's `days` shape: entries gather in memory until they hold `runBytes` of text, are then sorted and
/// written to a scratch file as one sorted run; `drain` merges the runs. Memory holds one run plus one entry
/// per run, whatever the size of the feed; a feed whose entries fit in one run never touches the disk.
final class DayEntrySpool {
    /// The agenda order of `DayEntry.agendaOrder`: day, all-day first, start, title, UID, end.
    struct Key {
        var day: Int
        var allDay: Bool
        var startUTC: Int64
        var endUTC: Int64
        var title: String
        var uid: String

        static func < (a: Key, b: Key) -> Bool {
            if a.day != b.day { return a.day < b.day }
            if a.allDay != b.allDay { return a.allDay }
            if a.startUTC != b.startUTC { return a.startUTC < b.startUTC }
            if a.title != b.title { return a.title < b.title }
            if a.uid != b.uid { return a.uid < b.uid }
            return a.endUTC < b.endUTC
        }
    }

    struct Entry {
        var key: Key
        /// The entry's rendered JSON.
        var text: String
        /// Order of arrival within its run: equal keys keep it.
        var sequence = 0
    }

    static let defaultRunBytes = 8 << 20

    private let runBytes: Int
    private var pending: [Entry] = []
    private var pendingBytes = 0
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

    func add(_ key: Key, text: String) throws {
        pending.append(Entry(key: key, text: text, sequence: pending.count))
        pendingBytes += text.utf8.count + key.title.utf8.count + key.uid.utf8.count + 64
        count += 1
        if pendingBytes >= runBytes { try spill() }
    }

    /// Hands every entry to `body` in agenda order (entries with equal keys in the order they were added),
    /// then forgets them.
    func drain(_ body: (Entry) throws -> Void) throws {
        defer { reset() }
        if runs.isEmpty {
            sortPending()
            for entry in pending { try body(entry) }
            return
        }
        try spill()
        guard let scratch else { return }
        var readers = runs.map { RunReader(scratch: scratch, range: $0) }
        // A binary min-heap of (head entry, run index); the run index breaks ties, so the merge is stable.
        var heap: [(entry: Entry, run: Int)] = []
        heap.reserveCapacity(readers.count)
        func before(_ a: (entry: Entry, run: Int), _ b: (entry: Entry, run: Int)) -> Bool {
            if a.entry.key < b.entry.key { return true }
            if b.entry.key < a.entry.key { return false }
            return a.run < b.run
        }
        func siftUp(_ i: Int) {
            var child = i
            while child > 0 {
                let parent = (child - 1) / 2
                guard before(heap[child], heap[parent]) else { return }
                heap.swapAt(child, parent)
                child = parent
            }
        }
        func siftDown(_ i: Int) {
            var parent = i
            while true {
                let l = 2 * parent + 1, r = l + 1
                var smallest = parent
                if l < heap.count, before(heap[l], heap[smallest]) { smallest = l }
                if r < heap.count, before(heap[r], heap[smallest]) { smallest = r }
                if smallest == parent { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for i in readers.indices {
            if let first = try readers[i].next() {
                heap.append((first, i))
                siftUp(heap.count - 1)
            }
        }
        while let top = heap.first {
            try body(top.entry)
            if let next = try readers[top.run].next() {
                heap[0] = (next, top.run)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }

    func reset() {
        pending = []
        pendingBytes = 0
        runs = []
        scratch = nil
        count = 0
    }

    private func sortPending() {
        // In place, and stable: equal keys keep the order they came in.
        pending.sort { a, b in
            if a.key < b.key { return true }
            if b.key < a.key { return false }
            return a.sequence < b.sequence
        }
    }

    private func spill() throws {
        guard !pending.isEmpty else { return }
        sortPending()
        if scratch == nil { scratch = try ScratchFile() }
        guard let scratch else { return }
        let start = scratch.size
        var record: [UInt8] = []
        record.reserveCapacity(1 << 16)
        for entry in pending {
            Self.encode(entry, into: &record)
            if record.count >= 1 << 16 {
                try scratch.append(record)
                record.removeAll(keepingCapacity: true)
            }
        }
        try scratch.append(record)
        runs.append(start..<scratch.size)
        pending = []
        pendingBytes = 0
    }

    // A record: day, start, end (8 bytes each, little-endian), all-day (1 byte), then the lengths of title,
    // UID and text (4 bytes each) and their UTF-8 bytes.
    static let headerSize = 8 * 3 + 1 + 4 * 3

    private static func encode(_ entry: Entry, into out: inout [UInt8]) {
        func put64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func put32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }
        put64(Int64(entry.key.day))
        put64(entry.key.startUTC)
        put64(entry.key.endUTC)
        out.append(entry.key.allDay ? 1 : 0)
        put32(entry.key.title.utf8.count)
        put32(entry.key.uid.utf8.count)
        put32(entry.text.utf8.count)
        out.append(contentsOf: entry.key.title.utf8)
        out.append(contentsOf: entry.key.uid.utf8)
        out.append(contentsOf: entry.text.utf8)
    }

    /// Reads one run's records back in order, through a buffer of at least 64 KiB.
    private struct RunReader {
        let scratch: ScratchFile
        var position: Int64
        let end: Int64
        var buffer: [UInt8] = []
        var offset = 0

        init(scratch: ScratchFile, range: Range<Int64>) {
            self.scratch = scratch
            position = range.lowerBound
            end = range.upperBound
        }

        /// Makes `count` bytes available at `offset`.
        private mutating func need(_ count: Int) throws {
            if buffer.count - offset >= count { return }
            let keep = Array(buffer[offset...])
            let want = Int(min(Int64(max(count - keep.count, 1 << 15)), end - position))
            guard keep.count + want >= count else {
                throw RunFailure.failed("a temporary file of the json sink is shorter than expected")
            }
            buffer = keep + (try scratch.read(at: position, count: want))
            position += Int64(want)
            offset = 0
        }

        mutating func next() throws -> Entry? {
            if offset == buffer.count && position == end { return nil }
            try need(DayEntrySpool.headerSize)
            func int64(_ at: Int) -> Int64 {
                var v: Int64 = 0
                for k in 0..<8 { v |= Int64(buffer[offset + at + k]) << (8 * k) }
                return v
            }
            func int32(_ at: Int) -> Int {
                var v = 0
                for k in 0..<4 { v |= Int(buffer[offset + at + k]) << (8 * k) }
                return v
            }
            let day = Int(int64(0)), start = int64(8), endUTC = int64(16)
            let allDay = buffer[offset + 24] == 1
            let titleLength = int32(25), uidLength = int32(29), textLength = int32(33)
            try need(DayEntrySpool.headerSize + titleLength + uidLength + textLength)
            var at = offset + DayEntrySpool.headerSize
            let title = String(decoding: buffer[at..<(at + titleLength)], as: UTF8.self)
            at += titleLength
            let uid = String(decoding: buffer[at..<(at + uidLength)], as: UTF8.self)
            at += uidLength
            let text = String(decoding: buffer[at..<(at + textLength)], as: UTF8.self)
            offset = at + textLength
            return Entry(key: Key(day: day, allDay: allDay, startUTC: start, endUTC: endUTC, title: title, uid: uid), text: text)
        }
    }
}
