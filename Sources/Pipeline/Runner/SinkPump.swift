import Foundation

extension HandoffThread where Element == Batch {
    /// The sinks' thread: writes batches to the sinks on a thread of its own, so reading, expanding and splitting
    /// (the producer, on the caller's thread) overlap with writing (SQLite inserts, JSON rendering) on the
    /// machine's other core.
    ///
    /// Ownership: between `start()` and `finish()`/`cancel()` the sinks are used by this thread only; the caller
    /// hands batches over through a bounded queue (`capacity` batches, so memory stays bounded when the sinks are
    /// slower than the producer) and must not touch the sinks until `finish()` or `cancel()` has returned (both
    /// wait for the thread to end). Batches reach the sinks in the order they were sent, so the output is the
    /// same as writing them on the caller's thread. A sink error stops the writing: later batches are dropped,
    /// and `send` rethrows the error on the producer's next call, so the run stops at the next batch; `finish()`
    /// rethrows it too.
    static func sinkPump(sinks: [any Sink], context: RunContext, capacity: Int = 4) -> HandoffThread<Batch> {
        HandoffThread(name: "calpipe-sinks", depth: capacity) { batch in
            // A batch of deletions alone goes to the sinks that apply them (`Sink.appliesDeletions`).
            let deletionsOnly = !batch.deletions.isEmpty && batch.events.isEmpty && batch.occurrences.isEmpty && batch.days.isEmpty && batch.agendaDays.isEmpty
            for sink in sinks where !deletionsOnly || sink.appliesDeletions {
                let t = DispatchTime.now().uptimeNanoseconds
                try sink.write(batch, context: context)
                context.report.addTime("sink " + sink.label, nanoseconds: DispatchTime.now().uptimeNanoseconds &- t)
            }
        }
    }
}
