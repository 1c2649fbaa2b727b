/// One entry of an `OptionSpec`, made by `Key`, `Group` or `Include`: the JSON keys it takes, how it decodes them
/// into the config and how it documents them.
// Key paths to the stored properties of value types are immutable; the closures capture nothing else.
public struct OptionMember<Config: OptionConfig>: @unchecked Sendable {
    /// The JSON keys it takes at its level (an `Include`: all of the included set's).
    let keys: [String]
    /// Each key path under it with its JSON path relative to the object ("auth.username").
    let names: [(keyPath: AnyKeyPath, name: String)]
    /// Its docs, with the defaults of `Config()`.
    let docs: @Sendable (Config) -> [OptionDoc]
    /// Decodes its keys of `object` (at `input.path`) into the config, reporting problems.
    let decode: @Sendable (inout Config, JSONObject, OptionInput) -> Void
    /// Its values that differ from the defaults (second argument) as JSON members; secrets "<redacted>".
    let describe: @Sendable (Config, Config) -> [(key: String, value: JSONValue)]
}

/// One option: `Key("busy_timeout_ms", \.busyTimeout, .integer(in: 0...86_400_000), "how long to wait")`.
/// The default is the property's value in the config's `init()`; `default:` adds words for a default that
/// depends on something else ("the pipeline's name").
public struct Key<Config: OptionConfig> {
    public let member: OptionMember<Config>

    /// An option whose default is the config's value (or that is `required`).
    public init<Value>(_ name: String, _ keyPath: WritableKeyPath<Config, Value>, _ type: OptionType<Value>, required: Bool = false,
                       _ summary: String, default note: String? = nil) {
        nonisolated(unsafe) let path = keyPath
        member = Self.member(name, keyPath, type, required: required, summary, note: note, defaultOf: { type.encode($0[keyPath: path]) },
                             isSet: { _ in true })
    }

    /// An option that stays nil when not given (unless the config's `init()` gives it a value). `implied`: the value
    /// the plugin then uses (a client's own default), documented as the default.
    public init<Value>(_ name: String, _ keyPath: WritableKeyPath<Config, Value?>, _ type: OptionType<Value>, required: Bool = false,
                       _ summary: String, default note: String? = nil, implied: Value? = nil) {
        let optional = OptionType<Value?>(kind: type.kind, values: type.values, minimum: type.minimum, maximum: type.maximum,
                                          decode: { type.decode($0, $1).map { .some($0) } }, encode: { $0.flatMap(type.encode) })
        var withSchema = optional
        withSchema.isSecret = type.isSecret
        withSchema.pattern = type.pattern
        withSchema.itemKind = type.itemKind
        nonisolated(unsafe) let path = keyPath
        member = Self.member(name, keyPath, withSchema, required: required, summary, note: note,
                             defaultOf: { ($0[keyPath: path] ?? implied).flatMap(type.encode) }, isSet: { $0[keyPath: path] != nil })
    }

    private static func member<Value>(_ name: String, _ keyPath: WritableKeyPath<Config, Value>, _ type: OptionType<Value>, required: Bool,
                                      _ summary: String, note: String?, defaultOf: @escaping @Sendable (Config) -> JSONValue?,
                                      isSet: @escaping @Sendable (Config) -> Bool) -> OptionMember<Config> {
        nonisolated(unsafe) let keyPath = keyPath
        return OptionMember(keys: [name], names: [(keyPath: keyPath as AnyKeyPath, name: name)], docs: { defaults in
            var doc = OptionDoc(name, type.kind, required: required, summary, values: type.values)
            doc.minimum = type.minimum
            doc.maximum = type.maximum
            doc.isSecret = type.isSecret
            doc.pattern = type.pattern
            doc.itemKind = type.itemKind
            if !required, !type.isSecret, let value = defaultOf(defaults) {
                doc.defaultJSON = value
                doc.defaultValue = note ?? OptionDoc.text(of: value)
            } else {
                doc.defaultValue = note
            }
            return [doc]
        }, decode: { config, object, input in
            guard let value = object[name] else {
                if required { input.member(name).report("missing required option (expected \(type.kind.expectation))") }
                return
            }
            if let decoded = type.decode(value, input.member(name)) { config[keyPath: keyPath] = decoded }
        }, describe: { config, defaults in
            let value = defaultOf(config)
            if type.isSecret {
                let unchanged = value != nil && value == defaultOf(defaults)
                return isSet(config) && !unchanged ? [(name, .string(Secret.redacted))] : []
            }
            guard let value, value != defaultOf(defaults) else { return [] }
            return [(name, value)]
        })
    }
}

/// A nested object with options of its own (`additionalProperties: false`): `Group("window", \.window, "...")`.
/// Absent, it keeps the config's default (or stays nil for an optional property).
public struct Group<Config: OptionConfig> {
    public let member: OptionMember<Config>

    public init<Nested: OptionConfig>(_ name: String, _ keyPath: WritableKeyPath<Config, Nested>, required: Bool = false, _ summary: String) {
        nonisolated(unsafe) let keyPath = keyPath
        member = Self.member(name, keyPath, required: required, summary, get: { $0[keyPath: keyPath] }, set: { $0[keyPath: keyPath] = $1 })
    }

    public init<Nested: OptionConfig>(_ name: String, _ keyPath: WritableKeyPath<Config, Nested?>, required: Bool = false, _ summary: String) {
        nonisolated(unsafe) let keyPath = keyPath
        member = Self.member(name, keyPath, required: required, summary, get: { $0[keyPath: keyPath] }, set: { $0[keyPath: keyPath] = $1 })
    }

    private static func member<Nested: OptionConfig>(_ name: String, _ keyPath: AnyKeyPath, required: Bool, _ summary: String,
                                                    get: @escaping @Sendable (Config) -> Nested?,
                                                    set: @escaping @Sendable (inout Config, Nested) -> Void) -> OptionMember<Config> {
        nonisolated(unsafe) let keyPath = keyPath
        let nestedNames = Nested.options.names.compactMap { entry -> (keyPath: AnyKeyPath, name: String)? in
            guard let path = keyPath.appending(path: entry.keyPath) else { return nil }
            return (path, name + "." + entry.name)
        }
        return OptionMember(keys: [name], names: [(keyPath: keyPath, name: name)] + nestedNames, docs: { _ in
            var doc = OptionDoc(name, .object, required: required, summary)
            doc.members = Nested.options.docs
            return [doc]
        }, decode: { config, object, input in
            let at = input.member(name)
            guard let value = object[name] else {
                if required { at.report("missing required option (expected an object)") }
                return
            }
            guard case .object(let nested) = value else { at.wrongType(OptionKind.object.expectation, value); return }
            set(&config, Nested.options.decode(nested, at: at))
        }, describe: { config, defaults in
            guard let value = get(config) else { return [] }
            let members = Nested.options.describedMembers(value, defaults: get(defaults) ?? Nested())
            return members.isEmpty ? [] : [(name, .object(JSONObject(members)))]
        })
    }
}

/// A shared set of options at the same level as the plugin's own (the input's `path`/`url`, the HTTP `auth`
/// options): `Include(\.input)`. Its `validate` runs on its own value.
public struct Include<Config: OptionConfig> {
    public let member: OptionMember<Config>

    /// `prefix` starts each included option's description ("url: ").
    public init<Nested: OptionConfig>(_ keyPath: WritableKeyPath<Config, Nested>, prefix: String = "") {
        nonisolated(unsafe) let keyPath = keyPath
        let nestedNames = Nested.options.names.compactMap { entry -> (keyPath: AnyKeyPath, name: String)? in
            guard let path = (keyPath as AnyKeyPath).appending(path: entry.keyPath) else { return nil }
            return (path, entry.name)
        }
        member = OptionMember(keys: Nested.options.keys, names: nestedNames, docs: { defaults in
            Nested.options.docs(defaults: defaults[keyPath: keyPath]).map { doc in
                var doc = doc
                doc.summary = prefix + doc.summary
                return doc
            }
        }, decode: { config, object, input in
            config[keyPath: keyPath] = Nested.options.decodeIncluded(object, at: input)
        }, describe: { config, defaults in
            Nested.options.describedMembers(config[keyPath: keyPath], defaults: defaults[keyPath: keyPath])
        })
    }
}

extension OptionInput {
    /// The input of the member `key` of the object here.
    func member(_ key: String) -> OptionInput {
        appending(path.isEmpty ? key : "." + key)
    }
}
