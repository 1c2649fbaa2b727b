/// How one option's JSON value becomes a typed Swift value: its kind (for docs and the schema), what it accepts,
/// and how a default is written back as JSON (for `calpipe schema` and `calpipe plugins`). The standard kinds
/// are in `OptionType+Kinds.swift`: `.string`, `.integer(in:)`, `.number(in:)`, `.boolean`, `.choice`, `.path`,
/// `.url`, `.duration`, `.byteSize`, `.color`, `.strings`, `.stringMap`, `.secret`, `.timeZone`. A plugin may make
/// its own with `init(kind:...)` or refine one with `map`.
public struct OptionType<Value: Sendable>: Sendable {
    /// The shape written in the pipeline file.
    public var kind: OptionKind
    /// The allowed values, for options from a fixed set (docs, schema `enum`).
    public var values: [String]
    /// Bounds (integers and numbers), for docs and the schema.
    public var minimum: Double?
    public var maximum: Double?
    /// Whether the value is shown as "<redacted>" in docs, plans and summaries.
    public var isSecret = false
    /// A regular expression the text must match, for the schema (the decoder checks the meaning).
    public var pattern: String?
    /// The kind of each item of an array or member of a map.
    public var itemKind: OptionKind?
    let decodeValue: @Sendable (JSONValue, OptionInput) -> Value?
    let encodeValue: @Sendable (Value) -> JSONValue?

    /// A kind of its own: `decode` returns the value or nil after reporting what is wrong on `input`; `encode`
    /// writes a value (a default) back as JSON, nil when it has no JSON form.
    public init(kind: OptionKind, values: [String] = [], minimum: Double? = nil, maximum: Double? = nil,
                decode: @escaping @Sendable (JSONValue, OptionInput) -> Value?,
                encode: @escaping @Sendable (Value) -> JSONValue?) {
        self.kind = kind
        self.values = values
        self.minimum = minimum
        self.maximum = maximum
        self.decodeValue = decode
        self.encodeValue = encode
    }

    /// Decodes a value (nil after reporting the problem at `input.path`).
    public func decode(_ value: JSONValue, _ input: OptionInput) -> Value? {
        decodeValue(value, input)
    }

    /// A value as JSON (a default in the schema).
    public func encode(_ value: Value) -> JSONValue? {
        encodeValue(value)
    }

    /// The same kind read on into another type: `transform` returns nil after reporting on `input`;
    /// `encode` gives the original value back for the schema's default.
    public func map<T: Sendable>(_ transform: @escaping @Sendable (Value, OptionInput) -> T?,
                                 encode back: @escaping @Sendable (T) -> Value? = { _ in nil }) -> OptionType<T> {
        let decode = decodeValue, encode = encodeValue
        var mapped = OptionType<T>(kind: kind, values: values, minimum: minimum, maximum: maximum,
                                   decode: { json, input in decode(json, input).flatMap { transform($0, input) } },
                                   encode: { back($0).flatMap(encode) })
        mapped.isSecret = isSecret
        mapped.pattern = pattern
        mapped.itemKind = itemKind
        return mapped
    }
}
