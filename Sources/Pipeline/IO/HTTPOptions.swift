/// The options of a plugin that talks to servers, declared once (for the checks, `calpipe plugins` and
/// `calpipe schema`) and read once. Two groups:
/// - `auth`: how to log in (`headers`, `bearer_token`, `username`/`password`, `netrc`; values may use `${ENV}`)
///   and `max_stale`. Every file source's `url` input takes it (`InputSpec.optionDocs`).
/// - `client`: the client's patience and politeness (`user_agent`, `timeout`, `connect_timeout`,
///   `retry_budget`, `backoff`, `max_attempts`, `max_requests_per_second`). The forecast stage takes it.
///
/// A network plugin lists what it needs, `options: HTTPOptions.auth() + HTTPOptions.client() + [...]`, reads them
/// in `make` with `HTTPOptions.access(options)` and `HTTPOptions.clientOptions(options)`, and makes its client
/// with `options.environment.httpClient(settings: HTTPSettings(clientOptions))` (both in `Fetch`).
public enum HTTPOptions {
    /// The names of `auth()`, in order.
    public static let authNames = ["headers", "bearer_token", "username", "password", "netrc", "max_stale"]
    /// The names of `client()`, in order.
    public static let clientNames = ["user_agent", "timeout", "connect_timeout", "retry_budget", "backoff", "max_attempts", "max_requests_per_second"]

    /// The log-in options and `max_stale`. `prefix` starts each description (the file sources' "url: ").
    public static func auth(prefix: String = "") -> [OptionDoc] {
        [
            OptionDoc("headers", "object", prefix + "headers sent with the request, name to value (values may use ${ENV}), e.g. {\"X-Api-Key\": \"${FEED_KEY}\"}"),
            OptionDoc("bearer_token", "string", prefix + "sent as \"Authorization: Bearer ...\" (use ${ENV})"),
            OptionDoc("username", "string", prefix + "HTTP Basic user name (with password)"),
            OptionDoc("password", "string", prefix + "HTTP Basic password (use ${ENV})"),
            OptionDoc("netrc", "boolean", prefix + "with no other credentials, log in with the host's entry in $NETRC or ~/.netrc", default: "true"),
            OptionDoc("max_stale", "string", prefix + "when the server cannot be reached, use the cached copy only if it is younger than this (\"30s\", \"15m\", \"6h\", \"2d\"); else the source fails"),
        ]
    }

    /// The client's options, with the client's defaults. `userAgent`: the description of `user_agent` (a
    /// service's own rules for it).
    public static func client(userAgent: String = "User-Agent sent with every request (name/version and a contact: e-mail or URL)") -> [OptionDoc] {
        [
            OptionDoc("user_agent", "string", userAgent),
            OptionDoc("timeout", "number", "seconds one request may take in all", default: "30"),
            OptionDoc("connect_timeout", "number", "seconds to wait for a connection (or any data on it); said when it strikes", default: "5"),
            OptionDoc("retry_budget", "number", "seconds spent retrying one request (429/5xx/network errors) before giving up", default: "60"),
            OptionDoc("backoff", "number", "first wait between retries in seconds; doubles each time, with jitter", default: "1"),
            OptionDoc("max_attempts", "integer", "attempts per request, the first included", default: "5"),
            OptionDoc("max_requests_per_second", "number", "at most this many requests per second to one host (0: no limit)", default: "1"),
        ]
    }

    /// Reads the `auth` options. Nil (with every problem reported on its option) when one is wrong.
    /// `netrcDefault`: whether `.netrc` is read when `netrc` is not given.
    public static func access(_ options: PluginOptions, netrcDefault: Bool = true) -> RemoteAccess? {
        var credentials = RemoteCredentials()
        var ok = true
        if let headers = options.stringMap("headers") {
            for (name, value) in headers {
                let valid = !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
                if !valid { options.report("headers", "\"\(name)\" is not a valid header name"); ok = false }
                if value.contains(where: { $0 == "\r" || $0 == "\n" }) { options.report("headers", "the value of \"\(name)\" contains a line break"); ok = false }
                credentials.headers[name] = value
            }
        }
        credentials.bearerToken = options.string("bearer_token")
        credentials.username = options.string("username")
        credentials.password = options.string("password")
        credentials.useNetrc = options.bool("netrc", default: netrcDefault)
        if credentials.password != nil && credentials.username == nil { options.report("username", "missing (\"password\" needs a \"username\")"); ok = false }
        if credentials.bearerToken != nil && credentials.username != nil {
            options.report("bearer_token", "give either \"bearer_token\" or \"username\"/\"password\", not both"); ok = false
        }
        var maxStale: Double?
        if let value = options.value("max_stale") {
            switch value {
            case .string(let text):
                maxStale = DurationOption.seconds(text)
                if maxStale == nil { options.report("max_stale", "expected a duration such as \"30s\", \"15m\", \"6h\" or \"2d\", got \"\(text)\""); ok = false }
            default:
                options.report("max_stale", "expected a duration such as \"30s\", \"15m\", \"6h\" or \"2d\", got \(value.kindDescription)"); ok = false
            }
        }
        return ok ? RemoteAccess(credentials: credentials, maxStale: maxStale) : nil
    }

    /// Reads the `client` options, each checked against its range (problems reported on the option); a value not
    /// given stays nil, for the client's default.
    public static func clientOptions(_ options: PluginOptions) -> HTTPClientOptions {
        var out = HTTPClientOptions()
        if let userAgent = options.string("user_agent") {
            if userAgent.trimmingCharacters(in: .whitespaces).isEmpty { options.report("user_agent", "expected a User-Agent text, got an empty string") }
            out.userAgent = userAgent
        }
        out.timeout = options.number("timeout", range: 0.01...3600)
        out.connectTimeout = options.number("connect_timeout", range: 0.01...3600)
        out.retryBudget = options.number("retry_budget", range: 0...86_400)
        out.backoff = options.number("backoff", range: 0...3600)
        if options.contains("max_attempts") { out.maxAttempts = options.integer("max_attempts", default: 5, range: 1...100) }
        out.requestsPerSecond = options.number("max_requests_per_second", range: 0...1000)
        return out
    }
}

/// The `client` options as given (nil: not given, the client's default stands). `HTTPSettings(_:)` in `Fetch`
/// makes settings of them.
public struct HTTPClientOptions: Sendable, Hashable {
    public var userAgent: String?
    /// Seconds one request may take in all.
    public var timeout: Double?
    /// Seconds to wait for the connection and the start of the answer.
    public var connectTimeout: Double?
    /// Seconds spent retrying one request.
    public var retryBudget: Double?
    /// The first wait between retries, in seconds.
    public var backoff: Double?
    /// Attempts per request, the first included.
    public var maxAttempts: Int?
    /// Requests per second to one host (0: no limit).
    public var requestsPerSecond: Double?

    public init(userAgent: String? = nil, timeout: Double? = nil, connectTimeout: Double? = nil, retryBudget: Double? = nil, backoff: Double? = nil,
                maxAttempts: Int? = nil, requestsPerSecond: Double? = nil) {
        self.userAgent = userAgent
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.retryBudget = retryBudget
        self.backoff = backoff
        self.maxAttempts = maxAttempts
        self.requestsPerSecond = requestsPerSecond
    }
}
