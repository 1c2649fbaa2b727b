/// One rule of a transform stage: when its `match` holds for an event, its actions apply (`RuleActions`). Declared
/// as the options of one item of `rules`: `{"match": {...}, "title": {"prefix": "Team: "}, "stop": true}`.
struct TransformRule: OptionConfig {
    var match = EventMatch()
    var actions = RuleActions()

    init() {}

    static let options = OptionSpec<TransformRule> {
        Group("match", \.match, "conditions, all of which must hold (none: every event)")
        Key("remove", \.actions.remove, .boolean, "true: the event goes (instances of a series, with weekday or time_of_day); alone")
        Key("privacy", \.actions.privacy, .choice, "busy: titled \"Busy\", without description, location, attendees and other details")
        Key("title", \.actions.title, .textEdit, "a text sets it; or an object of changes: set, replace + with, regex + with ($1 ...), ignore_case, prefix, suffix")
        Key("location", \.actions.location, .textEdit, "as title")
        Key("description", \.actions.description, .textEdit, "as title")
        Key("color", \.actions.color, .color, "the event's colour")
        Key("categories", \.actions.categories, .strings, "the event's categories")
        Key("calendar", \.actions.calendar, .string, "the calendar's name the event is shown under")
        Key("transparency", \.actions.transparency, .choice, "opaque (busy) or transparent (free)")
        Key("stop", \.actions.stop, .boolean, "true: no later rule applies to the event")
    }

    /// The actions' keys, in the order the docs list them.
    static var actionKeys: [String] { options.keys.filter { $0 != "match" } }

    mutating func validate(_ context: OptionContext<TransformRule>) {
        let keys: [(key: String, path: PartialKeyPath<TransformRule>)] = [
            ("remove", \.actions.remove), ("privacy", \.actions.privacy), ("title", \.actions.title), ("location", \.actions.location),
            ("description", \.actions.description), ("color", \.actions.color), ("categories", \.actions.categories),
            ("calendar", \.actions.calendar), ("transparency", \.actions.transparency), ("stop", \.actions.stop),
        ]
        let given = keys.filter { context.isGiven($0.path) }.map(\.key)
        if actions.remove, given.count > 1 {
            context.report("\"remove\" cannot be combined with other actions (\(given.filter { $0 != "remove" }.joined(separator: ", "))): a removed event is not changed")
        } else if given.isEmpty {
            context.report("a rule needs at least one action (\(Self.actionKeys.joined(separator: ", ")))")
        }
    }
}

extension OptionType where Value == [TransformRule] {
    /// `rules`: an array of rule objects (`TransformRule.options`), at least one.
    static var transformRules: OptionType<[TransformRule]> {
        var type = OptionType(kind: .array, decode: { json, input in
            guard case .array(let items) = json else {
                input.wrongType("an array of rules, each an object with \"match\" and actions", json)
                return nil
            }
            if items.isEmpty { input.report("expected at least one rule") }
            var rules: [TransformRule] = []
            for (i, item) in items.enumerated() {
                let at = input.appending("[\(i)]")
                guard case .object(let object) = item else { at.wrongType("a rule object with \"match\" and actions", item); continue }
                rules.append(TransformRule.options.decode(object, at: at))
            }
            return rules
        }, encode: { _ in nil })
        type.itemKind = .object
        type.members = { TransformRule.options.docs }
        return type
    }
}
