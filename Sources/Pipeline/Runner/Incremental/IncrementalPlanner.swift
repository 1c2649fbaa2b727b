/// How the runner decides, before reading, what an incremental run may leave out (docs/incremental.md).
enum IncrementalPlanner {
    /// This run's fingerprints, when the run can be incremental at all: a sink keeps rows across runs
    /// (`IncrementalSink`), every stage is deterministic, the pipeline came from a file (its config is known),
    /// and source labels are unique. nil without an incremental sink.
    /// When the sinks keep rows per source but the run cannot skip anything, the run still exists (not
    /// `enabled`): it keeps the rows of sources that fail or come back empty (issue 16). Sinks that are not
    /// incremental get every event (`IncrementalRun.readsForOtherSinks`); they do not turn the others' off.
    static func fingerprints(_ pipeline: PipelineDefinition, sinks: [any Sink], enabled: Bool, context: RunContext) throws -> IncrementalRun? {
        guard sinks.contains(where: { $0 is any IncrementalSink }) else { return nil }
        let others = !sinks.allSatisfy { $0 is any IncrementalSink }
        guard enabled, pipeline.stages.allSatisfy({ $0 is any DeterministicStage }),
              let configs = pipeline.configFingerprints, configs.count == pipeline.sources.count,
              Set(pipeline.sourceLabels).count == pipeline.sourceLabels.count else {
            return IncrementalRun(current: [:], zone: context.zone, enabled: false, readsForOtherSinks: others)
        }
        // Without a window the expand stage reaches from DTSTART to today + 365 days: "today" is part of it.
        let window = context.window == nil ? "none, today \(context.environment.today.iso8601)" : IncrementalConfig.windowText(context.window)
        var current: [String: SourceFingerprint] = [:]
        for (i, source) in pipeline.sources.enumerated() {
            let label = pipeline.sourceLabels[i]
            var input: String?
            if let fingerprinted = source as? any FingerprintableSource {
                context.runState.currentSourceLabel = label
                defer { context.runState.currentSourceLabel = nil }
                // A source that cannot be fingerprinted (its file is missing, its server down) is read as usual
                // and fails there with its own message.
                input = try? fingerprinted.inputFingerprint(context: context)
            }
            try context.checkCancellation()
            current[label] = SourceFingerprint(input: input, config: configs[i], window: window)
        }
        return IncrementalRun(current: current, zone: context.zone, readsForOtherSinks: others)
    }

    /// Each source's plan from what the (opened) sinks remember: skipped when every sink holds the same
    /// input, config and window; event by event when the one sink holds the same config; else in full. With sinks
    /// that need every event (`readsForOtherSinks`), a skipped source is read for them only, and none is read
    /// event by event; a failed or empty source then fails or empties the run as without incremental sinks.
    static func plan(_ run: IncrementalRun, _ pipeline: PipelineDefinition, sinks: [any Sink], context: RunContext) throws {
        let incrementalSinks = sinks.compactMap { $0 as? any IncrementalSink }
        for label in pipeline.sourceLabels {
            if !run.readsForOtherSinks {
                for sink in incrementalSinks where try sink.remembersEvents(ofSource: label) { run.setRemembered(label) }
            }
            guard run.enabled, let current = run.current[label] else { continue }
            var memories: [any SourceMemory] = []
            for sink in incrementalSinks {
                if let memory = try sink.memory(ofSource: label, current: current) { memories.append(memory) }
            }
            guard memories.count == incrementalSinks.count, !memories.isEmpty else {
                run.setPlan(.full, memory: nil, for: label)
                continue
            }
            if current.input != nil && memories.allSatisfy({ $0.fingerprint == current }) {
                run.setPlan(.skipped, memory: nil, for: label)
                context.report.count(run.readsForOtherSinks ? "sources unchanged (rows kept, read for the other sinks)" : "sources unchanged (not read)")
                continue
            }
            if memories.count == 1, !run.readsForOtherSinks, let memory = memories.first, memory.fingerprint.config == current.config,
               let gained = IncrementalConfig.gained(current: current.window, previous: memory.fingerprint.window, zone: context.zone) {
                run.setPlan(.events(delta: gained), memory: memory, for: label)
            } else {
                run.setPlan(.full, memory: nil, for: label)
            }
        }
    }
}
