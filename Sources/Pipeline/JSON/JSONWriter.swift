/// Writes a `JSONValue` deterministically: keys in the order given, numbers in a stable shortest form,
/// pretty (two-space indent) or compact. A walk of the tree over the one byte writer (`JSONBytes`), so a
/// value written here and the same value written by a sink are the same bytes.
package struct JSONWriter {
    package var pretty: Bool

    package init(pretty: Bool = true) {
        self.pretty = pretty
    }

    package func string(_ value: JSONValue) -> String {
        let out = JSONBytes(pretty: pretty, capacity: 256)
        out.value(value, level: 0)
        return out.string
    }

    /// Integers without a fraction ("3", not "3.0"); other numbers in Swift's shortest round-trip form.
    package static func numberText(_ n: Double) -> String {
        if n.isNaN || n.isInfinite { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }
}

extension JSONBytes {
    /// `value` as it stands at indent `level`.
    package func value(_ value: JSONValue, level: Int) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): quoted(s)
        case .array(let items):
            raw("[")
            var first = true
            for item in items {
                element(level: level, first: &first)
                self.value(item, level: level + 1)
            }
            close("]", level: level, empty: first)
        case .object(let object):
            raw("{")
            var first = true
            for member in object.members {
                key(member.key, level: level, first: &first)
                self.value(member.value, level: level + 1)
            }
            close("}", level: level, empty: first)
        }
    }
}
