import Foundation

/// Runs a pipeline: every source's batches flow through the stages, in order, to every sink.
public struct Runner: Sendable {
    public var dryRun: Bool
    /// Called after each source batch, for progress display (on the thread that runs the pipeline).
    public var progress: (@Sendable (RunReport) -> Void)?
    /// Sinks write on a thread of their own (`HandoffThread.sinkPump`) while sources and stages go on; false writes them
    /// on the calling thread. The output is the same either way.
    public var concurrentSinks: Bool
    /// Skip unchanged sources and events where the sinks allow it (docs/incremental.md); false reads and
    /// writes everything (`calpipe run --full`).
    public var incremental: Bool
    /// Where the run's stamp is kept (`RunStamp.path(for:environment:)`); nil: a run never keeps its outputs whole
    /// (`convert`, tests). With it, a run whose inputs, pipeline and outputs did not change since the last run
    /// keeps every output and reads nothing, and a run that cannot be incremental says why in its summary.
    package var stampFile: String?
    /// Where the plugins' states are kept when no sink keeps them in its transaction (`PluginStateFile.path(for:environment:)`);
    /// nil: only such a sink keeps them, else plugins see no state and what they propose is not stored (`convert`).
    public var stateFile: String?

    public init(dryRun: Bool = false, concurrentSinks: Bool = true, incremental: Bool = true, progress: (@Sendable (RunReport) -> Void)? = nil) {
        self.dryRun = dryRun
        self.concurrentSinks = concurrentSinks
        self.incremental = incremental
        self.progress = progress
    }

    /// The worker threads a source may use to make events (`RunState.idleCores`, at most 4): in a dry run, and in a
    /// run whose sinks all write lightly (`Sink.writesLightly`: the json sink's events and occurrences), every core;
    /// the sinks' thread then shares the cores with the workers through the bounded queues. In a run with a heavy
    /// sink, every core but the two the reading thread and the sinks' thread keep busy (none on this project's
    /// 2-core machine, where a worker measured slower than none: it took the SQLite sink's core). Incremental runs
    /// that write little get one more (see `run`).
    static func idleCores(cores: Int, writes: Bool, lightly: Bool = false) -> Int {
        guard cores > 1 else { return 0 }
        return writes && !lightly ? min(cores - 2, 4) : min(cores, 4)
    }

    public func run(_ pipeline: PipelineDefinition, context: RunContext) throws {
        let sinks = dryRun ? [] : pipeline.sinks
        var opened: [any Sink] = []
        var pump: HandoffThread<Batch>?
        try pipeline.checkFeeds()
        context.runState.sourceLabels = pipeline.sourceLabels
        context.runState.deltaSources = Set(pipeline.sources.indices.filter { pipeline.sources[$0].feed == .delta }.map { pipeline.sourceLabels[$0] })
        var colors: [String: String] = [:]
        for (label, color) in zip(pipeline.sourceLabels, pipeline.sourceColors) { if let color { colors[label] = color } }
        context.runState.sourceColors = colors
        context.runState.namedSources = Set(zip(pipeline.sourceLabels, pipeline.sourceNamed).filter(\.1).map(\.0))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        context.runState.idleCores = Self.idleCores(cores: cores, writes: !sinks.isEmpty, lightly: sinks.allSatisfy(\.writesLightly))
        // Timings listed in pipeline order: sources, stages, sinks.
        for label in pipeline.sourceLabels { context.report.addTime("source " + label, nanoseconds: 0) }
        for label in pipeline.stageLabels { context.report.addTime("stage " + label, nanoseconds: 0) }
        for sink in sinks { context.report.addTime("sink " + sink.label, nanoseconds: 0) }
        context.report.expectSinks(sinks.map(\.label))
        var deadLetters: DeadLetterFile?
        defer { deadLetters?.close() }
        if let file = pipeline.rejectedFile {
            let letters = try DeadLetterFile(path: file.path, label: file.label, pipeline: context.environment.name, runTime: context.environment.now)
            // Rejections come from sources and stages, on the runner's thread: the source it is reading.
            context.report.sendRejections(to: letters, source: context.runState.currentSourceLabelReader)
            deadLetters = letters
        }
        let cancellation = context.cancellation
        cancellation.beginRun()
        let statePipeline = Self.statePipeline(context.environment)
        // Sinks whose output is visible and must not be aborted any more (see `commitAll`).
        var finished = Set<Int>()
        var stamp: RunStamp?
        // Only where a sink rewrites its file on every run: sinks that keep rows per source (the sqlite sink) already
        // leave out what did not change, source by source (IncrementalPlanner), and say so.
        if let stampFile, !sinks.isEmpty, !sinks.allSatisfy({ $0 is any IncrementalSink }) {
            switch RunStamp.make(pipeline, sinks: sinks, context: context) {
            case .success(let current):
                if let previous = RunStamp.load(stampFile) {
                    if let change = current.change(since: previous) {
                        context.report.note("read: \(change) since the last run")
                    } else if incremental {
                        let when = CivilDateTime(secondsSinceEpoch: previous.finishedAt)
                        var line = "kept: nothing changed since the last run (\(when.date.iso8601) \(when.shortTimeText) UTC): "
                            + "every output is as it left it (calpipe run --full writes them again)"
                        if previous.warnings > 0 { line += "; its \(previous.warnings) warning\(previous.warnings == 1 ? "" : "s") not repeated" }
                        context.report.note(line)
                        context.report.markOutputsKept()
                        return
                    }
                }
                stamp = current
            case .failure(let reason):
                context.report.note("read in full: \(reason.text), so every run reads every source and writes every output")
            }
        }
        do {
            context.runState.incremental = try IncrementalPlanner.fingerprints(pipeline, sinks: sinks, enabled: incremental, context: context)
            for sink in sinks {
                try sink.open(context: context)
                opened.append(sink)
            }
            // The state the last successful run committed, from the database when a sink keeps it (read inside its
            // transaction; in a dry run from its file), else from the state folder. `--full`: plugins see none.
            if incremental {
                if let keeper = pipeline.sinks.lazy.compactMap({ $0 as? any PluginStateSink }).first {
                    context.runState.pluginStates.prior = try keeper.committedPluginStates(pipeline: statePipeline)
                } else if let stateFile {
                    context.runState.pluginStates.prior = try PluginStateFile.load(stateFile)
                }
            }
            if let run = context.runState.incremental {
                try IncrementalPlanner.plan(run, pipeline, sinks: opened, context: context)
                // When every source is skipped or read event by event, the sinks write little: reading may use
                // the cores a dry run would use but one, which the sinks' thread and the expand stage's series
                // thread share (the output is the same). The window +1 day run of scripts/bench task h on 2 cores:
                // 0.93 s with one worker, 0.95 s with two, 1.04 s with none.
                if cores > 1 && run.writesLittle(pipeline.sourceLabels) { context.runState.idleCores = max(context.runState.idleCores, min(cores - 1, 4)) }
            }
            // A dry run has no sink but still gets the thread: the batches it is handed are freed there, not on the
            // reading thread (task a: 1.22 s with the reading thread freeing them, 0.98 s with this thread).
            if concurrentSinks && (!opened.isEmpty || dryRun) {
                pump = .sinkPump(sinks: opened, context: context)
                pump?.start()
            }
            let stages = pipeline.stages
            // Time spent in stages and sinks, per stage; what is left of a source's read is the source's own.
            var stageNanos = [UInt64](repeating: 0, count: stages.count)
            var pushNanos: UInt64 = 0
            // Batches are handed on, not copied (`consuming`): the sinks' thread then gets one no one else holds,
            // and the last sink may keep it (`Sink.write(owned:)`).
            func push(_ batch: consuming Batch, from index: Int) throws {
                let started = DispatchTime.now().uptimeNanoseconds
                defer { pushNanos &+= DispatchTime.now().uptimeNanoseconds &- started }
                try context.checkCancellation()
                var current = consume batch
                for i in index..<stages.count {
                    if current.isEmpty { return }
                    let t = DispatchTime.now().uptimeNanoseconds
                    current = try stages[i].process(current, context: context)
                    stageNanos[i] &+= DispatchTime.now().uptimeNanoseconds &- t
                }
                if current.isEmpty { return }
                try deliver(consume current)
            }
            /// Hands a batch to the sinks: every sink, or for deletions alone those that apply them.
            func deliver(_ current: consuming Batch) throws {
                let deletionsOnly = current.events.isEmpty && current.occurrences.isEmpty && current.days.isEmpty && current.agendaDays.isEmpty
                if deletionsOnly && !opened.contains(where: { $0.appliesDeletions }) { return }
                if !deletionsOnly {
                    context.report.setOutputCounts(occurrences: current.content.contains(.occurrences) ? current.occurrences.count : 0, days: current.days.count)
                }
                if let pump {
                    try pump.send(consume current)
                } else {
                    try HandoffThread.write(consume current, to: opened, context: context)
                }
            }
            for (index, source) in pipeline.sources.enumerated() {
                let label = pipeline.sourceLabels[index]
                var stamp = SourceStamp(label: label)
                if context.runState.incremental?.leavesUnread(label) == true { continue }
                context.runState.currentSourceLabel = label
                defer { context.runState.currentSourceLabel = nil }
                context.runState.sourceLedger.begin(name: label, type: index < pipeline.sourceTypes.count ? pipeline.sourceTypes[index] : "")
                let readStarted = DispatchTime.now().uptimeNanoseconds
                let pushedBefore = pushNanos
                defer {
                    let total = DispatchTime.now().uptimeNanoseconds &- readStarted
                    context.report.addTime("source " + label, nanoseconds: total &- min(total, pushNanos &- pushedBefore))
                }
                let incremental = context.runState.incremental
                /// Leaves out what an incremental run need not redo (on the stamped events: the source is part
                /// of their content hash), then sends the rest through the stages.
                func pushFiltered(_ batch: consuming Batch) throws {
                    if let incremental { try push(incremental.filter(batch, source: label), from: 0) } else { try push(consume batch, from: 0) }
                }
                var sent = 0
                let rejectedBefore = context.report.rejections.count
                do {
                try source.read(context: context) { batch in
                    context.report.addEvents(batch.events.count)
                    context.runState.sourceLedger.addEvents(batch.events.count)
                    sent += batch.events.count + batch.deletions.count
                    // Deletions go to the sinks before the batch's events (which may bring a UID back), past the stages.
                    var batch = batch
                    if !batch.deletions.isEmpty {
                        var deletions = Batch(content: [])
                        deletions.deletions = batch.deletions.map { var d = $0; d.source = label; return d }
                        batch.deletions = []
                        try context.checkCancellation()
                        try deliver(deletions)
                        if batch.isEmpty { progress?(context.report); return }
                    }
                    // Events the source stamped as it made them (`SourceStamp`) pass on without a copy of the batch.
                    // By index: iterating the events would copy each one (retaining all its fields).
                    if batch.events.indices.allSatisfy({ stamp.isStamped(batch.events[$0].metadata) }) {
                        var handed = Batch()
                        swap(&handed, &batch)
                        try pushFiltered(consume handed)
                    } else {
                        var stamped = batch
                        for i in stamped.events.indices { stamp.stamp(&stamped.events[i].metadata) }
                        try pushFiltered(stamped)
                    }
                    progress?(context.report)
                }
                } catch let error where sent == 0 && incremental?.readsForOtherSinks == false && (error as? CalpipeError)?.isInterruption != true {
                    // Failed before sending anything: the sinks keep its rows, the others are written, exit 1.
                    incremental?.keep(label)
                    context.runState.pluginStates.hold(label)
                    context.report.keepSource("\(CalpipeError(error)); the rows of \(pipeline.shownSourceName(index)) are kept")
                    continue
                }
                // A source with rejected records does not advance its state: the next run reads from where this one began.
                if context.report.rejections.count > rejectedBefore { context.runState.pluginStates.hold(label) }
                // Events left unparsed as unchanged (IncrementalRun.unchangedTextCheck) were read: not an empty source.
                // A delta that sends nothing says nothing changed.
                if sent == 0 && source.feed == .complete && incremental?.unparsedCount(source: label) ?? 0 == 0 {
                    EmptySource.check(label: label, shown: pipeline.shownSourceName(index), source: source, allowEmpty: pipeline.allowEmpty.indices.contains(index) && pipeline.allowEmpty[index],
                                      rejected: context.report.rejections.count - rejectedBefore, context: context)
                }
            }
            for (i, stage) in stages.enumerated() {
                let t = DispatchTime.now().uptimeNanoseconds
                let pushedBefore = pushNanos
                try stage.finish(context: context) { tail in try push(tail, from: i + 1) }
                let total = DispatchTime.now().uptimeNanoseconds &- t
                stageNanos[i] &+= total &- min(total, pushNanos &- pushedBefore)
            }
            for (i, nanos) in stageNanos.enumerated() {
                context.report.addTime("stage " + pipeline.stageLabels[i], nanoseconds: nanos)
            }
            try pump?.finish()
            pump = nil
            try context.checkCancellation()
            if context.strict, !context.report.rejections.isEmpty {
                let n = context.report.rejections.count
                throw CalpipeError("\(n) record\(n == 1 ? " was" : "s were") rejected and --strict is set: nothing was written")
            }
            // With a sink that keeps the states and commits last (no other database, no remote sink after it), they
            // are written in its transaction: its data and the states commit together or not at all. Else they are
            // written once every sink committed (a state must never be ahead of any sink's data).
            let keeper = opened.lazy.compactMap({ $0 as? any PluginStateSink }).first
            let inTransaction = keeper != nil && opened.filter({ $0.commitKind != .file }).count == 1
            if let keeper, inTransaction {
                let approved = context.runState.pluginStates.storable(failedRecords: context.report.recordsFailed, sinks: Set(opened.map(\.label)))
                keeper.stagePluginStates(approved.isEmpty ? nil : approved, pipeline: statePipeline)
            }
            try commitAll(opened, finished: &finished, context: context)
            if !inTransaction { try saveStates(keeper: keeper, sinks: Set(opened.map(\.label)), pipeline: statePipeline, context: context) }
            // A run that wrote every output from every source, with nothing rejected or failed, is the one the next
            // run compares itself with.
            let report = context.report
            if let stampFile, let stamp, report.rejections.isEmpty, report.keptSources.isEmpty, report.emptyResults.isEmpty,
               report.recordsFailed == 0 {
                stamp.recording(finishedAt: context.environment.now, warnings: report.warnings.count + report.repairs.count).save(to: stampFile)
            }
        } catch {
            // The sinks are the pump's until its thread has ended.
            pump?.cancel()
            for (index, sink) in opened.enumerated() where !finished.contains(index) { sink.abort(context: context) }
            cancellation.discardPending()
            throw error
        }
    }

    /// The name the states are kept under: the pipeline's `name`, else its file.
    package static func statePipeline(_ environment: PipelineEnvironment) -> String {
        environment.name.isEmpty ? environment.pipelineFile : environment.name
    }

    /// After every sink committed: stores the approved proposals (when records failed, the sinks' only:
    /// `PluginStateBook.storable`) in the state folder, or through `keeper` in a transaction of its own (another
    /// database or a remote sink committed after it). Not called when the states were written in the keeper's transaction.
    private func saveStates(keeper: (any PluginStateSink)?, sinks: Set<String>, pipeline: String, context: RunContext) throws {
        guard !dryRun else { return }
        let approved = context.runState.pluginStates.storable(failedRecords: context.report.recordsFailed, sinks: sinks)
        guard !approved.isEmpty else { return }
        do {
            if let keeper {
                try keeper.savePluginStates(approved, pipeline: pipeline, context: context)
            } else if let stateFile {
                // Merged into what is stored (under --full too: plugins that proposed nothing keep theirs).
                var stored = (try? PluginStateFile.load(stateFile)) ?? [:]
                stored.merge(approved) { $1 }
                try PluginStateFile.save(stored, pipeline: pipeline, to: stateFile)
            }
        } catch {
            throw CalpipeError("the plugins' state was not saved (\(CalpipeError(error).message)); every output was written, "
                + "and the next run starts from the state saved before")
        }
    }

    /// The commit phase, in the order the sinks declare (`SinkCommit`). File sinks commit first: each writes its
    /// last bytes into its temporary file and syncs it, and the renames wait. Then sinks that commit in place (a
    /// database transaction), each of which makes the run irreversible once it has committed. Then every file is
    /// renamed over its target at once. A signal before the first irreversible step rolls everything back; after
    /// it, the run goes to its end. Last, remote sinks commit, once every local output is in place: what they
    /// sent cannot be taken back, and if one fails the local outputs stay written (`finished` holds the sinks
    /// that must no longer be aborted). Records a sink reported `.failed` do not stop the commit phase: the run
    /// ends with every output committed and exits 1 (`ExitStatus.of`).
    private func commitAll(_ sinks: [any Sink], finished: inout Set<Int>, context: RunContext) throws {
        let cancellation = context.cancellation
        cancellation.beginCommit()
        let kinds = sinks.map(\.commitKind)
        let local = sinks.indices.filter { kinds[$0] == .file } + sinks.indices.filter { kinds[$0] == .transaction }
        var rows = [Int](repeating: 0, count: sinks.count)
        func commit(_ index: Int) throws {
            let t = DispatchTime.now().uptimeNanoseconds
            rows[index] = try sinks[index].commit(context: context)
            context.report.addTime("sink " + sinks[index].label, nanoseconds: DispatchTime.now().uptimeNanoseconds &- t)
        }
        for index in local {
            try context.checkCancellation()
            try commit(index)
            if kinds[index] == .transaction { cancellation.markIrreversible() }
        }
        try cancellation.publish()
        finished.formUnion(local)
        for index in sinks.indices where kinds[index] != .remote { context.report.wrote(rows[index], to: sinks[index].label) }
        for index in sinks.indices where kinds[index] == .remote {
            try commit(index)
            finished.insert(index)
            context.report.wrote(rows[index], to: sinks[index].label)
        }
    }
}
