/// A test on one text field of an event (`"match": {"title": {...}}`): every test given must hold. A plain string
/// (`"status": "cancelled"`) is `equals` ignoring case.
///
/// A field with several values (categories, attendees' e-mail addresses) passes the positive tests when one of its
/// values does, and is tested as one empty value when it has none; `not` holds when its test does not hold for the
/// field as a whole ("no category contains x").
struct TextTest: @unchecked Sendable {
    /// `true`: the field is missing or empty; `false`: it has text.
    var empty: Bool?
    var equals: String?
    var contains: String?
    var prefix: String?
    var suffix: String?
    var regex: Regex<AnyRegexOutput>?
    /// The tests above compare ignoring letter case (their texts are kept lower-cased then).
    var ignoreCase = false
    /// Tests that must not hold (`not`).
    var negated: [TextTest] = []

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
