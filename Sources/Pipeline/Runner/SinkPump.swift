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
        // Waits for the next batch before it writes one: the source has then dropped its references to it, and the
        // last sink gets the only one (`Sink.write(owned:)`). Before, the sinks' thread, waiting, took each batch while
        // the source still held it, and the json sink copied every event.
        HandoffThread(name: "calpipe-sinks", depth: capacity, waitsForNext: true) { batch in
            // The batch is this thread's now: taken out of the queue's slot, so the last sink can keep it.
            var owned = Batch()
            swap(&owned, &batch)
            try write(consume owned, to: sinks, context: context)
        }
    }

    /// Writes a batch to the sinks, in order (on the sinks' thread, or the caller's without one). A batch of
    /// deletions alone goes to the sinks that apply them (`Sink.appliesDeletions`); an incremental sink gets what
    /// `IncrementalRun.forIncrementalSinks` leaves of it (not the events of sources read only for the others).
    /// The last sink that gets the batch is handed it to keep (`Sink.write(owned:)`).
    static func write(_ batch: consuming Batch, to sinks: [any Sink], context: RunContext) throws {
        let deletionsOnly = !batch.deletions.isEmpty && batch.events.isEmpty && batch.occurrences.isEmpty && batch.days.isEmpty && batch.agendaDays.isEmpty
        let incremental = context.runState.incremental
        var forIncremental: Batch?
        let receivers = sinks.filter { !deletionsOnly || $0.appliesDeletions }
        for (n, sink) in receivers.enumerated() {
            let t = DispatchTime.now().uptimeNanoseconds
            if let incremental, incremental.readsForOtherSinks, sink is any IncrementalSink {
                if forIncremental == nil { forIncremental = incremental.forIncrementalSinks(batch) }
                guard let kept = forIncremental, !kept.isEmpty else { continue }
                try sink.write(kept, context: context)
            } else if n == receivers.count - 1 {
                var owned = Batch()
                swap(&owned, &batch)
                try sink.write(owned: consume owned, context: context)
            } else {
                try sink.write(batch, context: context)
            }
            context.report.addTime("sink " + sink.label, nanoseconds: DispatchTime.now().uptimeNanoseconds &- t)
        }
    }
}
