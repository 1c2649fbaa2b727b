/// A change to one text field of an event (`"title": {...}` in a rule). The parts given apply in this order:
/// `set`, then `replace` (every occurrence of a text), then `regex` (every match, with `$1` ... for its groups),
/// then `prefix` and `suffix`. A plain string (`"title": "Busy"`) is `set`.
///
/// `set` makes the field (an empty text removes it); the other parts change a field that has text and leave a
/// missing one missing.
struct TextEdit: @unchecked Sendable {
    var set: String?
    /// Literal text and what replaces it (`"replace": "Canceled: ", "with": ""`).
    var replace: (text: String, with: String)?
    /// A regular expression and its replacement (`"regex": "^(.*) - (.*)$", "with": "$2: $1"`).
    var regex: (pattern: Regex<AnyRegexOutput>, with: [TemplatePart])?
    var prefix: String?
    var suffix: String?

    /// A piece of a replacement: text as written, or the text of a numbered group of the match (`$1`; `$0` is the
    /// whole match). `$$` writes a dollar sign.
    enum TemplatePart: Equatable {
        case text(String)
        case group(Int)
    }

    func apply(_ value: String?) -> String? {
        var text = value
        if let set { text = set }
        guard var result = text, !result.isEmpty else { return nil }
        if let replace, !replace.text.isEmpty { result = result.replacing(replace.text, with: replace.with) }
        if let regex {
            result = result.replacing(regex.pattern) { match in Self.expand(regex.with, match: match) }
        }
        if let prefix { result = prefix + result }
        if let suffix { result += suffix }
        return result.isEmpty ? nil : result
    }

    /// The replacement for one match; a group that did not take part in it (or does not exist) is empty.
    static func expand(_ template: [TemplatePart], match: Regex<AnyRegexOutput>.Match) -> String {
        var out = ""
        for part in template {
            switch part {
            case .text(let t): out += t
            case .group(let n):
                if n < match.output.count, let s = match.output[n].substring { out += s }
            }
        }
        return out
    }

    /// Reads a replacement template: `$1` ... `$99` name groups, `$$` is a dollar sign. Returns nil with the reason
    /// when a `$` is followed by anything else.
    static func template(_ text: String) -> (parts: [TemplatePart], problem: String?) {
        var parts: [TemplatePart] = []
        var literal = ""
        var chars = Array(text)
        chars.append("\0")
        var i = 0
        while i < chars.count - 1 {
            let c = chars[i]
            guard c == "$" else { literal.append(c); i += 1; continue }
            if chars[i + 1] == "$" { literal.append("$"); i += 2; continue }
            var digits = ""
            var j = i + 1
            while j < chars.count - 1, chars[j].isASCII, chars[j].isNumber, digits.count < 2 { digits.append(chars[j]); j += 1 }
            guard let n = Int(digits) else {
                return ([], "\"$\" must be followed by a group number (\"$1\") or another \"$\" (\"$$\" writes a dollar sign)")
            }
            if !literal.isEmpty { parts.append(.text(literal)); literal = "" }
            parts.append(.group(n))
            i = j
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        return (parts, nil)
    }
}
