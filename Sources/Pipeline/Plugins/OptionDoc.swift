/// One documented option of a plugin, for `calpipe plugins`, `calpipe schema` and the checks. A plugin's docs come
/// from its `OptionSpec` (`OptionSpec.docs`); the pipeline file's top-level keys are listed here directly.
public struct OptionDoc: Sendable, Hashable {
    public var name: String
    public var kind: OptionKind
    public var required: Bool
    public var summary: String
    /// For options with a fixed set of values.
    public var values: [String]
    /// The default in words, for `calpipe plugins` (the JSON default's text, or how the default is chosen).
    public var defaultValue: String?
    /// The default as a JSON value (nil: no fixed default), for `calpipe schema`.
    public var defaultJSON: JSONValue?
    /// Bounds of numbers, integers, durations (seconds) and sizes (bytes).
    public var minimum: Double?
    public var maximum: Double?
    /// A regular expression a text value matches (for the schema).
    public var pattern: String?
    /// Never shown: no default, "<redacted>" in plans.
    public var isSecret = false
    /// The kind of each item of an array or member of a map (`.strings`, `.stringMap`).
    public var itemKind: OptionKind?
    /// The options of a nested object (`Group`); nil for other options.
    public var members: [OptionDoc]?

    public init(_ name: String, _ kind: OptionKind, required: Bool = false, _ summary: String, values: [String] = [], default defaultValue: String? = nil) {
        self.name = name
        self.kind = kind
        self.required = required
        self.summary = summary
        self.values = values
        self.defaultValue = defaultValue
    }

    /// A JSON default as `calpipe plugins` shows it: text without quotes, other values as JSON.
    static func text(of value: JSONValue) -> String {
        if case .string(let s) = value { return s }
        return JSONWriter(pretty: false).string(value)
    }
}
