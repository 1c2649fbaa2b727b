/// Fetches `http(s)://` (and `webcal://`) inputs for sources. The executable installs the real client
/// (with its cache) in the pipeline environment; the Pipeline module itself never opens a connection.
package protocol RemoteFetcher: Sendable {
    /// Downloads (or revalidates) the URL and returns a local file with the body. Errors and every text the
    /// fetcher produces name the URL redacted (`URLRedaction`), never with its credentials.
    func fetch(url: String, access: RemoteAccess, context: RunContext) throws -> RemoteBody
}

extension RemoteFetcher {
    package func fetch(url: String, context: RunContext) throws -> RemoteBody {
        try fetch(url: url, access: RemoteAccess(), context: context)
    }
}

/// A fetched body, stored in a local file the fetcher owns, with what is known about where it came from
/// (for messages, the summary and fingerprints of incremental runs).
package struct RemoteBody: Sendable {
    package enum Origin: String, Sendable, Hashable {
        /// Downloaded now.
        case downloaded
        /// Served from the cache while fresh: no request was made.
        case cached
        /// The server said 304 Not Modified: the cached copy is current.
        case revalidated
        /// The server could not be reached (or `--offline`): the cached copy was used as it is.
        case stale
    }

    package var path: String
    package var origin: Origin
    /// Seconds since the cached copy was downloaded or last confirmed by the server (0 when downloaded now).
    package var age: Double
    /// Why the server could not be reached, for `.stale`.
    package var staleReason: String?
    /// The validators of the body, when the server sent them.
    package var etag: String?
    package var lastModified: String?
    /// Length and SHA-256 (hex) of the body, when known.
    package var length: Int64?
    package var sha256: String?

    /// True when the body came from the cache (fresh, revalidated with 304, or stale).
    package var fromCache: Bool { origin != .downloaded }
    /// True when the server could not be reached and a cached copy was used.
    package var stale: Bool { origin == .stale }

    package init(path: String, origin: Origin, age: Double = 0, staleReason: String? = nil, etag: String? = nil, lastModified: String? = nil,
                length: Int64? = nil, sha256: String? = nil) {
        self.path = path
        self.origin = origin
        self.age = age
        self.staleReason = staleReason
        self.etag = etag
        self.lastModified = lastModified
        self.length = length
        self.sha256 = sha256
    }
}
