/// What kind of plugin: where it may appear in a pipeline file.
public enum PluginKind: String, Sendable, CaseIterable {
    case source, stage, sink

    /// The pipeline file's key for this kind.
    public var section: String { rawValue + "s" }
}

/// A plugin: its `type` name, a one-line summary, its options, and how to build it from decoded options.
/// Every plugin declares one as `static let descriptor` next to its implementation.
public struct PluginDescriptor<Product>: Sendable {
    public let type: String
    public let kind: PluginKind
    public let summary: String
    public let options: [OptionDoc]
    /// File extensions (without the dot) that choose this plugin in `calpipe convert`.
    public let fileExtensions: [String]
    public let make: @Sendable (PluginOptions) throws -> Product

    public init(type: String, kind: PluginKind, summary: String, options: [OptionDoc], fileExtensions: [String] = [],
                make: @escaping @Sendable (PluginOptions) throws -> Product) {
        self.type = type
        self.kind = kind
        self.summary = summary
        self.options = options
        self.fileExtensions = fileExtensions
        self.make = make
    }
}

public typealias SourceDescriptor = PluginDescriptor<any EventSource>
public typealias StageDescriptor = PluginDescriptor<any Stage>
public typealias SinkDescriptor = PluginDescriptor<any Sink>

extension PluginDescriptor {
    /// The same plugin with more declared options (listed after its own).
    func declaring(_ extra: [OptionDoc]) -> PluginDescriptor {
        extra.isEmpty ? self : PluginDescriptor(type: type, kind: kind, summary: summary, options: options + extra,
                                                 fileExtensions: fileExtensions, make: make)
    }
}
