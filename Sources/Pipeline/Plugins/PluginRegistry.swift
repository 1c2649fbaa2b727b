/// The one table of plugins, by kind and `type` name. `PluginRegistry.standard` (in the CalpipeKit library)
/// holds every plugin calpipe ships, from each module's list (`CoreStages.all`, `SourcePlugins.all`,
/// `SinkPlugins.all`, `EnricherPlugins.all`); a program may register its own plugins beside them.
public struct PluginRegistry: Sendable {
    public private(set) var sources: [SourceDescriptor] = []
    public private(set) var stages: [StageDescriptor] = []
    public private(set) var sinks: [SinkDescriptor] = []

    public init() {}

    /// The options every source takes besides its own (`SourceCommonOptions`), read by the loader.
    public static var commonSourceOptions: [OptionDoc] { SourceCommonOptions.options.docs }

    /// Registers a source; the common source options (`name`, `color`) are added to its declared list.
    public mutating func register(_ descriptor: SourceDescriptor) {
        precondition(!sources.contains { $0.type == descriptor.type }, "source type \(descriptor.type) registered twice")
        sources.append(descriptor.declaring(SourceCommonOptions.self))
    }

    public mutating func register(_ descriptor: StageDescriptor) {
        precondition(!stages.contains { $0.type == descriptor.type }, "stage type \(descriptor.type) registered twice")
        stages.append(descriptor)
    }

    public mutating func register(_ descriptor: SinkDescriptor) {
        precondition(!sinks.contains { $0.type == descriptor.type }, "sink type \(descriptor.type) registered twice")
        sinks.append(descriptor)
    }

    public func source(_ type: String) -> SourceDescriptor? { sources.first { $0.type == type } }
    public func stage(_ type: String) -> StageDescriptor? { stages.first { $0.type == type } }
    public func sink(_ type: String) -> SinkDescriptor? { sinks.first { $0.type == type } }

    public func typeNames(_ kind: PluginKind) -> [String] {
        switch kind {
        case .source: return sources.map(\.type).sorted()
        case .stage: return stages.map(\.type).sorted()
        case .sink: return sinks.map(\.type).sorted()
        }
    }

    /// The source or sink chosen by a file extension in `calpipe convert` ("ics", "json", ...).
    public func source(forExtension ext: String) -> SourceDescriptor? {
        sources.first { $0.fileExtensions.contains(ext.lowercased()) }
    }

    public func sink(forExtension ext: String) -> SinkDescriptor? {
        sinks.first { $0.fileExtensions.contains(ext.lowercased()) }
    }
}
