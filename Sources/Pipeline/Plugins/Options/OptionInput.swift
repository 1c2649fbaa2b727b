/// Where one option value is decoded: its JSON path, the pipeline's environment and the problems list.
/// Custom option kinds (`OptionType.init(kind:...)`, `OptionType.map`) report what is wrong with the value here.
public struct OptionInput {
    /// The value's JSON path ("sinks[0].theme.light.accent").
    public let path: String
    public let environment: PipelineEnvironment
    let diagnostics: ConfigDiagnostics

    init(path: String, environment: PipelineEnvironment, diagnostics: ConfigDiagnostics) {
        self.path = path
        self.environment = environment
        self.diagnostics = diagnostics
    }

    /// Reports a problem with the value.
    public func report(_ message: String) {
        diagnostics.add(path, message)
    }

    /// Reports a problem with a part of the value (`suffix`: "[2]", ".title").
    public func report(suffix: String, _ message: String) {
        diagnostics.add(path + suffix, message)
    }

    /// The same place, one member or item further down.
    func appending(_ suffix: String) -> OptionInput {
        OptionInput(path: path + suffix, environment: environment, diagnostics: diagnostics)
    }

    /// "expected a string, got number 5".
    func wrongType(_ expected: String, _ value: JSONValue) {
        report("expected \(expected), got \(value.kindDescription) \(value.preview)")
    }
}
