import Foundation

/// Writes batches to the sinks on a thread of its own, so reading, expanding and splitting (the producer,
/// on the caller's thread) overlap with writing (SQLite inserts, JSON rendering) on the machine's other core.
///
/// Ownership: between `start()` and `finish()`/`cancel()` the sinks are used by the pump's thread only; the
/// caller hands batches over through a bounded queue (`capacity` batches, so memory stays bounded when the
/// sinks are slower than the producer) and must not touch the sinks until `finish()` or `cancel()` has
/// returned (both wait for the thread to end). Batches reach the sinks in the order they were sent, so the
/// output is the same as writing them on the caller's thread.
///
/// A sink error stops the writing: the pump drops later batches and `send` rethrows the error on the
/// producer's next call, so the run stops at the next batch; `finish()` rethrows it too.
final class SinkPump: @unchecked Sendable {
    // @unchecked: the sinks and the context are not Sendable. They are used by one thread at a time: the
    // pump's thread from start() to the end of its loop, the caller's thread after finish()/cancel() joined
    // it. Every shared field below is guarded by `condition`.
    private let sinks: [any Sink]
    private let context: RunContext
    private let capacity: Int
    private let condition = NSCondition()
    /// At most `capacity` batches; taken from the front (removeFirst on so few is cheap), so a written batch
    /// is released at once.
    private var queue: [Batch] = []
    private var closed = false
    private var running = false
    private var failure: (any Error)?

    init(sinks: [any Sink], context: RunContext, capacity: Int = 4) {
        self.sinks = sinks
        self.context = context
        self.capacity = max(1, capacity)
    }

    func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "calpipe-sinks"
        // The SQLite and JSON writers recurse little; 8 MiB matches the main thread's default.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Queues a batch for the sinks; waits while the queue is full. Throws the first sink error.
    func send(_ batch: Batch) throws {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && queue.count >= capacity { condition.wait() }
        if let failure { throw failure }
        queue.append(batch)
        condition.broadcast()
    }

    /// No more batches: waits until the sinks wrote everything, then rethrows a sink error, if any.
    func finish() throws {
        close()
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
    }

    /// Stops after the batch being written (the rest is dropped) and waits for the thread to end.
    func cancel() {
        condition.lock()
        queue.removeAll()
        condition.unlock()
        close()
    }

    private func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func next() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !closed { condition.wait() }
        guard !queue.isEmpty else { return nil }
        let batch = queue.removeFirst()
        condition.broadcast()
        return batch
    }

    private func loop() {
        while let batch = next() {
            do {
                for sink in sinks { try sink.write(batch, context: context) }
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                condition.broadcast()
                condition.unlock()
                break
            }
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
