/// A plugin's options object from the pipeline file, where it is (its JSON path) and where its problems go: what
/// the loader hands a descriptor's `make(_:)`, which decodes it into the plugin's `OptionConfig`. Plugins never
/// read keys from it.
public struct PluginOptions {
    /// JSON path of the options object ("sinks[0]").
    public let path: String
    public let object: JSONObject
    public let environment: PipelineEnvironment
    let diagnostics: ConfigDiagnostics

    public init(path: String, object: JSONObject, environment: PipelineEnvironment, diagnostics: ConfigDiagnostics) {
        self.path = path
        self.object = object
        self.environment = environment
        self.diagnostics = diagnostics
    }

    /// A text member of the pipeline file's top level (the loader's own keys), with a wrong kind reported.
    func string(_ key: String) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let s) = value else {
            diagnostics.add(key, "expected a string, got \(value.kindDescription) \(value.preview)")
            return nil
        }
        return s
    }

    /// Throws `CalpipeError.optionsRejected` when problems were reported for this plugin's options.
    public func finish() throws {
        let prefix = path + "."
        if diagnostics.issues.contains(where: { $0.path?.hasPrefix(prefix) == true || $0.path == path }) { throw CalpipeError.optionsRejected }
    }
}
