import Foundation

extension PipelineLoader {
    /// What a sink of `type` with these options reads from batches (events, occurrences, day entries), or nil
    /// when there is no such sink or its options are wrong: for tools that build a pipeline and must choose
    /// its stages (`calpipe convert`). Building a sink opens nothing.
    package func needs(ofSink type: String, options: JSONObject, baseDirectory: URL) -> BatchContent? {
        guard let descriptor = registry.sink(type) else { return nil }
        let environment = PipelineEnvironment(pipelineFile: "", baseDirectory: baseDirectory, name: "", zone: .utc, window: nil,
                                              environment: self.environment, zones: zones, today: CivilDate(daysSinceEpoch: 0))
        let options = PluginOptions(path: "", object: options, environment: environment, diagnostics: ConfigDiagnostics(file: ""))
        return (try? descriptor.make(options))?.needs
    }
}
