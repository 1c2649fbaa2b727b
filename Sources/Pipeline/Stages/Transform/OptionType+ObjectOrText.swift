extension OptionType where Value: OptionConfig {
    /// An object of `Value`'s options, or a text that stands for one (`text`); `expected` names both in messages.
    static func object(orText text: @escaping @Sendable (String) -> Value, expected: String) -> OptionType<Value> {
        var type = OptionType(kind: .object, decode: { json, input in
            switch json {
            case .string(let s): return text(s)
            case .object(let object): return Value.options.decode(object, at: input)
            default:
                input.wrongType("\(expected) (\(Value.options.keys.joined(separator: ", ")))", json)
                return nil
            }
        }, encode: { _ in nil })
        type.acceptsText = true
        type.members = { Value.options.docs }
        return type
    }
}
