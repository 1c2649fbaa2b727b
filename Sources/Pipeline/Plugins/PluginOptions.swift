/// A plugin's options object from the pipeline file, with typed accessors that report problems
/// (wrong type, bad value, missing required option) with the exact JSON path instead of throwing at once.
///
/// A plugin's options are declared once, in its descriptor's `options` list. The loader checks the object
/// against that list before the plugin's `make` runs (unknown keys with did-you-mean, required options,
/// each value's kind and allowed values: `checkDeclared()`), so `make` only reads. Reading a key that the
/// list does not declare is a programming error, caught by an assertion in debug builds.
public struct PluginOptions {
    /// JSON path of the options object ("sinks[0]").
    public let path: String
    public let object: JSONObject
    public let environment: PipelineEnvironment
    let diagnostics: ConfigDiagnostics
    /// The declared options (nil: not checked, for nested objects and top-level keys).
    public let declared: [OptionDoc]?

    public init(path: String, object: JSONObject, environment: PipelineEnvironment, diagnostics: ConfigDiagnostics,
                declared: [OptionDoc]? = nil) {
        self.path = path
        self.object = object
        self.environment = environment
        self.diagnostics = diagnostics
        self.declared = declared
    }

    /// Debug builds stop at a read of an option that the plugin's descriptor does not declare.
    @inline(__always)
    func assertDeclared(_ key: String) {
        assert(declared == nil || key == "type" || declared!.contains { $0.name == key },
               "option \"\(key)\" is read but not declared in the plugin's options list")
    }

    public func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// Reports a problem with one option.
    public func report(_ key: String, _ message: String) {
        diagnostics.add(keyPath(key), message)
    }

    public func contains(_ key: String) -> Bool { assertDeclared(key); return object[key] != nil }

    public func value(_ key: String) -> JSONValue? { assertDeclared(key); return object[key] }

    private func wrongType(_ key: String, expected: String, got: JSONValue) {
        report(key, "expected \(expected), got \(got.kindDescription) \(got.preview)")
    }

    public func string(_ key: String, required: Bool = false) -> String? {
        assertDeclared(key)
        guard let v = object[key] else {
            if required { report(key, "missing required option (expected a string)") }
            return nil
        }
        guard case .string(let s) = v else { wrongType(key, expected: "a string", got: v); return nil }
        return s
    }

    public func string(_ key: String, default value: String) -> String { string(key) ?? value }

    /// A colour option ("#RRGGBB", "#RGB" or a CSS colour name) as "#rrggbb"; anything else is reported.
    public func color(_ key: String) -> String? {
        guard let s = string(key) else { return nil }
        guard let hex = CSSColor.hex(s) else { report(key, CSSColor.problem(s)); return nil }
        return hex
    }

    /// A path option resolved against the pipeline file's folder.
    public func path(_ key: String, required: Bool = false) -> String? {
        guard let s = string(key, required: required) else { return nil }
        if s.isEmpty { report(key, "expected a path, got an empty string"); return nil }
        return environment.resolve(path: s)
    }

    /// A path option as messages name it (`PipelineEnvironment.displayPath`): usable from the current folder.
    public func pathLabel(_ key: String) -> String? {
        string(key).map(environment.displayPath)
    }

    public func bool(_ key: String, default value: Bool) -> Bool {
        assertDeclared(key)
        guard let v = object[key] else { return value }
        guard case .bool(let b) = v else { wrongType(key, expected: "a boolean (true or false)", got: v); return value }
        return b
    }

    public func number(_ key: String, default value: Double? = nil, range: ClosedRange<Double>? = nil) -> Double? {
        assertDeclared(key)
        guard let v = object[key] else { return value }
        guard case .number(let n) = v else { wrongType(key, expected: "a number", got: v); return value }
        if let range, !range.contains(n) {
            report(key, "\(JSONWriter.numberText(n)) is out of range (expected \(JSONWriter.numberText(range.lowerBound)) to \(JSONWriter.numberText(range.upperBound)))")
            return value
        }
        return n
    }

    public func integer(_ key: String, default value: Int, range: ClosedRange<Int>? = nil) -> Int {
        assertDeclared(key)
        guard let v = object[key] else { return value }
        guard case .number(let n) = v, n == n.rounded(), abs(n) < 1e15 else { wrongType(key, expected: "an integer", got: v); return value }
        let i = Int(n)
        if let range, !range.contains(i) {
            report(key, "\(i) is out of range (expected \(range.lowerBound) to \(range.upperBound))")
            return value
        }
        return i
    }

    /// A string from a fixed set: `unknown value "day" (expected one of: days, events, occurrences); did you mean "days"?`
    public func choice(_ key: String, _ allowed: [String], default value: String) -> String {
        guard let s = string(key) else { return value }
        guard allowed.contains(s) else {
            report(key, "unknown value \"\(s)\" (expected one of: \(allowed.joined(separator: ", ")))" + Suggestion.hint(for: s, in: allowed))
            return value
        }
        return s
    }

    public func stringArray(_ key: String) -> [String]? {
        assertDeclared(key)
        guard let v = object[key] else { return nil }
        if case .string(let s) = v { return [s] }
        guard case .array(let items) = v else { wrongType(key, expected: "an array of strings", got: v); return nil }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                diagnostics.add(keyPath(key) + "[\(i)]", "expected a string, got \(item.kindDescription) \(item.preview)")
                continue
            }
            out.append(s)
        }
        return out
    }

    /// An object of string values ({"title": "name", ...}), in document order.
    public func stringMap(_ key: String) -> [(key: String, value: String)]? {
        assertDeclared(key)
        guard let v = object[key] else { return nil }
        guard case .object(let o) = v else { wrongType(key, expected: "an object", got: v); return nil }
        var out: [(key: String, value: String)] = []
        for m in o.members {
            guard case .string(let s) = m.value else {
                diagnostics.add(keyPath(key) + "." + m.key, "expected a string, got \(m.value.kindDescription) \(m.value.preview)")
                continue
            }
            out.append((m.key, s))
        }
        return out
    }

    /// A nested options object, with its own path.
    public func nested(_ key: String) -> PluginOptions? {
        assertDeclared(key)
        guard let v = object[key] else { return nil }
        guard case .object(let o) = v else { wrongType(key, expected: "an object", got: v); return nil }
        return PluginOptions(path: keyPath(key), object: o, environment: environment, diagnostics: diagnostics)
    }

    /// Reports keys that are not in `known` (plus "type"), suggesting the closest known one. For nested objects
    /// (a plugin's own options are checked by the loader against its declared list).
    public func rejectUnknownKeys(_ known: [String]) {
        let all = known + ["type"]
        for key in object.keys where !all.contains(key) {
            if known.isEmpty { report(key, "unknown option (this plugin takes no options)"); continue }
            report(key, "unknown option (expected one of: \(known.joined(separator: ", ")))" + Suggestion.hint(for: key, in: known))
        }
    }

    /// Throws `CalpipeError.optionsRejected` when problems were reported for this plugin's options.
    public func finish() throws {
        let prefix = path + "."
        if diagnostics.issues.contains(where: { $0.path?.hasPrefix(prefix) == true || $0.path == path }) { throw CalpipeError.optionsRejected }
    }
}
