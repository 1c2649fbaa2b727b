/// What kind of plugin: where it may appear in a pipeline file.
public enum PluginKind: String, Sendable, CaseIterable {
    case source, stage, sink

    /// The pipeline file's key for this kind.
    public var section: String { rawValue + "s" }
}

/// A plugin: its `type` name, a one-line summary, its options (an `OptionConfig`, declared once) and how to build
/// it from the decoded options. Every plugin declares one as `static let descriptor` next to its implementation:
///
///     static let descriptor = SinkDescriptor(type: "sqlite", kind: .sink, summary: "...", options: Options.self) { options, context in
///         SQLiteSink(options)
///     }
public struct PluginDescriptor<Product>: Sendable {
    public let type: String
    public let kind: PluginKind
    public let summary: String
    /// The options' docs, from the declaration (with the options every plugin of its kind takes).
    public let options: [OptionDoc]
    /// File extensions (without the dot) that choose this plugin in `calpipe convert`.
    public let fileExtensions: [String]
    /// Decodes the options object (reporting every problem) and builds the plugin; `extra`: keys other declarations
    /// of the same object take (the common source options).
    let build: @Sendable (PluginOptions, _ extra: [String], _ shared: [@Sendable (PluginOptions) -> Void]) throws -> (Product, JSONValue)
    /// Checks the options every plugin of its kind takes (`declaring`).
    let shared: [@Sendable (PluginOptions) -> Void]

    /// A plugin with options: `make` gets them decoded (never a key string) with the context to report on them.
    public init<Config: OptionConfig>(type: String, kind: PluginKind, summary: String, options: Config.Type, fileExtensions: [String] = [],
                                      make: @escaping @Sendable (Config, OptionContext<Config>) throws -> Product) {
        self.type = type
        self.kind = kind
        self.summary = summary
        self.options = Config.options.docs
        self.fileExtensions = fileExtensions
        self.shared = []
        self.build = { input, extra, shared in
            let at = OptionInput(path: input.path, environment: input.environment, diagnostics: input.diagnostics)
            let config = Config.options.decode(input.object, at: at, allowing: ["type"] + extra)
            for check in shared { check(input) }
            let context = OptionContext<Config>(input: at, object: input.object, names: Config.options.names)
            if context.hasProblems { throw CalpipeError.optionsRejected }
            return (try make(config, context), Config.options.describe(config))
        }
    }

    /// A plugin without options: `make` gets the pipeline's environment.
    public init(type: String, kind: PluginKind, summary: String, fileExtensions: [String] = [],
                make: @escaping @Sendable (PipelineEnvironment) throws -> Product) {
        self.init(type: type, kind: kind, summary: summary, options: NoOptions.self, fileExtensions: fileExtensions) { _, context in
            try make(context.environment)
        }
    }

    private init(copying other: PluginDescriptor, options: [OptionDoc], shared: [@Sendable (PluginOptions) -> Void],
                 build: @escaping @Sendable (PluginOptions, [String], [@Sendable (PluginOptions) -> Void]) throws -> (Product, JSONValue)) {
        type = other.type
        kind = other.kind
        summary = other.summary
        fileExtensions = other.fileExtensions
        self.options = options
        self.shared = shared
        self.build = build
    }

    /// Decodes the options and builds the plugin. Throws `CalpipeError.optionsRejected` when problems were reported
    /// (each with its JSON path, to `options`' diagnostics).
    public func make(_ options: PluginOptions) throws -> Product {
        try makeDescribed(options).product
    }

    /// Builds the plugin, with its options as plans show them: what differs from the defaults, secrets as
    /// "<redacted>" (`OptionSpec.describe`).
    package func makeDescribed(_ options: PluginOptions) throws -> (product: Product, options: JSONValue) {
        let (product, described) = try build(options, self.options.map(\.name), shared)
        try options.finish()
        return (product, described)
    }

    /// The same plugin with more declared options (listed after its own), decoded and checked by the loader (which
    /// reads them), not by the plugin.
    func declaring<Shared: OptionConfig>(_: Shared.Type) -> PluginDescriptor {
        let own = Set(options.map(\.name))
        let extra = Shared.options.docs.filter { !own.contains($0.name) }
        guard !extra.isEmpty else { return self }
        let build = self.build
        return PluginDescriptor(copying: self, options: options + extra, shared: shared + [{ input in
            let at = OptionInput(path: input.path, environment: input.environment, diagnostics: input.diagnostics)
            _ = Shared.options.decodeMembers(input.object.filtering(extra.map(\.name)), at: at)
        }], build: build)
    }
}

extension JSONObject {
    /// The members named in `keys`, in order.
    func filtering(_ keys: [String]) -> JSONObject {
        JSONObject(members.filter { keys.contains($0.key) })
    }
}

public typealias SourceDescriptor = PluginDescriptor<any EventSource>
public typealias StageDescriptor = PluginDescriptor<any Stage>
public typealias SinkDescriptor = PluginDescriptor<any Sink>
