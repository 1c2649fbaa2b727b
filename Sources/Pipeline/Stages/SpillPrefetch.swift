import Foundation

/// Reads and decodes the held events that wait on the expand stage's spill file on a thread of its own, a
/// few series ahead of `HeldSeries.drain`, so decoding (most of what a spilled event costs) overlaps with
/// expanding on the machine's other core. The events come back exactly as `HeldSeries` would decode them
/// itself, series by series in drain order.
///
/// Ownership: between `start()` and `stop()` the file and the zone table are read by this thread only
/// (`HeldSeries` appends nothing while it drains; the file's write buffer is flushed before `start()`), and
/// `stop()` waits for the thread to end, so the file can be closed after it. Every shared field below is
/// guarded by `condition`.
final class SpillPrefetch: @unchecked Sendable {
    /// Where one spilled event is on the file.
    struct Place {
        var offset: Int64
        var length: UInt32
    }

    // @unchecked: ScratchFile and ZoneTable are not Sendable; see the ownership note above.
    private let jobs: [[Place]]
    private let file: ScratchFile
    private let zones: ZoneTable
    /// How many series (with spilled events) may be decoded ahead of the one being expanded.
    private let window: Int
    private let condition = NSCondition()
    private var ready: [Int: Result<[Event], any Error>] = [:]
    /// The drain position: the series being taken, or the one after the last taken.
    private var taken = 0
    private var stopping = false
    private var running = false

    /// `jobs[k]`: the spilled events of the k-th series in drain order (master first, then overrides in
    /// arrival order); empty when none of its events is on the file.
    init(jobs: [[Place]], file: ScratchFile, zones: ZoneTable, window: Int = 32) {
        self.jobs = jobs
        self.file = file
        self.zones = zones
        self.window = max(1, window)
    }

    func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "calpipe-spill"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The decoded events of the k-th series (which must have a non-empty job); waits for them. Rethrows a
    /// read or decoding error.
    func take(_ k: Int) throws -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        // The drain is at series k now (the series between had nothing on the file): read up to k + window.
        if taken < k {
            taken = k
            condition.broadcast()
        }
        while ready[k] == nil && running { condition.wait() }
        guard let result = ready.removeValue(forKey: k) else {
            throw RunFailure.failed("internal error: a spilled series was not read back")
        }
        taken = k + 1
        condition.broadcast()
        return try result.get()
    }

    /// Stops reading ahead and waits for the thread to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        ready.removeAll()
        condition.unlock()
    }

    private func loop() {
        var buffer: [UInt8] = []
        for k in jobs.indices where !jobs[k].isEmpty {
            condition.lock()
            while !stopping && k >= taken + window { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { break }
            let result = Result<[Event], any Error> {
                try jobs[k].map { try HeldSeries.decode(file: file, zones: zones, at: $0.offset, length: $0.length, buffer: &buffer) }
            }
            condition.lock()
            ready[k] = result
            condition.broadcast()
            condition.unlock()
            if case .failure = result { break }
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
