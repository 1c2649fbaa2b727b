/// What a config's `validate` and a plugin's `make` know besides the decoded values: the pipeline's environment,
/// which options were written, and how to report a problem on one of them with its JSON path.
public struct OptionContext<Config: OptionConfig> {
    let input: OptionInput
    let object: JSONObject
    let names: [(keyPath: AnyKeyPath, name: String)]

    init(input: OptionInput, object: JSONObject, names: [(keyPath: AnyKeyPath, name: String)]) {
        self.input = input
        self.object = object
        self.names = names
    }

    /// The JSON path of the options object ("sinks[0]").
    public var path: String { input.path }
    public var environment: PipelineEnvironment { input.environment }

    /// The option's JSON key path relative to the object ("theme.light"). A key path the spec does not declare is a
    /// programming error.
    public func key(_ keyPath: PartialKeyPath<Config>) -> String {
        guard let name = names.first(where: { $0.keyPath == keyPath })?.name else {
            preconditionFailure("\(keyPath) is not declared in \(Config.self).options")
        }
        return name
    }

    /// The option's full JSON path ("sinks[0].busy_timeout_ms").
    public func path(of keyPath: PartialKeyPath<Config>) -> String {
        path.isEmpty ? key(keyPath) : path + "." + key(keyPath)
    }

    /// Whether the pipeline file gave the option (else it has its default).
    public func isGiven(_ keyPath: PartialKeyPath<Config>) -> Bool {
        var value: JSONValue? = .object(object)
        for part in key(keyPath).split(separator: ".") { value = value?.objectValue?[String(part)] }
        return value != nil
    }

    /// Reports a problem with one option (the first problem at a path is kept).
    public func report(_ keyPath: PartialKeyPath<Config>, _ message: String) {
        input.diagnostics.add(path(of: keyPath), message)
    }

    /// Reports a problem with one member of a map option (`fields.title`) or item of an array option (`member: "[2]"`).
    public func report(_ keyPath: PartialKeyPath<Config>, member: String, _ message: String) {
        input.diagnostics.add(path(of: keyPath) + (member.hasPrefix("[") ? member : "." + member), message)
    }

    /// Reports a problem with the options object as a whole.
    public func report(_ message: String) {
        input.diagnostics.add(path, message)
    }

    /// An error about one option, for `make` to throw when building the plugin fails because of it (a file the
    /// option names cannot be read).
    public func error(_ keyPath: PartialKeyPath<Config>, _ message: String) -> CalpipeError {
        CalpipeError.config(file: input.diagnostics.file, path: path(of: keyPath), message)
    }

    /// Whether a problem was reported on these options (or inside them).
    public var hasProblems: Bool {
        input.diagnostics.issues.contains { issue in
            guard let at = issue.path else { return false }
            return at == path || path.isEmpty || at.hasPrefix(path + ".") || at.hasPrefix(path + "[")
        }
    }
}
