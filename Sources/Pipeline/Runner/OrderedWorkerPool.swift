import Foundation

/// The one worker pool of calpipe: jobs are submitted in order, made by `workers` threads, and their results
/// taken in the order the jobs were submitted, whichever worker finished first. At most `bound` jobs are in
/// flight (submitted and not yet taken), so memory holds a few jobs, never one per input. Used by the ICS
/// reader (events made from their parsed lines) and the expand stage (held series read back and expanded).
///
/// - Each worker runs the function `makeWorker(index)` returns, called on the worker's own thread when it
///   starts: state a worker keeps between jobs (a builder and its caches, a read buffer) lives there, and is
///   used by that thread only. A job is the worker's while it runs; its result is the taker's once taken.
/// - An error thrown by a job is its result: `take()` rethrows it at that job's place in the order.
/// - `stop()` drops the jobs not yet started, waits for the running ones and for the threads to end, and may be
///   called at any time (more than once). After it, `submit` drops its job and `take` returns nil. The threads
///   start with the first job, so a pool that is given none starts none; the owner must `stop()` a pool it
///   started (the threads keep it alive until then).
/// - `post(toWorker:)` runs a small task on one worker before its next job.
/// - Wake-ups are batched: a worker that ran out of jobs is woken when `wakeBatch` jobs wait (or the taker
///   waits), and a taker that has to wait sleeps until `wakeBatch` results are ready, so two threads do not
///   hand the lock over for every small job.
///
/// When the same thread submits and takes (both users do), it must not submit more than `bound` jobs ahead of
/// the ones it took: `submit` would wait for a `take` that never comes.
package final class OrderedWorkerPool<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    // @unchecked: every mutable field below is guarded by `condition`; a job is moved out of its slot before a
    // worker runs it, and its result moved out before the taker returns it.
    package let workers: Int
    package let bound: Int
    private let wakeBatch: Int
    private let name: String
    private let makeWorker: @Sendable (_ index: Int) -> (inout Job) throws -> Output
    private let condition = NSCondition()
    /// Rings of `bound` slots: job n waits in `jobs[n % bound]` until a worker starts it, its result in
    /// `results[n % bound]` until it is taken. Both are moved out (`take()`), never copied: a job's arrays stay
    /// uniquely referenced, so the worker can take them apart in place.
    private var jobs: [Job?]
    private var results: [Result<Output, any Error>?]
    /// How many jobs were submitted, started by a worker, and taken (jobs are numbered from 0 in submission order).
    private var submitted = 0
    private var started = 0
    private var taken = 0
    /// Per worker: tasks to run before its next job (`post`).
    private var inboxes: [[@Sendable () -> Void]]
    private var threadsStarted = false
    private var running = 0
    private var stopping = false
    /// Who sleeps on `condition`: each side wakes the other only when it needs to.
    private var idleWorkers = 0
    private var submitterWaiting = false
    /// While the taker waits: the result it takes, and the last one it waits for with it.
    private var takerWaiting = false
    private var takerIndex = 0
    private var takerTarget = 0

    /// - Parameters:
    ///   - workers: threads (at least 1).
    ///   - bound: most jobs in flight (at least 1).
    ///   - wakeBatch: jobs or results that wait before a sleeping worker or taker is woken (1 to `bound`).
    package init(name: String, workers: Int, bound: Int, wakeBatch: Int = 1,
                 makeWorker: @escaping @Sendable (_ index: Int) -> (inout Job) throws -> Output) {
        self.name = name
        self.workers = max(1, workers)
        self.bound = max(1, bound)
        self.wakeBatch = min(max(1, wakeBatch), self.bound)
        self.makeWorker = makeWorker
        jobs = Array(repeating: nil, count: self.bound)
        results = Array(repeating: nil, count: self.bound)
        inboxes = Array(repeating: [], count: self.workers)
    }

    /// Jobs submitted and not yet taken.
    package var inFlight: Int {
        condition.lock()
        defer { condition.unlock() }
        return submitted - taken
    }

    /// True from `stop()` on: a long job can check it and end early (its result is dropped anyway).
    package var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Queues a job after the ones submitted before; waits while `bound` jobs are in flight.
    package func submit(_ job: consuming Job) {
        condition.lock()
        defer { condition.unlock() }
        if !threadsStarted && !stopping { startThreads() }
        while !stopping && submitted - taken >= bound {
            submitterWaiting = true
            condition.wait()
            submitterWaiting = false
        }
        guard !stopping else { return }
        jobs[submitted % bound] = consume job
        submitted += 1
        if idleWorkers > 0 && (submitted - started >= wakeBatch || takerWaiting) { condition.broadcast() }
    }

    /// The result of the oldest job not taken yet, waiting for it; rethrows the error the job threw. Nil when
    /// every submitted job was taken, or after `stop()`.
    package func take() throws -> Output? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, taken < submitted else { return nil }
        let k = taken
        if !isDone(k) {
            if idleWorkers > 0 && started < submitted { condition.broadcast() }
            takerWaiting = true
            takerIndex = k
            takerTarget = min(k + wakeBatch, submitted) - 1
            while !stopping && !(isDone(k) && isDone(takerTarget)) { condition.wait() }
            takerWaiting = false
            if stopping { return nil }
        }
        guard let result = results[k % bound].take() else { preconditionFailure("OrderedWorkerPool: a result taken twice") }
        taken += 1
        if submitterWaiting && submitted - taken <= bound - wakeBatch { condition.broadcast() }
        return try result.get()
    }

    /// Runs `task` on worker `index` before the next job it starts (dropped after `stop()`, or when no worker
    /// has that index).
    package func post(toWorker index: Int, _ task: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        guard threadsStarted, !stopping, inboxes.indices.contains(index) else { return }
        inboxes[index].append(task)
        if idleWorkers > 0 { condition.broadcast() }
    }

    /// Drops the jobs not started yet, waits for the running ones to end and for every thread to end. Results
    /// not taken are dropped.
    package func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        var dropped = (Array(repeating: Job?.none, count: bound), Array(repeating: Result<Output, any Error>?.none, count: bound))
        swap(&dropped.0, &jobs)
        swap(&dropped.1, &results)
        inboxes = Array(repeating: [], count: workers)
        condition.unlock()
        _ = dropped  // released outside the lock
    }

    /// Called with the lock held.
    private func isDone(_ n: Int) -> Bool {
        results[n % bound] != nil
    }

    /// Called with the lock held.
    private func startThreads() {
        threadsStarted = true
        for index in 0..<workers {
            running += 1
            let thread = Thread { [self] in work(index: index) }
            thread.name = workers == 1 ? name : "\(name) \(index + 1)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work(index: Int) {
        do {
            // The worker's state is made and released on this thread, before `stop()` can return.
            let run = makeWorker(index)
            loop(index: index, run: run)
        }
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func loop(index: Int, run: (inout Job) throws -> Output) {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            if !inboxes[index].isEmpty {
                var tasks: [@Sendable () -> Void] = []
                swap(&tasks, &inboxes[index])
                condition.unlock()
                for task in tasks { task() }
                tasks = []  // released on this thread, outside the lock
                condition.lock()
                continue
            }
            guard started < submitted else {
                idleWorkers += 1
                condition.wait()
                idleWorkers -= 1
                continue
            }
            let n = started
            started += 1
            guard let job = jobs[n % bound].take() else { preconditionFailure("OrderedWorkerPool: a job started twice") }
            condition.unlock()
            let result = Self.run(run, on: consume job)
            condition.lock()
            results[n % bound] = result
            if takerWaiting && isDone(takerIndex) && isDone(takerTarget) { condition.broadcast() }
        }
    }

    /// Runs one job; the job is released here, on the worker's thread.
    private static func run(_ run: (inout Job) throws -> Output, on job: consuming Job) -> Result<Output, any Error> {
        var job = consume job
        return Result { try run(&job) }
    }
}
