extension PipelineLoader {
    /// Refuses a stage that works on events as read (`EventStage`: transform, dedupe) after one that makes
    /// occurrences or day entries (expand, split): the occurrences and days made before it would keep the events
    /// it changes or drops, and calendar sinks would write what the agenda does not show.
    /// `stages[2]: "transform" must come before "expand" (stages[0]): it works on events as read, ...`
    func checkEventStageOrder(_ built: [(product: any Stage, object: JSONObject, path: String)], diagnostics: ConfigDiagnostics) {
        guard let first = built.firstIndex(where: { !$0.product.produces.isDisjoint(with: [.occurrences, .days]) }) else { return }
        let maker = built[first]
        for stage in built[(first + 1)...] where stage.product is any EventStage {
            let type = stage.object["type"]?.stringValue ?? "?"
            diagnostics.add(stage.path, "\"\(type)\" must come before \"\(maker.object["type"]?.stringValue ?? "?")\" (\(maker.path)): it works on events as read, before they are expanded into occurrences and split into days; move it up")
        }
    }
}
