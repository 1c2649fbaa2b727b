import Foundation

/// Works through the expand stage's held series on a thread of its own, a few series ahead of
/// `HeldSeries.drain`: it reads the series' events back from the spill file when they wait there (decoding
/// is most of what a spilled event costs) and runs `prepare` on them (the stage expands the series there),
/// while the caller's thread takes the results in drain order. The results are the same as running
/// `prepare` on the caller's thread, series by series; only the work moves to the machine's other core.
///
/// Ownership: between `start()` and `stop()` the file and the zone table are read by this thread only
/// (`HeldSeries` appends nothing while it drains; the file's write buffer is flushed before `start()`), the
/// jobs' events belong to this thread, and `stop()` waits for the thread to end, so the file can be closed
/// after it. Every shared field below is guarded by `condition`.
final class SeriesWorker<Result: Sendable>: @unchecked Sendable {
    /// One held event: in memory, or where it is on the spill file.
    enum Item {
        case memory(Event)
        case file(offset: Int64, length: UInt32)
    }

    /// One series: its master first when it has one, then its overrides in arrival order.
    struct Job {
        var hasMaster = false
        var items: [Item] = []
    }

    // @unchecked: ScratchFile and ZoneTable are not Sendable; see the ownership note above.
    /// Series in drain order: `count` of them, supplied by the caller a few windows ahead (`supply`), so that
    /// memory holds a few windows of jobs and results, not one per held series (the 1 GB feed holds 290,000).
    private let count: Int
    /// Ring of `capacity` slots: the job of series k waits in `jobs[k % capacity]` from `supply` until the
    /// worker takes it, its result in `ready[k % capacity]` until the caller takes it.
    private var jobs: [Job?]
    private let capacity: Int
    /// Series supplied so far.
    private var supplied = 0
    private let file: ScratchFile?
    private let zones: ZoneTable
    private let prepare: @Sendable (_ master: Event?, _ overrides: [Event]) -> Result
    /// How many series may be prepared ahead of the one the caller is taking.
    private let window: Int
    private let condition = NSCondition()
    /// `ready[k % capacity]`: the k-th series' result, from when it is prepared until it is taken.
    private var ready: [Swift.Result<Result, any Error>?]
    /// The caller's position: the series being taken, or the one after the last taken.
    private var taken = 0
    /// Series prepared so far (they are prepared in order).
    private var produced = 0
    /// Who sleeps on `condition`: each side wakes the other only when it does, and a side that has to wait
    /// waits for several series at once, so the two threads do not hand over the lock for every series.
    private var callerWaiting = false
    /// While the caller waits: how many series it waits to be prepared.
    private var callerNeeds = 0
    private var workerWaiting = false
    private var stopping = false
    private var running = false

    init(count: Int, file: ScratchFile?, zones: ZoneTable, window: Int = 32,
         prepare: @escaping @Sendable (_ master: Event?, _ overrides: [Event]) -> Result) {
        self.count = count
        self.window = max(1, window)
        capacity = 4 * self.window
        jobs = Array(repeating: nil, count: capacity)
        ready = Array(repeating: nil, count: capacity)
        self.file = file
        self.zones = zones
        self.prepare = prepare
    }

    /// How far ahead of the series it takes the caller supplies jobs.
    var supplyAhead: Int { 2 * window }

    /// Hands over the job of the next series (in drain order). The caller supplies at most `supplyAhead`
    /// past the series it takes, so a slot of the ring is free again by then.
    func supply(_ job: consuming Job) {
        condition.lock()
        precondition(supplied < taken + capacity - window, "SeriesWorker: supplied too far ahead")
        jobs[supplied % capacity] = job
        supplied += 1
        if workerWaiting { condition.broadcast() }
        condition.unlock()
    }

    func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "calpipe-series"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The result for the k-th series; waits for it. Rethrows a read or decoding error.
    func take(_ k: Int) throws -> Result {
        condition.lock()
        defer { condition.unlock() }
        taken = max(taken, k)
        guard k < count else { throw CalpipeError("internal error: a held series was not read back") }
        if ready[k % capacity] == nil && running {
            // Wait for a few series at once (or the end, or a failure, which stops the thread).
            let enough = min(k + max(1, window / 4), count, supplied)
            while produced < enough && running {
                if workerWaiting { condition.broadcast() }
                callerWaiting = true
                callerNeeds = enough
                condition.wait()
                callerWaiting = false
            }
        }
        let taking = ready[k % capacity]
        ready[k % capacity] = nil
        guard let result = taking else {
            throw CalpipeError("internal error: a held series was not read back")
        }
        taken = k + 1
        if workerWaiting && k + 1 + window / 2 >= produced { condition.broadcast() }
        return try result.get()
    }

    /// Stops working ahead and waits for the thread to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        ready = []
        jobs = []
        condition.unlock()
    }

    private func loop() {
        var buffer: [UInt8] = []
        var k = 0
        while true {
            condition.lock()
            if !stopping && k < count && k >= taken + window {
                // Far enough ahead: wait until the caller has taken half the window.
                while !stopping && k >= taken + window / 2 {
                    if callerWaiting { condition.broadcast() }
                    workerWaiting = true
                    condition.wait()
                    workerWaiting = false
                }
            }
            // The caller supplies jobs ahead of what it takes; wait for this one.
            while !stopping && k < count && k >= supplied {
                if callerWaiting { condition.broadcast() }
                workerWaiting = true
                condition.wait()
                workerWaiting = false
            }
            if stopping || k >= count {
                condition.unlock()
                break
            }
            // The job's events are this thread's from here on (and freed once prepared).
            var job = jobs[k % capacity] ?? Job()
            jobs[k % capacity] = nil
            condition.unlock()
            let result = Swift.Result<Result, any Error> {
                // Taken from the back, so each held event moves out of its item instead of being copied.
                var events: [Event] = []
                events.reserveCapacity(job.items.count)
                while let item = job.items.popLast() {
                    switch item {
                    case .memory(let held):
                        events.append(held)
                    case .file(let offset, let length):
                        guard let file else { throw CalpipeError("internal error: a held event is on a spill file that is gone") }
                        events.append(try HeldSeries.decode(file: file, zones: zones, at: offset, length: length, buffer: &buffer))
                    }
                }
                events.reverse()
                let master = job.hasMaster ? events.removeFirst() : nil
                return prepare(master, events)
            }
            condition.lock()
            ready[k % capacity] = result
            produced = k + 1
            if callerWaiting && (produced >= callerNeeds || result.isFailure) { condition.broadcast() }
            condition.unlock()
            if case .failure = result { break }
            k += 1
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}

private extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
