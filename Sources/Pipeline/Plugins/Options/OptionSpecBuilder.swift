/// Builds an `OptionSpec` from `Key`, `Group` and `Include` lines.
@resultBuilder
public enum OptionSpecBuilder<Config: OptionConfig> {
    public static func buildExpression(_ key: Key<Config>) -> [OptionMember<Config>] { [key.member] }
    public static func buildExpression(_ group: Group<Config>) -> [OptionMember<Config>] { [group.member] }
    public static func buildExpression(_ include: Include<Config>) -> [OptionMember<Config>] { [include.member] }
    public static func buildExpression(_ members: [OptionMember<Config>]) -> [OptionMember<Config>] { members }
    public static func buildBlock(_ parts: [OptionMember<Config>]...) -> [OptionMember<Config>] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [OptionMember<Config>]?) -> [OptionMember<Config>] { part ?? [] }
    public static func buildEither(first part: [OptionMember<Config>]) -> [OptionMember<Config>] { part }
    public static func buildEither(second part: [OptionMember<Config>]) -> [OptionMember<Config>] { part }
    public static func buildArray(_ parts: [[OptionMember<Config>]]) -> [OptionMember<Config>] { parts.flatMap { $0 } }
}
