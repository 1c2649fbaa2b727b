/// Why a URL could not be fetched (after retries, and with no cached copy to fall back on).
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address is not an http(s) URL we can request.
    case invalidURL(String)
    /// No connection, DNS failure, reset, ...
    case transport(url: String, message: String)
    /// An attempt took longer than the configured timeout.
    case timeout(url: String, seconds: Double)
    /// The server kept answering with an error status until the retry budget ran out.
    case status(url: String, code: Int, message: String)
    /// The service said its request limit for the day (or longer than the retry budget) is reached;
    /// no further request goes to this host during the run.
    case limitReached(host: String, message: String)
    /// The run was interrupted while waiting to retry.
    case interrupted(url: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): return "\(url): not an http:// or https:// address"
        case .transport(let url, let message): return "\(url): \(message)"
        case .timeout(let url, let seconds): return "\(url): no complete answer within \(DurationText.seconds(seconds))"
        case .status(let url, let code, let message): return "\(url): HTTP \(code)" + (message.isEmpty ? "" : " (\(message))")
        case .interrupted(let url): return "\(url): interrupted while waiting to retry"
        case .limitReached(let host, let message): return "\(host): request limit reached, no more requests this run" + (message.isEmpty ? "" : " (\(message))")
        }
    }
}
