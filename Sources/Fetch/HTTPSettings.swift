import Foundation
import Pipeline

/// How polite and how patient the HTTP client is. One value per client; every field has a safe default.
public struct HTTPSettings: Sendable {
    /// Sent with every request. Services such as MET Norway require contact information in it.
    public var userAgent: String
    /// Seconds to wait for the connection and the start of the answer before giving up on one attempt
    /// ("no answer within 5 s (connect timeout)").
    public var connectTimeout: Double
    /// Retries after a failure to reach the server at all (refused, unknown host, connect timeout): a server
    /// that is down is rarely back a second later, so the whole retry budget is not spent on it.
    public var connectRetries: Int
    /// Only the cache: no request is made (`calpipe run --offline`, or `CALPIPE_OFFLINE=1`).
    public var offline: Bool
    /// Seconds to wait for another run's lock on the cache file before going on without the cache.
    public var cacheBusyTimeout: Double
    /// Seconds one whole attempt (connect, send, receive the full body) may take.
    public var requestTimeout: Double
    /// Total seconds spent retrying one URL (waits and attempts) before the client gives up.
    public var retryBudget: Double
    /// First backoff wait in seconds; it doubles on each retry (with jitter), capped by `maximumBackoff`.
    public var backoffBase: Double
    /// The longest wait between two retries, in seconds.
    public var maximumBackoff: Double
    /// Attempts per URL, the first included.
    public var maximumAttempts: Int
    /// At most this many requests per second to one host. Zero or less: no limit.
    public var requestsPerSecond: Double
    /// Expired cache entries older than this (seconds) are removed when the cache is opened; a stale copy
    /// is only useful for so long.
    public var keepStaleFor: Double
    /// The clock, injectable so cache expiry can be tested without waiting.
    public var clock: @Sendable () -> Date

    /// The User-Agent when none is set.
    public static let defaultUserAgent = "calpipe/0.1 (calendar ETL; forecast enrichment)"

    /// Settings with safe defaults: 5 s to connect, 30 s an attempt, 60 s of retries, 5 attempts, 1 request a second per host.
    public init(userAgent: String = HTTPSettings.defaultUserAgent, connectTimeout: Double = 5, requestTimeout: Double = 30,
                retryBudget: Double = 60, backoffBase: Double = 1, maximumBackoff: Double = 30, maximumAttempts: Int = 5,
                requestsPerSecond: Double = 1, keepStaleFor: Double = 30 * 86_400, connectRetries: Int = 1, offline: Bool = false,
                cacheBusyTimeout: Double = 30, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.connectRetries = connectRetries
        self.offline = offline
        self.cacheBusyTimeout = cacheBusyTimeout
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retryBudget = retryBudget
        self.backoffBase = backoffBase
        self.maximumBackoff = maximumBackoff
        self.maximumAttempts = maximumAttempts
        self.requestsPerSecond = requestsPerSecond
        self.keepStaleFor = keepStaleFor
        self.clock = clock
    }
}

extension HTTPSettings {
    /// Settings from a plugin's `client` options (`HTTPClientOptions`): what they give replaces `base`'s
    /// value, what they leave out keeps it.
    public init(_ options: HTTPClientOptions, base: HTTPSettings = HTTPSettings()) {
        self = base
        if let userAgent = options.userAgent { self.userAgent = userAgent }
        if let timeout = options.timeout { requestTimeout = timeout }
        if let connectTimeout = options.connectTimeout { self.connectTimeout = connectTimeout }
        if let retryBudget = options.retryBudget { self.retryBudget = retryBudget }
        if let backoff = options.backoff { backoffBase = backoff }
        if let maxAttempts = options.maxAttempts { maximumAttempts = maxAttempts }
        if let requestsPerSecond = options.requestsPerSecond { self.requestsPerSecond = requestsPerSecond }
    }
}
