import Foundation
import Pipeline

/// Threads that make the events of `ICSJob`s (`ICSParallelBuilder`). Jobs are taken in the order they were
/// submitted, by whichever worker is free; each worker keeps its own `ICSEventMaker` (its builder's caches).
/// The threads start with the first job and end at `stop()`, which waits for them. Workers also free the
/// events the reading thread is done with (`dispose`), so that thread spends its time reading.
final class ICSWorkerPool: @unchecked Sendable {
    // @unchecked: every field below is guarded by `condition`; a job's frames and outcomes are handed over
    // under it (see `ICSParallelBuilder`).
    private let condition = NSCondition()
    private let workers: Int
    private let makeMaker: () -> ICSEventMaker
    private var queue = ICSJobQueue()
    /// Per worker: batches of events it made that the reading thread is done with.
    private var disposals: [[[Event]]]
    private var started = false
    private var stopping = false
    private var running = 0

    init(workers: Int, makeMaker: @escaping () -> ICSEventMaker) {
        self.workers = max(1, workers)
        self.makeMaker = makeMaker
        disposals = Array(repeating: [], count: self.workers)
    }

    func submit(_ job: ICSJob) {
        condition.lock()
        if !started { start() }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Has the worker that made the events free them (`ICSJob.worker`): their memory and reference counts are
    /// still in that core's cache, and go back to its allocator arena, where the next events come from.
    func dispose(_ events: consuming [Event], worker: Int) {
        condition.lock()
        guard started, !stopping, disposals.indices.contains(worker) else {
            condition.unlock()
            return
        }
        disposals[worker].append(events)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a worker has made the job's events.
    func wait(for job: ICSJob) {
        condition.lock()
        while !job.done { condition.wait() }
        condition.unlock()
    }

    /// Ends the workers (after the job each one is making) and waits for them. Jobs not yet taken are dropped.
    func stop() {
        condition.lock()
        stopping = true
        queue.removeAll()
        condition.broadcast()
        while running > 0 { condition.wait() }
        disposals = Array(repeating: [], count: workers)
        condition.unlock()
    }

    /// Called with the lock held.
    private func start() {
        started = true
        for n in 0..<workers {
            let maker = makeMaker()
            running += 1
            let thread = Thread { [self] in work(maker, index: n) }
            thread.name = "calpipe ics worker \(n + 1)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work(_ maker: ICSEventMaker, index: Int) {
        condition.lock()
        while true {
            while queue.isEmpty && disposals[index].isEmpty && !stopping { condition.wait() }
            if stopping { break }
            if !disposals[index].isEmpty {
                var spent: [[Event]] = []
                swap(&spent, &disposals[index])
                condition.unlock()
                spent = []
                _ = spent
                condition.lock()
                continue
            }
            guard let job = queue.popFirst() else { continue }
            job.worker = index
            condition.unlock()
            maker.make(job)
            condition.lock()
            job.done = true
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
