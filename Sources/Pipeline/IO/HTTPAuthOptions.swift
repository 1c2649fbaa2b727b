/// How a plugin that talks to a server logs in, and how stale a cached answer may be when the server cannot be
/// reached: `headers`, `bearer_token`, `username`/`password`, `netrc` (values may use `${ENV}`) and `max_stale`.
/// Every file source's `url` input includes it (`InputOptions`); a network plugin includes it in its own options
/// with `Include(\.auth)` and reads `auth.access`.
public struct HTTPAuthOptions: OptionConfig {
    /// Header name to value, sent with every request (shown as "<redacted>": they often carry keys).
    public var headers: [(key: String, value: String)] = []
    public var bearerToken: Secret?
    public var username: String?
    public var password: Secret?
    /// With no other credentials, log in with the host's `.netrc` entry.
    public var netrc = true
    public var maxStale: Duration?

    public init() {}

    public static let options = OptionSpec<HTTPAuthOptions> {
        Key("headers", \.headers, .secretMap, "headers sent with the request, name to value (values may use ${ENV}), e.g. {\"X-Api-Key\": \"${FEED_KEY}\"}")
        Key("bearer_token", \.bearerToken, .secret, "sent as \"Authorization: Bearer ...\" (use ${ENV})")
        Key("username", \.username, .string, "HTTP Basic user name (with password)")
        Key("password", \.password, .secret, "HTTP Basic password (use ${ENV})")
        Key("netrc", \.netrc, .boolean, "with no other credentials, log in with the host's entry in $NETRC or ~/.netrc")
        Key("max_stale", \.maxStale, .duration,
            "when the server cannot be reached, use the cached copy only if it is younger than this (\"30s\", \"15m\", \"6h\", \"2d\"); else the source fails")
    }

    public mutating func validate(_ context: OptionContext<HTTPAuthOptions>) {
        for (name, value) in headers {
            let valid = !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }
            if !valid { context.report(\.headers, "\"\(name)\" is not a valid header name") }
            if value.contains(where: { $0 == "\r" || $0 == "\n" }) { context.report(\.headers, "the value of \"\(name)\" contains a line break") }
        }
        if password != nil && username == nil { context.report(\.username, "missing (\"password\" needs a \"username\")") }
        if bearerToken != nil && username != nil {
            context.report(\.bearerToken, "give either \"bearer_token\" or \"username\"/\"password\", not both")
        }
    }

    /// The credentials and staleness limit to fetch with.
    public var access: RemoteAccess {
        var credentials = RemoteCredentials(bearerToken: bearerToken?.reveal(), username: username, password: password?.reveal(), useNetrc: netrc)
        for (name, value) in headers { credentials.headers[name] = value }
        return RemoteAccess(credentials: credentials, maxStale: maxStale?.inSeconds)
    }
}

extension OptionType where Value == [(key: String, value: String)] {
    /// A map of names to texts that are not shown (headers that carry keys).
    public static var secretMap: OptionType<[(key: String, value: String)]> {
        var type = OptionType.stringMap
        type.isSecret = true
        return type
    }
}
