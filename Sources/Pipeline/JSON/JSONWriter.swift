/// Writes JSON deterministically: keys in the order given, numbers in a stable shortest form,
/// pretty (two-space indent) or compact.
package struct JSONWriter {
    package var pretty: Bool

    package init(pretty: Bool = true) {
        self.pretty = pretty
    }

    package func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: 0)
        return out
    }

    package func write(_ value: JSONValue, into out: inout String, indent: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += Self.numberText(n)
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent + 1)
                write(item, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out += "]"
        case .object(let object):
            if object.members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent + 1)
                Self.appendQuoted(member.key, to: &out)
                out += pretty ? ": " : ":"
                write(member.value, into: &out, indent: indent + 1)
            }
            newline(&out, indent)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ level: Int) {
        guard pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: level)
    }

    /// Integers without a fraction ("3", not "3.0"); other numbers in Swift's shortest round-trip form.
    package static func numberText(_ n: Double) -> String {
        if n.isNaN || n.isInfinite { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    /// `s` as a quoted JSON string (`JSONEscaping`).
    package static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        var text = s
        text.withUTF8 { utf8 in
            if JSONEscaping.isPlain(utf8) {
                out += s
                return
            }
            let escaped = [UInt8](unsafeUninitializedCapacity: JSONEscaping.worstCase(utf8.count)) { buffer, count in
                count = JSONEscaping.escape(utf8, to: buffer.baseAddress!) - buffer.baseAddress!
            }
            out += String(decoding: escaped, as: UTF8.self)
        }
        out += "\""
    }
}
