/// Where an answer came from.
public enum FetchOrigin: Sendable, Hashable {
    /// Downloaded now.
    case network
    /// Served from the cache while still fresh: no request was made.
    case cache
    /// The cached copy was revalidated with a 304 answer.
    case revalidated
    /// The server could not give an answer; an expired cached copy was used. The text says why.
    case stale(String)

    /// True when no new body was downloaded.
    public var isFromCache: Bool {
        if case .network = self { return false }
        return true
    }
}
