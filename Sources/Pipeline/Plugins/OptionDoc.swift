/// One documented option of a plugin, for `calpipe plugins` and for rejecting unknown keys.
public struct OptionDoc: Sendable, Hashable {
    public var name: String
    public var kind: OptionKind
    public var required: Bool
    public var summary: String
    /// For options with a fixed set of values.
    public var values: [String]
    public var defaultValue: String?

    public init(_ name: String, _ kind: OptionKind, required: Bool = false, _ summary: String, values: [String] = [], default defaultValue: String? = nil) {
        self.name = name
        self.kind = kind
        self.required = required
        self.summary = summary
        self.values = values
        self.defaultValue = defaultValue
    }
}
