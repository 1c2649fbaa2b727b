/// A pipeline ready to run: its environment and its built plugins, in order.
public struct PipelineDefinition {
    public var environment: PipelineEnvironment
    public var sources: [any EventSource]
    /// One label per source (its "name" option, else its path or URL): stamped on events as metadata["source"].
    public var sourceLabels: [String]
    public var stages: [any Stage]
    /// One label per stage (its `type`), for timings in the summary.
    public var stageLabels: [String]
    public var sinks: [any Sink]

    public init(environment: PipelineEnvironment, sources: [any EventSource], sourceLabels: [String]? = nil, stages: [any Stage],
                stageLabels: [String]? = nil, sinks: [any Sink]) {
        self.environment = environment
        self.sources = sources
        self.sourceLabels = sourceLabels ?? sources.indices.map { "sources[\($0)]" }
        self.stages = stages
        self.stageLabels = stageLabels ?? stages.map { String(describing: type(of: $0)) }
        self.sinks = sinks
    }
}
