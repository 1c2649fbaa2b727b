/// Fetches `http(s)://` (and `webcal://`) inputs for sources. The executable installs the real client
/// (with its cache) in the pipeline environment; the Pipeline module itself never opens a connection.
public protocol RemoteFetcher: Sendable {
    /// Downloads (or revalidates) the URL and returns a local file with the body.
    func fetch(url: String, context: RunContext) throws -> RemoteBody
}

/// A fetched body, stored in a local file the fetcher owns.
public struct RemoteBody: Sendable {
    public var path: String
    /// True when the body came from the cache without a network round trip (fresh, or revalidated with 304).
    public var fromCache: Bool
    /// True when the server could not be reached and an expired cached copy was used.
    public var stale: Bool
    /// Seconds since the body was downloaded, when it came from the cache (nil when unknown).
    public var ageSeconds: Int64?

    public init(path: String, fromCache: Bool, stale: Bool, ageSeconds: Int64? = nil) {
        self.path = path
        self.fromCache = fromCache
        self.stale = stale
        self.ageSeconds = ageSeconds
    }
}
