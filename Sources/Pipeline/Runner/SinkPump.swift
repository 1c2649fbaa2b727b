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
    // it (`HandoffThread`).
    private let thread: HandoffThread<Batch>

    init(sinks: [any Sink], context: RunContext, capacity: Int = 4) {
        thread = HandoffThread(name: "calpipe-sinks", depth: capacity) { batch in
            for sink in sinks {
                let t = DispatchTime.now().uptimeNanoseconds
                try sink.write(batch, context: context)
                context.report.addTime("sink " + sink.label, nanoseconds: DispatchTime.now().uptimeNanoseconds &- t)
            }
        }
    }

    func start() {
        thread.start()
    }

    /// Queues a batch for the sinks; waits while the queue is full. Throws the first sink error.
    func send(_ batch: Batch) throws {
        try thread.send(batch)
    }

    /// No more batches: waits until the sinks wrote everything, then rethrows a sink error, if any.
    func finish() throws {
        try thread.finish()
    }

    /// Stops after the batch being written (the rest is dropped) and waits for the thread to end.
    func cancel() {
        thread.cancel()
    }
}
