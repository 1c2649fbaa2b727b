import Foundation
import XCTest
@testable import Pipeline

/// The one worker pool (`OrderedWorkerPool`): results in submission order whatever the workers' speed, never
/// more than `bound` jobs in flight, errors at their job's place, a stop that drops what waits and joins the
/// threads. The ICS reader's and the expand stage's own tests (ICSParallelReaderTests, ExpandFastPathTests)
/// run it on real files.
final class OrderedWorkerPoolTests: XCTestCase {
    struct Failure: Error, Equatable {
        let job: Int
    }

    /// Counts the workers' states released (each worker keeps one from its first job to its end).
    final class Released: @unchecked Sendable {
        let count: Locked<Int>
        init(_ count: Locked<Int>) { self.count = count }
        deinit { count.withLock { $0 += 1 } }
    }

    /// The pool a job checks for `isStopping` (a job cannot capture the pool it is given to).
    final class PoolRef: @unchecked Sendable {
        weak var pool: OrderedWorkerPool<Int, Int>?
        var isStopping: Bool { pool?.isStopping ?? true }
    }

    /// Job durations from a fixed seed (SplitMix64), in microseconds below `limit`.
    static func durations(_ count: Int, limit: UInt64, seed: UInt64) -> [UInt32] {
        var state = seed
        return (0..<count).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt32((z ^ (z >> 31)) % limit)
        }
    }

    /// Submits and takes on the same thread, never more than `bound` ahead, as the ICS reader and the expand
    /// stage do; returns the results in the order taken.
    func runInOrder<Output>(_ pool: OrderedWorkerPool<Int, Output>, jobs: Int) throws -> [Output] {
        var results: [Output] = []
        var next = 0
        for k in 0..<jobs {
            while next < jobs && next - k < pool.bound {
                pool.submit(next)
                next += 1
            }
            results.append(try XCTUnwrap(try pool.take()))
        }
        XCTAssertNil(try pool.take())
        return results
    }

    func testResultsComeInSubmissionOrderWhateverTheJobsTake() throws {
        let durations = Self.durations(600, limit: 400, seed: 14)
        for (workers, bound, wakeBatch) in [(4, 7, 1), (3, 16, 4), (2, 5, 5)] {
            let pool = OrderedWorkerPool<Int, String>(name: "test-pool", workers: workers, bound: bound, wakeBatch: wakeBatch) { index in
                { job in
                    usleep(durations[job])
                    return "\(job) by \(index)"
                }
            }
            defer { pool.stop() }
            let results = try runInOrder(pool, jobs: durations.count)
            XCTAssertEqual(results.map { Int($0.split(separator: " ")[0])! }, Array(0..<durations.count))
            // Workers other than the first took part (the first sleeps up to 0.4 ms a job).
            XCTAssertGreaterThan(Set(results.map { $0.split(separator: " ")[2] }).count, 1, "\(workers) workers")
        }
    }

    func testSubmitterOnAnotherThreadWaitsWhileBoundJobsAreInFlight() throws {
        let bound = 4
        let started = Locked(0)
        let submittedCount = Locked(0)
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 2, bound: bound) { _ in
            { job in
                started.withLock { $0 += 1 }
                return job * 3
            }
        }
        defer { pool.stop() }
        let jobs = 200
        let submitter = Thread {
            for n in 0..<jobs {
                pool.submit(n)
                submittedCount.withLock { $0 += 1 }
            }
        }
        submitter.start()
        // Nothing is taken yet: the submitter stops at `bound` jobs.
        let deadline = Date().addingTimeInterval(10)
        while submittedCount.withLock({ $0 }) < bound && Date() < deadline { usleep(1000) }
        usleep(50_000)
        XCTAssertEqual(submittedCount.withLock { $0 }, bound)
        XCTAssertEqual(pool.inFlight, bound)
        var taken: [Int] = []
        while taken.count < jobs {
            // The results wait in the pool's slots: jobs started past the ones taken stay within the bound.
            XCTAssertLessThanOrEqual(started.withLock { $0 } - taken.count, bound)
            // The submitter may not have submitted the next job yet.
            guard let result = try pool.take() else {
                usleep(100)
                continue
            }
            taken.append(result)
        }
        XCTAssertEqual(taken, (0..<jobs).map { $0 * 3 })
    }

    func testAnErrorIsRethrownAtItsJobsPlaceAndTheOthersGoOn() throws {
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 2, bound: 3) { _ in
            { job in
                if job == 5 || job == 9 { throw Failure(job: job) }
                return job
            }
        }
        defer { pool.stop() }
        var outcomes: [String] = []
        var next = 0
        for k in 0..<12 {
            while next < 12 && next - k < pool.bound {
                pool.submit(next)
                next += 1
            }
            do {
                let result = try pool.take()
                outcomes.append(result.map { "\($0)" } ?? "nil")
            } catch let failure as Failure {
                outcomes.append("failed \(failure.job)")
            }
        }
        XCTAssertEqual(outcomes, ["0", "1", "2", "3", "4", "failed 5", "6", "7", "8", "failed 9", "10", "11"])
    }

    func testStopDropsWaitingJobsWaitsForTheRunningOneAndJoinsTheThreads() throws {
        let ran = Locked<[Int]>([])
        let released = Locked(0)
        let firstStarted = DispatchSemaphore(value: 0)
        let ref = PoolRef()
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 1, bound: 8) { _ in
            let state = Released(released)
            return { job in
                withExtendedLifetime(state) {}
                ran.withLock { $0.append(job) }
                if job == 0 {
                    firstStarted.signal()
                    // A long job that ends early on cancellation.
                    let deadline = Date().addingTimeInterval(10)
                    while !ref.isStopping && Date() < deadline { usleep(1000) }
                }
                return job
            }
        }
        ref.pool = pool
        for n in 0..<8 { pool.submit(n) }
        firstStarted.wait()
        XCTAssertFalse(pool.isStopping)
        pool.stop()
        // Job 0 was running: it ended (on `isStopping`), the seven waiting were dropped, the thread ended.
        XCTAssertEqual(ran.withLock { $0 }, [0])
        XCTAssertEqual(released.withLock { $0 }, 1)
        XCTAssertTrue(pool.isStopping)
        XCTAssertNil(try pool.take())
        pool.submit(8)
        XCTAssertNil(try pool.take())
        pool.stop()
        XCTAssertEqual(ran.withLock { $0 }, [0])
    }

    func testStopWhileTheTakerWaitsEndsTheTake() throws {
        let ref = PoolRef()
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 1, bound: 2) { _ in
            { job in
                let deadline = Date().addingTimeInterval(10)
                while !ref.isStopping && Date() < deadline { usleep(1000) }
                return job
            }
        }
        ref.pool = pool
        pool.submit(1)
        let stopper = Thread {
            usleep(20_000)
            pool.stop()
        }
        stopper.start()
        XCTAssertNil(try pool.take())
        pool.stop()
    }

    func testZeroJobsStartNoThread() throws {
        let made = Locked(0)
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 3, bound: 4) { _ in
            made.withLock { $0 += 1 }
            return { $0 }
        }
        XCTAssertNil(try pool.take())
        XCTAssertEqual(pool.inFlight, 0)
        pool.stop()
        XCTAssertEqual(made.withLock { $0 }, 0)
    }

    func testOneWorkerMakesEveryJobOnOneThreadWithItsOwnState() throws {
        let made = Locked(0)
        let released = Locked(0)
        let pool = OrderedWorkerPool<Int, String>(name: "test-pool-one", workers: 0, bound: 5, wakeBatch: 3) { index in
            made.withLock { $0 += 1 }
            let state = Released(released)
            var count = 0
            return { job in
                withExtendedLifetime(state) {}
                count += 1
                return "\(job) \(index) \(count) \(OrderedWorkerPoolTests.threadID())"
            }
        }
        XCTAssertEqual(pool.workers, 1)
        let results = try runInOrder(pool, jobs: 300)
        pool.stop()
        let thread = try XCTUnwrap(results.first?.split(separator: " ").last)
        XCTAssertNotEqual(String(thread), OrderedWorkerPoolTests.threadID())
        XCTAssertEqual(results, (0..<300).map { "\($0) 0 \($0 + 1) \(thread)" })
        XCTAssertEqual(made.withLock { $0 }, 1)
        XCTAssertEqual(released.withLock { $0 }, 1)
    }

    func testPostedTasksRunOnTheirWorkersThread() throws {
        let threads = Locked<[Int: String]>([:])
        let pool = OrderedWorkerPool<Int, Int>(name: "test-pool", workers: 2, bound: 4) { index in
            threads.withLock { $0[index] = OrderedWorkerPoolTests.threadID() }
            return { $0 }
        }
        defer { pool.stop() }
        _ = try runInOrder(pool, jobs: 20)
        // Both workers have started (the threads start with the first job).
        let deadline = Date().addingTimeInterval(10)
        while threads.withLock({ $0.count }) < 2 && Date() < deadline { usleep(1000) }
        let workerThreads = threads.withLock { $0 }
        XCTAssertEqual(workerThreads.count, 2)
        XCTAssertNotEqual(workerThreads[0], workerThreads[1])
        let ranOn = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        for worker in [1, 0, 1] {
            pool.post(toWorker: worker) {
                ranOn.withLock { $0.append("\(worker) on \(workerThreads.first { $0.value == OrderedWorkerPoolTests.threadID() }?.key ?? -1)") }
                done.signal()
            }
        }
        for _ in 0..<3 { done.wait() }
        XCTAssertEqual(ranOn.withLock { $0 }.sorted(), ["0 on 0", "1 on 1", "1 on 1"])
        // A worker that does not exist gets nothing.
        pool.post(toWorker: 7) { XCTFail("ran a task for a worker that does not exist") }
    }

    /// The calling thread, as text.
    static func threadID() -> String {
        String(describing: pthread_self())
    }
}
