/// A change to one text field of an event (`"title": {...}` in a rule). The parts given apply in this order:
/// `set`, then `replace` (every occurrence of a text), then `regex` (every match, with `$1` ... for its groups),
/// then `prefix` and `suffix`. A plain string (`"title": "Busy"`) is `set` (`OptionType.textEdit`).
///
/// `set` makes the field (an empty text removes it); the other parts change a field that has text and leave a
/// missing one missing.
struct TextEdit: OptionConfig, @unchecked Sendable {
    var set: String?
    /// Literal text that `with` replaces (`"replace": "Canceled: ", "with": ""`).
    var replace: String?
    /// A regular expression as written, whose matches `with` replaces (`"regex": "^(.*) - (.*)$", "with": "$2: $1"`);
    /// `regex` and `template` are it and `with` read (by `validate`).
    var pattern: String?
    var with: String?
    var ignoreCase = false
    var prefix: String?
    var suffix: String?
    var regex: Regex<AnyRegexOutput>?
    var template: [TemplatePart] = []

    init() {}

    init(set: String) {
        self.set = set
    }

    static let options = OptionSpec<TextEdit> {
        Key("set", \.set, .string, "the new text (\"\" removes the field)")
        Key("replace", \.replace, .string, "a text to replace, everywhere, by \"with\"")
        Key("regex", \.pattern, .string, "a regular expression whose matches \"with\" replaces ($1 ... its groups)")
        Key("with", \.with, .string, "what replaces the text of \"replace\" or the matches of \"regex\"")
        Key("ignore_case", \.ignoreCase, .boolean, "the regex ignores letter case")
        Key("prefix", \.prefix, .string, "text put before")
        Key("suffix", \.suffix, .string, "text put after")
    }

    mutating func validate(_ context: OptionContext<TextEdit>) {
        if let pattern { regex = TextTest.compile(pattern, ignoreCase: ignoreCase, context: context, at: \.pattern) }
        if let with, pattern != nil {
            let (parts, problem) = Self.template(with)
            if let problem { context.report(\.with, problem) } else { template = parts }
        }
        let replaced = context.isGiven(\.replace), matched = context.isGiven(\.pattern)
        if (replaced || matched) && !context.isGiven(\.with) {
            context.report(\.with, "missing: \"\(replaced ? "replace" : "regex")\" needs the text that replaces what it finds (\"with\": \"\" removes it)")
        } else if replaced && matched {
            context.report(\.with, "give \"replace\" or \"regex\", not both: \"with\" belongs to one of them")
        } else if context.isGiven(\.with) && !replaced && !matched {
            context.report(\.with, "\"with\" replaces what \"replace\" or \"regex\" finds; give one of them")
        }
        let changes: [PartialKeyPath<TextEdit>] = [\.set, \.replace, \.pattern, \.prefix, \.suffix]
        if !changes.contains(where: context.isGiven) {
            context.report("expected at least one change (set, replace, regex, prefix, suffix)")
        }
    }

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
        if let replace, !replace.isEmpty { result = result.replacing(replace, with: with ?? "") }
        if let regex {
            result = result.replacing(regex) { match in Self.expand(template, match: match) }
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

    /// Reads a replacement template: `$1` ... `$99` name groups, `$$` is a dollar sign. Returns the reason instead
    /// when a `$` is followed by anything else.
    static func template(_ text: String) -> (parts: [TemplatePart], problem: String?) {
        var parts: [TemplatePart] = []
        var literal = ""
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            guard c == "$" else { literal.append(c); i += 1; continue }
            if i + 1 < chars.count, chars[i + 1] == "$" { literal.append("$"); i += 2; continue }
            var digits = ""
            var j = i + 1
            while j < chars.count, chars[j].isASCII, chars[j].isNumber, digits.count < 2 { digits.append(chars[j]); j += 1 }
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

extension OptionType where Value == TextEdit {
    /// A text change: a text (the new value) or an object of changes.
    static var textEdit: OptionType<TextEdit> {
        .object(orText: { TextEdit(set: $0) }, expected: "a text (the new value) or an object of changes")
    }
}
