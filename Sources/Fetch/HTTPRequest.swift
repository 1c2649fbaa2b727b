import Pipeline

/// One request for the API client: method, URL, headers, body and credentials. GET and HEAD requests without
/// a body go through the cache; others are sent as they are, once per attempt.
public struct HTTPRequest: Sendable {
    /// GET, POST, PUT, PATCH, DELETE, HEAD, PROPFIND, REPORT, ... (upper-cased).
    public var method: String
    /// The address; `user:password@` in it logs in with HTTP Basic (and is never shown).
    public var url: String
    /// Extra headers (any case). Credentials belong in `credentials`, so they are kept out of messages and keys.
    public var headers: [String: String]
    /// The request body, sent as it is (set `Content-Type` in `headers`).
    public var body: [UInt8]?
    /// A file whose bytes are the request body, streamed from disk (a large upload never sits in memory);
    /// read again for each attempt. Set this or `body`, not both (this one wins).
    public var bodyFile: String?
    /// How to log in (bearer token, Basic, `.netrc`, secret headers); kept out of messages and cache keys.
    public var credentials: RemoteCredentials

    /// A request; `method` is upper-cased. No credentials and no `.netrc` unless `credentials` says so.
    public init(method: String = "GET", url: String, headers: [String: String] = [:], body: [UInt8]? = nil, bodyFile: String? = nil,
                credentials: RemoteCredentials = RemoteCredentials(useNetrc: false)) {
        self.bodyFile = bodyFile
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        self.credentials = credentials
    }

    /// A GET (through the cache).
    public static func get(_ url: String, credentials: RemoteCredentials = RemoteCredentials(useNetrc: false)) -> HTTPRequest {
        HTTPRequest(url: url, credentials: credentials)
    }

    /// A JSON body (for APIs); sets Content-Type.
    public static func json(_ method: String, _ url: String, body: [UInt8], credentials: RemoteCredentials = RemoteCredentials(useNetrc: false)) -> HTTPRequest {
        HTTPRequest(method: method, url: url, headers: ["Content-Type": "application/json"], body: body, credentials: credentials)
    }

    /// Answers of these may be kept and reused.
    var isCacheable: Bool { (method == "GET" || method == "HEAD") && body == nil && bodyFile == nil }

    /// Methods that may be sent again after a 5xx, a timeout or a lost connection: sending them twice has the
    /// effect of sending them once (RFC 9110 9.2.2; PROPFIND and REPORT are safe WebDAV reads). POST, PATCH and
    /// unknown methods are repeated only when the server asks with Retry-After (429/503), or when the
    /// connection was never made (the request did not leave).
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "REPORT"]

    /// True when a failed attempt may be repeated without the server asking (`idempotentMethods`).
    public var isIdempotent: Bool { Self.idempotentMethods.contains(method) }
}

/// Where a response body goes.
public enum BodyDestination: Sendable {
    /// Kept in `HTTPResponse.body`.
    case memory
    /// Streamed to a file the client owns (`FetchResult.bodyPath`): a body of any size never sits in memory.
    case file
}
