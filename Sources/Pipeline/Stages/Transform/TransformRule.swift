/// One rule of a transform stage: when its `match` holds for an event, its actions apply (`RuleActions`).
struct TransformRule: Sendable {
    var match: EventMatch
    var actions: RuleActions
}
