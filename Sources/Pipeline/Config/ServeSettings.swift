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

    static let keys = ["refresh", "token", "public"]

    /// Reads `serve`, reporting unknown keys, a refresh under a second and an empty token at their JSON paths.
    static func read(_ options: PluginOptions) -> ServeSettings {
        options.rejectUnknownKeys(keys)
        var settings = ServeSettings()
        if let text = options.string("refresh") {
            if let seconds = DurationOption.seconds(text), seconds >= 1 {
                settings.refresh = seconds
            } else {
                options.report("refresh", "invalid interval \"\(text)\" (expected at least one second: a number with s, m, h or d, such as \"15m\")")
            }
        }
        if let token = options.string("token") {
            if token.isEmpty { options.report("token", "expected a token, got an empty string (for a feed without one: \"public\": true)") }
            settings.token = token
        }
        settings.isPublic = options.bool("public", default: false)
        return settings
    }
}
