/// The `serve` key of a pipeline file: how `calpipe serve` refreshes and publishes the pipeline
/// (docs/publishing.md). Other commands check it and otherwise ignore it.
public struct ServeSettings: Sendable, Hashable {
    /// Seconds between runs; nil: `calpipe serve --refresh`.
    public var refresh: Double?
    /// The token a request must carry (`?token=` or `Authorization: Bearer`); nil with `isPublic` false: not served.
    public var token: String?
    /// Served without a token.
    public var isPublic = false

    public init(refresh: Double? = nil, token: String? = nil, isPublic: Bool = false) {
        self.refresh = refresh
        self.token = token
        self.isPublic = isPublic
    }

    /// The `serve` object as written.
    struct Options: OptionConfig {
        var refresh: String?
        var token: String?
        var isPublic = false

        static let options = OptionSpec<Options> {
            Key("refresh", \.refresh, .string, "time between runs: a number with s, m, h or d, such as \"15m\" (at least one second)", default: "calpipe serve --refresh")
            Key("token", \.token, .string, "the token a request must carry (?token= or Authorization: Bearer); use ${ENV}")
            Key("public", \.isPublic, .boolean, "served without a token")
        }

        mutating func validate(_ context: OptionContext<Options>) {
            if let text = refresh, (DurationOption.seconds(text) ?? 0) < 1 {
                context.report(\.refresh, "invalid interval \"\(text)\" (expected at least one second: a number with s, m, h or d, such as \"15m\")")
            }
            if token?.isEmpty == true {
                context.report(\.token, "expected a token, got an empty string (for a feed without one: \"public\": true)")
            }
        }
    }

    /// Reads `serve`, reporting unknown keys, a refresh under a second and an empty token at their JSON paths.
    static func read(_ value: JSONValue, at input: OptionInput) -> ServeSettings {
        guard case .object(let object) = value else {
            input.wrongType(OptionKind.object.expectation, value)
            return ServeSettings()
        }
        let options = Options.options.decode(object, at: input)
        return ServeSettings(refresh: options.refresh.flatMap(DurationOption.seconds), token: options.token, isPublic: options.isPublic)
    }
}
