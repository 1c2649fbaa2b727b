import Pipeline

/// Why a URL could not be fetched (after retries, and with no usable cached copy to fall back on). URLs in
/// these errors are redacted (`URLRedaction`): no credentials.
public indirect enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address is not an http(s) URL we can request.
    case invalidURL(String)
    /// No connection, DNS failure, reset, ... `connectFailure`: the server was never reached.
    case transport(url: String, message: String, connectFailure: Bool = false)
    /// No answer started within the connect timeout.
    case connectTimeout(url: String, seconds: Double)
    /// An attempt took longer than the configured (total) timeout.
    case timeout(url: String, seconds: Double)
    /// The server answered with an error status (after retries for temporary ones; at once for 401/403).
    case status(url: String, code: Int, message: String)
    /// The service said its request limit for the day (or longer than the retry budget) is reached;
    /// no further request goes to this host during the run.
    case limitReached(host: String, message: String)
    /// The run was interrupted while waiting for an answer or to retry.
    case interrupted(url: String)
    /// `--offline` and nothing cached for the URL.
    case offline(url: String)
    /// The server could not be reached and no cached copy could stand in: `cache` says why
    /// ("no cached copy", "the cached copy is 3 d old, more than max_stale 2 d").
    case unavailable(FetchError, cache: String)
    /// A request that is not idempotent (POST, PATCH) failed with a 5xx, a timeout or a broken connection and
    /// was not sent again: the server did not ask for it with Retry-After, and a second copy might be applied twice.
    case notRetried(FetchError, method: String)

    public var description: String {
        switch self {
        case .invalidURL(let url), .transport(let url, _, _), .connectTimeout(let url, _), .timeout(let url, _), .status(let url, _, _),
             .interrupted(let url):
            return url + ": " + reason
        case .limitReached(let host, let message): return "\(host): request limit reached, no more requests this run" + (message.isEmpty ? "" : " (\(message))")
        case .offline(let url): return "\(url): not in the HTTP cache, and --offline allows no download"
        case .unavailable(let inner, let cache): return "\(inner); \(cache)"
        case .notRetried(let inner, let method): return "\(inner); " + Self.notRetriedNote(method)
        }
    }

    private static func notRetriedNote(_ method: String) -> String {
        "not retried: a \(method) is sent again only when the server asks with Retry-After"
    }

    /// The error without the URL or host it names (for "server unreachable (...)" texts).
    public var reason: String {
        switch self {
        case .invalidURL: return "not an http:// or https:// address"
        case .transport(_, let message, _): return message
        case .connectTimeout(_, let seconds): return "no answer within \(DurationText.seconds(seconds)) (connect timeout)"
        case .timeout(_, let seconds): return "no complete answer within \(DurationText.seconds(seconds))"
        case .status(_, let code, let message): return "HTTP \(code)" + (message.isEmpty ? "" : " (\(message))")
        case .interrupted: return "interrupted while waiting for the server"
        case .limitReached(_, let message): return "request limit reached" + (message.isEmpty ? "" : " (\(message))")
        case .offline: return "--offline"
        case .unavailable(let inner, let cache): return inner.reason + "; " + cache
        case .notRetried(let inner, let method): return inner.reason + "; " + Self.notRetriedNote(method)
        }
    }
}

extension FetchError: CalpipeErrorConvertible {
    /// Its text (URLs redacted) as the message.
    public var calpipeError: CalpipeError { CalpipeError(description, cause: self) }
}
