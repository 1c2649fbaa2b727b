import Foundation

/// Why a run failed after it started.
public enum RunFailure: Error, CustomStringConvertible {
    /// `--strict` and records were rejected: nothing was written.
    case rejectedUnderStrict(Int)
    /// A source, stage or sink failed; nothing half-written was left behind.
    case failed(String)
    /// A signal stopped the run; every sink rolled back.
    case interrupted(String)

    public var description: String {
        switch self {
        case .rejectedUnderStrict(let n): return "\(n) record\(n == 1 ? " was" : "s were") rejected and --strict is set: nothing was written"
        case .failed(let message): return message
        case .interrupted(let reason): return "interrupted by \(reason): nothing was written"
        }
    }
}

/// Runs a pipeline: every source's batches flow through the stages, in order, to every sink.
public struct Runner {
    public var dryRun: Bool
    /// Called after each source batch, for progress display.
    public var progress: ((RunReport) -> Void)?
    /// Sinks write on a thread of their own (`SinkPump`) while sources and stages go on; false writes them
    /// on the calling thread. The output is the same either way.
    public var concurrentSinks: Bool
    /// Skip unchanged sources and events where the sinks allow it (docs/incremental.md); false reads and
    /// writes everything (`calpipe run --full`).
    public var incremental: Bool

    public init(dryRun: Bool = false, concurrentSinks: Bool = true, incremental: Bool = true, progress: ((RunReport) -> Void)? = nil) {
        self.dryRun = dryRun
        self.concurrentSinks = concurrentSinks
        self.incremental = incremental
        self.progress = progress
    }

    public func run(_ pipeline: PipelineDefinition, context: RunContext) throws {
        let sinks = dryRun ? [] : pipeline.sinks
        var opened: [any Sink] = []
        var pump: SinkPump?
        context.sourceLabels = pipeline.sourceLabels
        let cores = ProcessInfo.processInfo.activeProcessorCount
        context.idleCores = sinks.isEmpty && cores > 1 ? min(cores, 4) : 0
        do {
            context.incremental = try IncrementalPlanner.fingerprints(pipeline, sinks: sinks, enabled: incremental, context: context)
            for sink in sinks {
                try sink.open(context: context)
                opened.append(sink)
            }
            if let run = context.incremental {
                try IncrementalPlanner.plan(run, pipeline, sinks: opened, context: context)
                // When every source is skipped or read event by event, the sinks write little: reading may use
                // the cores a dry run would use (the output is the same).
                if cores > 1 && run.writesLittle(pipeline.sourceLabels) { context.idleCores = min(cores, 4) }
            }
            if concurrentSinks && !opened.isEmpty {
                pump = SinkPump(sinks: opened, context: context)
                pump?.start()
            }
            let stages = pipeline.stages
            func push(_ batch: Batch, from index: Int) throws {
                try context.checkCancellation()
                var current = batch
                for stage in stages[index...] {
                    if current.isEmpty { return }
                    current = try stage.process(current, context: context)
                }
                if current.isEmpty { return }
                context.report.setOutputCounts(occurrences: current.expanded ? current.occurrences.count : 0, days: current.days.count)
                if let pump {
                    try pump.send(current)
                } else {
                    for sink in opened { try sink.write(current, context: context) }
                }
            }
            for (index, source) in pipeline.sources.enumerated() {
                let label = pipeline.sourceLabels[index]
                // One dictionary shared by every event that has no other metadata (copy on write).
                let labelOnly = ["source": label]
                if case .skipped = context.incremental?.plan(for: label) { continue }
                context.currentSourceLabel = label
                defer { context.currentSourceLabel = nil }
                let incremental = context.incremental
                /// Leaves out what an incremental run need not redo (on the stamped events: the source is part
                /// of their content hash), then sends the rest through the stages.
                func pushFiltered(_ batch: Batch) throws {
                    if let incremental { try push(incremental.filter(batch, source: label), from: 0) } else { try push(batch, from: 0) }
                }
                var sent = 0
                let rejectedBefore = context.report.rejections.count
                do {
                try source.read(context: context) { batch in
                    context.report.addEvents(batch.events.count)
                    sent += batch.events.count
                    // By index: iterating the events would copy each one (retaining all its fields).
                    var stampedBySource = true
                    for i in batch.events.indices where batch.events[i].metadata["source"] != label {
                        stampedBySource = false
                        break
                    }
                    if stampedBySource {
                        // Already stamped by the source: no copy of the batch.
                        try pushFiltered(batch)
                    } else {
                        var stamped = batch
                        for i in stamped.events.indices {
                            if stamped.events[i].metadata.isEmpty {
                                stamped.events[i].metadata = labelOnly
                            } else {
                                stamped.events[i].metadata["source"] = label
                            }
                        }
                        try pushFiltered(stamped)
                    }
                    progress?(context.report)
                }
                } catch let error where sent == 0 && incremental != nil && !(error is RunFailure) {
                    // Failed before sending anything: the sinks keep its rows, the others are written, exit 1.
                    incremental?.keep(label)
                    context.report.keepSource("\(error); the rows of \(label) are kept")
                    continue
                }
                if sent == 0 {
                    EmptySource.check(label: label, source: source, allowEmpty: pipeline.allowEmpty.indices.contains(index) && pipeline.allowEmpty[index],
                                      rejected: context.report.rejections.count - rejectedBefore, context: context)
                }
            }
            for (i, stage) in stages.enumerated() {
                try stage.finish(context: context) { tail in try push(tail, from: i + 1) }
            }
            try pump?.finish()
            pump = nil
            try context.checkCancellation()
            if context.strict, !context.report.rejections.isEmpty {
                throw RunFailure.rejectedUnderStrict(context.report.rejections.count)
            }
            for sink in opened {
                let rows = try sink.commit(context: context)
                context.report.wrote(rows, to: sink.label)
            }
        } catch {
            // The sinks are the pump's until its thread has ended.
            pump?.cancel()
            for sink in opened { sink.abort(context: context) }
            throw error
        }
    }
}
