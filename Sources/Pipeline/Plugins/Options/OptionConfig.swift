/// A plugin's options as one value: a struct whose `init()` holds every default, declared once with its
/// `OptionSpec` (JSON key, kind, range, allowed values and doc of each member). The loader decodes the options
/// object into it, reporting every problem with its JSON path, and hands the value to the plugin's `make`.
/// Nested objects (`Group`) and shared option sets (`Include`) are `OptionConfig`s too.
///
///     struct Options: OptionConfig {
///         var path = OptionPath()
///         var busyTimeout: Duration = .seconds(30)
///         static let options = OptionSpec<Options> {
///             Key("path", \.path, .path, required: true, "the database file")
///             Key("busy_timeout", \.busyTimeout, .duration, "how long to wait for another writer")
///         }
///     }
public protocol OptionConfig: Sendable {
    /// Every option at its default.
    init()
    /// The declaration: what the pipeline file may say, for decoding, `calpipe plugins` and `calpipe schema`.
    static var options: OptionSpec<Self> { get }
    /// Rules between options ("A only with B"), checked after the members were decoded (also when some were
    /// wrong); problems are reported on an option with `context.report(\.member, "...")`. May also derive values.
    mutating func validate(_ context: OptionContext<Self>)
}

extension OptionConfig {
    public mutating func validate(_ context: OptionContext<Self>) {}
}

/// The options of a plugin that takes none.
public struct NoOptions: OptionConfig {
    public init() {}
    public static let options = OptionSpec<NoOptions> {}
}
