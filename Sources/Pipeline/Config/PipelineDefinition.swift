/// A pipeline ready to run: its environment and its built plugins, in order.
public struct PipelineDefinition {
    public var environment: PipelineEnvironment
    public var sources: [any EventSource]
    public var stages: [any Stage]
    public var sinks: [any Sink]

    public init(environment: PipelineEnvironment, sources: [any EventSource], stages: [any Stage], sinks: [any Sink]) {
        self.environment = environment
        self.sources = sources
        self.stages = stages
        self.sinks = sinks
    }
}
