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
        HandoffThread(name: "calpipe-sinks", depth: capacity) { batch in try write(batch, to: sinks, context: context) }
    }

    /// Writes a batch to the sinks, in order (on the sinks' thread, or the caller's without one). A batch of
    /// deletions alone goes to the sinks that apply them (`Sink.appliesDeletions`); an incremental sink gets what
    /// `IncrementalRun.forIncrementalSinks` leaves of it (not the events of sources read only for the others).
    static func write(_ batch: Batch, to sinks: [any Sink], context: RunContext) throws {
        let deletionsOnly = !batch.deletions.isEmpty && batch.events.isEmpty && batch.occurrences.isEmpty && batch.days.isEmpty && batch.agendaDays.isEmpty
        let incremental = context.runState.incremental
        var forIncremental: Batch?
        for sink in sinks where !deletionsOnly || sink.appliesDeletions {
            var written = batch
            if let incremental, incremental.readsForOtherSinks, sink is any IncrementalSink {
                if forIncremental == nil { forIncremental = incremental.forIncrementalSinks(batch) }
                guard let kept = forIncremental, !kept.isEmpty else { continue }
                written = kept
            }
            let t = DispatchTime.now().uptimeNanoseconds
            try sink.write(written, context: context)
            context.report.addTime("sink " + sink.label, nanoseconds: DispatchTime.now().uptimeNanoseconds &- t)
        }
    }
}
