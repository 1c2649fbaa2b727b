/// The resolved plan of a pipeline, as `calpipe validate` and `calpipe run --dry-run` print it: what will
/// run, in order, after the loader's own changes (an `expand` it added), with the window in dates and the zone.
extension PipelineDefinition {
    package var planLines: [String] {
        let env = environment
        var lines = ["plan of \"\(env.name)\":"]
        lines.append("  time zone: \(env.zone.identifier)")
        if let w = env.window {
            let days = w.to.daysSinceEpoch - w.from.daysSinceEpoch
            lines.append("  window: \(w.from.iso8601) to \(w.to.adding(days: -1).iso8601) (\(days) day\(days == 1 ? "" : "s"); \"to\" \(w.to.iso8601) is exclusive)")
        } else {
            lines.append("  window: none (expand: from each event's start to today+365 days; every day with entries is exported)")
        }
        lines.append("  sources:")
        for (i, label) in sourceLabels.enumerated() {
            let type = i < sourceTypes.count ? sourceTypes[i] : "?"
            let color = i < sourceColors.count ? sourceColors[i].map { ", colour \($0)" } ?? "" : ""
            lines.append("    \(i + 1). \(type) \(label)\(color)" + Self.optionText(optionSummaries.sources, i))
        }
        lines.append("  stages:" + (stages.isEmpty ? " none" : ""))
        for i in stages.indices {
            let type = i < stageTypes.count ? stageTypes[i] : "?"
            let added = addedStageIndexes.contains(i) ? " (added)" : ""
            let written = i - addedStageIndexes.filter { $0 <= i }.count
            lines.append("    \(i + 1). \(type)\(added)" + (added.isEmpty ? Self.optionText(optionSummaries.stages, written) : ""))
        }
        lines.append("  sinks:")
        for (i, sink) in sinks.enumerated() { lines.append("    \(i + 1). \(sink.label)" + Self.optionText(optionSummaries.sinks, i)) }
        for note in notes { lines.append("  note: \(note)") }
        return lines
    }

    /// " {"shape": "events"}": a plugin's options that differ from their defaults, without those its label shows
    /// (`path`, `url`, `name`, `color`); secrets are "<redacted>". Empty when there are none.
    static func optionText(_ summaries: [JSONValue], _ index: Int) -> String {
        guard index >= 0, index < summaries.count, case .object(let object) = summaries[index] else { return "" }
        let shown = object.members.filter { !["path", "url", "name", "color"].contains($0.key) }
        return shown.isEmpty ? "" : " " + JSONWriter(pretty: false).string(.object(JSONObject(shown)))
    }

    /// Puts an `expand` stage in front of `split` (or first, when only a sink needs occurrences) when the
    /// pipeline has none, so recurring events are not reduced to their first instance. Returns the note that
    /// says so, or nil when nothing was added.
    mutating func addExpandWhereNeeded(make: () -> (any Stage)?) -> String? {
        guard !stageTypes.contains("expand") else { return nil }
        let splitIndex = stageTypes.firstIndex(of: "split")
        let sinkNeeds = sinks.contains { !$0.needs.isDisjoint(with: [.occurrences, .days]) }
        guard splitIndex != nil || sinkNeeds, let expand = make() else { return nil }
        let index = splitIndex ?? 0
        stages.insert(expand, at: index)
        stageTypes.insert("expand", at: index)
        stageLabels.insert("expand", at: min(index, stageLabels.count))
        addedStageIndexes = [index]
        // A calendar sink with a window reads occurrences only to tell which events touch the window: it gets them
        // without a note (the plan shows the stage).
        let needsInstances = splitIndex != nil || sinks.contains { !$0.needs.isDisjoint(with: [.occurrences, .days]) && !$0.needs.contains(.events) }
        guard needsInstances else { return nil }
        let before = splitIndex != nil ? "in front of \"split\"" : "first"
        return "added {\"type\": \"expand\"} \(before): without it recurring events keep only their first occurrence (add it to \"stages\" to silence this note)"
    }
}
