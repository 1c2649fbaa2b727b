/// A test on one text field of an event (`"match": {"title": {...}}`): every test given must hold. A plain string
/// (`"status": "cancelled"`) is `equals` ignoring case (`OptionType.textTest`).
///
/// A field with several values (categories, attendees' e-mail addresses) passes the positive tests when one of its
/// values does, and is tested as one empty value when it has none; `not` holds when its test does not hold for the
/// field as a whole ("no category contains x").
struct TextTest: OptionConfig, @unchecked Sendable {
    /// `true`: the field is missing or empty; `false`: it has text.
    var empty: Bool?
    var equals: String?
    var contains: String?
    var prefix: String?
    var suffix: String?
    /// The `regex` as written; `regex` is it compiled (by `validate`).
    var pattern: String?
    var regex: Regex<AnyRegexOutput>?
    /// The tests compare ignoring letter case (their texts are kept lower-cased then).
    var ignoreCase = false
    /// Tests that must not hold (`not`: none or one).
    var negated: [TextTest] = []

    init() {}

    init(equals: String, ignoreCase: Bool) {
        self.equals = ignoreCase ? equals.lowercased() : equals
        self.ignoreCase = ignoreCase
    }

    static let options = OptionSpec<TextTest> {
        Key("empty", \.empty, .boolean, "true: the field is missing or empty; false: it has text")
        Key("equals", \.equals, .string, "the text is this")
        Key("contains", \.contains, .string, "the text contains this")
        Key("prefix", \.prefix, .string, "the text starts with this")
        Key("suffix", \.suffix, .string, "the text ends with this")
        Key("regex", \.pattern, .string, "the regular expression matches somewhere in the text")
        Key("ignore_case", \.ignoreCase, .boolean, "the tests of this object ignore letter case")
        Key("not", \.negated, .negatedTextTest, "a test that must not hold")
    }

    mutating func validate(_ context: OptionContext<TextTest>) {
        if ignoreCase {
            for keyPath in [\TextTest.equals, \.contains, \.prefix, \.suffix] { self[keyPath: keyPath] = self[keyPath: keyPath]?.lowercased() }
        }
        if let pattern { regex = Self.compile(pattern, ignoreCase: ignoreCase, context: context, at: \.pattern) }
        let tests: [PartialKeyPath<TextTest>] = [\.empty, \.equals, \.contains, \.prefix, \.suffix, \.pattern, \.negated]
        if !tests.contains(where: context.isGiven) {
            context.report("expected at least one test (empty, equals, contains, prefix, suffix, regex, not)")
        }
    }

    /// A regular expression compiled now: one that does not compile is reported with why, at `key`.
    static func compile<Config>(_ pattern: String, ignoreCase: Bool, context: OptionContext<Config>, at key: PartialKeyPath<Config>) -> Regex<AnyRegexOutput>? {
        do {
            let compiled = try Regex(pattern)
            return ignoreCase ? compiled.ignoresCase() : compiled
        } catch {
            context.report(key, "invalid regular expression \"\(pattern)\": \(error)")
            return nil
        }
    }

    /// The test holds for a field whose values are `values` (one value for a text field, none when it is missing).
    func holds(_ values: [String]) -> Bool {
        let positive = values.isEmpty ? holds(one: "") : values.contains { holds(one: $0) }
        return positive && !negated.contains { $0.holds(values) }
    }

    /// The test holds for a text field (nil: missing).
    func holds(_ value: String?) -> Bool {
        holds(value.map { [$0] } ?? [])
    }

    private func holds(one value: String) -> Bool {
        if let empty, value.isEmpty != empty { return false }
        if equals != nil || contains != nil || prefix != nil || suffix != nil {
            let text = ignoreCase ? value.lowercased() : value
            if let equals, text != equals { return false }
            if let contains, !text.contains(contains) { return false }
            if let prefix, !text.hasPrefix(prefix) { return false }
            if let suffix, !text.hasSuffix(suffix) { return false }
        }
        if let regex, (try? regex.firstMatch(in: value)) == nil { return false }
        return true
    }
}

extension OptionType where Value == TextTest {
    /// A text test: a text (equal to it, ignoring case) or an object of tests.
    static var textTest: OptionType<TextTest> {
        .object(orText: { TextTest(equals: $0, ignoreCase: true) }, expected: "a text (equal to it, ignoring case) or an object of tests")
    }
}

extension OptionType where Value == [TextTest] {
    /// `not`: one text test, kept as a list of one.
    static var negatedTextTest: OptionType<[TextTest]> {
        var type = OptionType<TextTest>.textTest.map { test, input -> [TextTest]? in
            guard test.negated.isEmpty else {
                input.report(suffix: ".not", "a \"not\" inside \"not\": write the test itself")
                return nil
            }
            return [test]
        }
        // The tests without "not" (one "not" deep), which keeps the docs from nesting without end.
        type.members = { TextTest.options.members.filter { !$0.keys.contains("not") }.flatMap { $0.docs(TextTest()) } }
        return type
    }
}
