/// The declaration of an `OptionConfig`: its options (`Key`), nested objects (`Group`) and shared sets (`Include`),
/// in the order the docs list them. Decodes an options object into the config and gives the docs and schema.
///
///     static let options = OptionSpec<Options> {
///         Key("path", \.path, .path, required: true, "the database file")
///         Key("keep_removed", \.keepRemoved, .boolean, "mark rows that left a feed instead of deleting them")
///         Group("theme", \.theme, "colours of the page")
///     }
public struct OptionSpec<Config: OptionConfig>: Sendable {
    let members: [OptionMember<Config>]

    public init(@OptionSpecBuilder<Config> _ members: () -> [OptionMember<Config>]) {
        self.members = members()
    }

    /// The JSON keys at the top level, in order.
    public var keys: [String] { members.flatMap(\.keys) }

    /// Every key path with its JSON path relative to the object.
    var names: [(keyPath: AnyKeyPath, name: String)] { members.flatMap(\.names) }

    /// The docs, with the defaults of `Config()`.
    public var docs: [OptionDoc] { docs(defaults: Config()) }

    func docs(defaults: Config) -> [OptionDoc] { members.flatMap { $0.docs(defaults) } }

    /// Decodes an options object at JSON path `input.path`: unknown keys (other than `allowing`) are reported with
    /// the closest known name, then each member is decoded (missing required options, wrong kinds, values out of
    /// range or not allowed are reported at their path; a wrong value keeps its default), then `validate` runs.
    public func decode(_ object: JSONObject, at input: OptionInput, allowing extra: [String] = []) -> Config {
        let own = keys
        let known = own + extra.filter { $0 != "type" && !own.contains($0) }
        for key in object.keys where !known.contains(key) && !extra.contains(key) {
            if known.isEmpty { input.member(key).report("unknown option (this plugin takes no options)"); continue }
            input.member(key).report("unknown option (expected one of: \(known.joined(separator: ", ")))" + Suggestion.hint(for: key, in: known))
        }
        return decodeMembers(object, at: input)
    }

    /// Decodes an included set: like `decodeMembers`, with its problems (its members' and its rules') in the order
    /// of its declaration.
    func decodeIncluded(_ object: JSONObject, at input: OptionInput) -> Config {
        let start = input.diagnostics.issues.count
        let config = decodeMembers(object, at: input)
        let prefix = input.path.isEmpty ? "" : input.path + "."
        let own = keys
        input.diagnostics.order(since: start) { path in
            guard path.hasPrefix(prefix), path.count > prefix.count else { return Int.max }
            let key = path.dropFirst(prefix.count).prefix { $0 != "." && $0 != "[" }
            return own.firstIndex(of: String(key)) ?? Int.max
        }
        return config
    }

    /// Decodes the members without the unknown-key check (an `Include` shares its object), then validates.
    func decodeMembers(_ object: JSONObject, at input: OptionInput) -> Config {
        var config = Config()
        for member in members { member.decode(&config, object, input) }
        config.validate(OptionContext(input: input, object: object, names: names))
        return config
    }

    /// A config's values as JSON, for plans and summaries: every option that differs from its default, secrets
    /// as "<redacted>".
    public func describe(_ config: Config) -> JSONValue {
        .object(JSONObject(describedMembers(config, defaults: Config())))
    }

    func describedMembers(_ config: Config, defaults: Config) -> [(key: String, value: JSONValue)] {
        members.flatMap { $0.describe(config, defaults) }
    }
}
