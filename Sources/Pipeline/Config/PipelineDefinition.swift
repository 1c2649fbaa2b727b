/// A pipeline ready to run: its environment and its built plugins, in order.
public struct PipelineDefinition: Sendable {
    public var environment: PipelineEnvironment
    public var sources: [any EventSource]
    /// One label per source (its "name" option, else its path or URL): stamped on events as metadata["source"].
    public var sourceLabels: [String]
    public var stages: [any Stage]
    /// One label per stage (its `type`), for timings in the summary.
    public var stageLabels: [String]
    public var sinks: [any Sink]
    /// The plugin type of each source, stage and sink ("ics", "split", "json"), for the resolved plan.
    public var sourceTypes: [String] = []
    public var stageTypes: [String] = []
    public var sinkTypes: [String] = []
    /// Each source's, stage's and sink's options that differ from their defaults, secrets redacted, for the plan.
    package var optionSummaries: (sources: [JSONValue], stages: [JSONValue], sinks: [JSONValue]) = ([], [], [])
    /// What the loader changed in the pipeline as written (an `expand` stage it added), one line each.
    public var notes: [String] = []
    /// Stages the loader added (indexes into `stages`).
    public var addedStageIndexes: [Int] = []
    /// What shapes the rows besides the input, for incremental runs (docs/incremental.md): one text per source
    /// (its options, the stages' options and the zone). nil (pipelines built in code): runs are never incremental.
    public var configFingerprints: [String]?
    /// Per source, whether its label is its `path` as written (it has no `name`): messages then show the path from
    /// where the user stands (`PipelineEnvironment.displayPath`) while the label keeps keying its rows.
    public var sourceLabelIsPath: [Bool] = []

    /// The source's name for messages: its `name`, its URL, or its path as the user can use it.
    public func shownSourceName(_ index: Int) -> String {
        let label = sourceLabels[index]
        guard index < sourceLabelIsPath.count, sourceLabelIsPath[index] else { return label }
        return environment.displayPath(label)
    }

    /// SHA-256 of the pipeline document as read (after `${ENV}` and `--set`): part of the run's stamp (`RunStamp`).
    public var documentFingerprint: String?
    /// Per source: `allow_empty` (a feed that may truly empty out: no events then removes its rows).
    public var allowEmpty: [Bool] = []
    /// Per source: its `color` option as "#rrggbb" (nil when not set): the colour of its events on an agenda
    /// page, after an event's own COLOR and before the feed's calendar colour.
    public var sourceColors: [String?] = []
    /// Per source: whether its label is its `name` option (else its path or URL as written).
    public var sourceNamed: [Bool] = []

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
