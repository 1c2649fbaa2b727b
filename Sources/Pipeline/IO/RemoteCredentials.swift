/// How a source logs in to a feed: extra headers, a bearer token, or a user name and password (HTTP Basic).
/// With none of these and no `user:password@` in the URL, the fetcher looks the host up in `.netrc`
/// (`$NETRC`, else `~/.netrc`) unless `useNetrc` is false. Values are secrets: they never reach rows, logs,
/// errors, cache keys or the summary.
public struct RemoteCredentials: Sendable, Hashable {
    /// Header name to value, sent with every request to the feed (`${ENV}` already expanded).
    public var headers: [String: String]
    /// Sent as `Authorization: Bearer <token>`.
    public var bearerToken: String?
    /// With `password`: HTTP Basic (`Authorization: Basic ...`). A bearer token wins over them.
    public var username: String?
    public var password: String?
    /// Look the host up in `.netrc` (`$NETRC`, else `~/.netrc`) when nothing else logs in.
    public var useNetrc: Bool

    public init(headers: [String: String] = [:], bearerToken: String? = nil, username: String? = nil, password: String? = nil, useNetrc: Bool = true) {
        self.headers = headers
        self.bearerToken = bearerToken
        self.username = username
        self.password = password
        self.useNetrc = useNetrc
    }

    /// The secret texts, for scrubbing messages that might quote them.
    package var secrets: [String] {
        var out = Array(headers.values)
        if let bearerToken { out.append(bearerToken) }
        if let password { out.append(password) }
        return out
    }
}

/// What a source asks of the fetcher besides the URL.
public struct RemoteAccess: Sendable, Hashable {
    /// How to log in.
    public var credentials: RemoteCredentials
    /// Seconds a cached copy may be old and still be used when the server cannot be reached (nil: any age).
    public var maxStale: Double?

    public init(credentials: RemoteCredentials = RemoteCredentials(), maxStale: Double? = nil) {
        self.credentials = credentials
        self.maxStale = maxStale
    }
}
