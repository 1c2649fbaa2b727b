/// The series masters and RECURRENCE-ID overrides the expand stage holds until the end of the input, by
/// source and UID, with bounded memory: events stay in memory while their estimated size fits the budget,
/// later ones go to a `SpillFile` in the binary codec (Event+BinaryCodec.swift) with only their place on
/// file kept here. `drain` hands every series back in key order, with its overrides in arrival order,
/// exactly as they were held, then frees the file.
final class HeldSeries {
    struct Key: Hashable {
        /// Index of the source label in `sourceLabels`: a run has a few labels, held once.
        var source: Int32
        var uid: String
    }

    /// Where one held event is: `place >= 0` is its offset on the spill file (`length` bytes), a negative
    /// place is `-(index + 1)` in `inMemory`. Length 0 marks "none" (a series with no master yet).
    private struct Slot {
        var place: Int64
        var length: UInt32
        static let none = Slot(place: 0, length: 0)
        var isNone: Bool { length == 0 }
    }

    private struct Entry {
        var master = Slot.none
        var overrides: [Slot] = []
    }

    /// Bytes of estimated event size kept in memory before events go to the spill file.
    let budget: Int
    /// Where the spill file goes (the system's temporary directory when nil).
    let directory: String?

    private var entries: [Key: Entry] = [:]
    private var sourceLabels: [String] = []
    private var sourceIndex: [String: Int32] = [:]
    private var inMemory: [Event?] = []
    /// Estimated bytes of the events in `inMemory`.
    private(set) var memoryBytes = 0
    private var file: SpillFile?
    private let zones = ZoneTable()
    private var writer = ByteWriter(capacity: 4096)

    init(budget: Int, directory: String?) {
        self.budget = budget
        self.directory = directory
    }

    var isEmpty: Bool { entries.isEmpty }
    /// Events written to the spill file so far, and its size.
    private(set) var spilledEvents = 0
    var spilledBytes: Int64 { file?.size ?? 0 }

    func key(source: String, uid: String) -> Key {
        if let i = sourceIndex[source] { return Key(source: i, uid: uid) }
        let i = Int32(sourceLabels.count)
        sourceLabels.append(source)
        sourceIndex[source] = i
        return Key(source: i, uid: uid)
    }

    func hasMaster(_ key: Key) -> Bool {
        entries[key].map { !$0.master.isNone } ?? false
    }

    func addMaster(_ event: Event, key: Key) throws {
        let slot = try hold(event)
        entries[key, default: Entry()].master = slot
    }

    func addOverride(_ event: Event, key: Key) throws {
        let slot = try hold(event)
        entries[key, default: Entry()].overrides.append(slot)
    }

    private func hold(_ event: Event) throws -> Slot {
        let size = Self.estimatedSize(of: event)
        if memoryBytes + size <= budget {
            memoryBytes += size
            inMemory.append(event)
            return Slot(place: -Int64(inMemory.count), length: 1)
        }
        if file == nil { file = try SpillFile(directory: directory) }
        writer.removeAll()
        event.encode(to: &writer, zones: zones)
        guard writer.count < Int(UInt32.max) else { throw RunFailure.failed("event \"\(event.uid)\" is too large to hold (\(writer.count) bytes)") }
        let offset = try file!.append(writer.bytes)
        spilledEvents += 1
        return Slot(place: offset, length: UInt32(writer.count))
    }

    /// A cheap guess of the memory an event takes: its text (the original component text counts most), the
    /// cost of each heap allocation (a string longer than 15 bytes, an array, a parameter), and the struct.
    /// Calibrated on the benchmark feed, where it is within a few percent of the resident memory it saves.
    static func estimatedSize(of e: Event) -> Int {
        func text(_ s: String?) -> Int {
            guard let s else { return 0 }
            let n = s.utf8.count
            return n <= 15 ? 0 : n + 48
        }
        var size = 640 + text(e.uid) + text(e.title) + text(e.description) + text(e.location) + text(e.sourceText)
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
        defer { removeAll() }
        let keys = entries.keys.sorted { a, b in
            if a.source != b.source { return sourceLabels[Int(a.source)] < sourceLabels[Int(b.source)] }
            return a.uid < b.uid
        }
        var buffer: [UInt8] = []
        for key in keys {
            guard let entry = entries.removeValue(forKey: key) else { continue }
            let master = entry.master.isNone ? nil : try take(entry.master, buffer: &buffer)
            var overrides: [Event] = []
            overrides.reserveCapacity(entry.overrides.count)
            for slot in entry.overrides { overrides.append(try take(slot, buffer: &buffer)) }
            try body(master, overrides)
        }
    }

    private func take(_ slot: Slot, buffer: inout [UInt8]) throws -> Event {
        if slot.place < 0 {
            let i = Int(-slot.place - 1)
            guard let event = inMemory[i] else { throw RunFailure.failed("internal error: a held event was taken twice") }
            inMemory[i] = nil
            return event
        }
        guard let file else { throw RunFailure.failed("internal error: a held event is on a spill file that is gone") }
        try file.read(at: slot.place, count: Int(slot.length), into: &buffer)
        return try buffer.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            do {
                let event = try Event(decoding: &reader, zones: zones)
                guard reader.isAtEnd else { throw ByteReader.Malformed("\(bytes.count - reader.position) bytes left over") }
                return event
            } catch let error as ByteReader.Malformed {
                throw RunFailure.failed("a temporary file of the expand stage is damaged (\(error.message))")
            }
        }
    }

    /// Forgets everything held and frees the spill file.
    func removeAll() {
        entries = [:]
        inMemory = []
        memoryBytes = 0
        file?.close()
        file = nil
        spilledEvents = 0
    }
}
