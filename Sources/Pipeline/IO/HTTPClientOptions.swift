/// The patience and politeness of a plugin's HTTP client, as the pipeline gives them: `user_agent`, `timeout`,
/// `connect_timeout`, `retry_budget`, `backoff`, `max_attempts`, `max_requests_per_second`. A value not given stays
/// nil (the client's default, documented as each option's default). A network plugin includes them with
/// `Include(\.client)`; `HTTPSettings(_:)` in `Fetch` makes the client's settings of them.
public struct HTTPClientOptions: OptionConfig, Hashable {
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

    public init() {}

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

    public static let options = OptionSpec<HTTPClientOptions> {
        Key("user_agent", \.userAgent, .string, "User-Agent sent with every request (name/version and a contact: e-mail or URL)")
        Key("timeout", \.timeout, .number(in: 0.01...3600), "seconds one request may take in all", implied: 30)
        Key("connect_timeout", \.connectTimeout, .number(in: 0.01...3600), "seconds to wait for a connection (or any data on it); said when it strikes", implied: 5)
        Key("retry_budget", \.retryBudget, .number(in: 0...86_400), "seconds spent retrying one request (429/5xx/network errors) before giving up", implied: 60)
        Key("backoff", \.backoff, .number(in: 0...3600), "first wait between retries in seconds; doubles each time, with jitter", implied: 1)
        Key("max_attempts", \.maxAttempts, .integer(in: 1...100), "attempts per request, the first included", implied: 5)
        Key("max_requests_per_second", \.requestsPerSecond, .number(in: 0...1000), "at most this many requests per second to one host (0: no limit)", implied: 1)
    }

    public mutating func validate(_ context: OptionContext<HTTPClientOptions>) {
        if let userAgent, userAgent.allSatisfy({ $0 == " " || $0 == "\t" }) {
            context.report(\.userAgent, "expected a User-Agent text, got an empty string")
        }
    }
}
