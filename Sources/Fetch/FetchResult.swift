/// An answer and where it came from, with what incremental runs fingerprint (validators, length, digest).
public struct FetchResult: Sendable {
    public var response: HTTPResponse
    public var origin: FetchOrigin
    /// The URL as requested, redacted (no credentials).
    public var url: String
    /// The body's file, for `BodyDestination.file` (owned by the client; `response.body` is then empty).
    public var bodyPath: String?
    /// When the body was downloaded or last confirmed by the server (seconds since 1970), for cached answers.
    public var storedAt: Double?
    /// Seconds since `storedAt` (0 for a download).
    public var age: Double
    /// Length and SHA-256 (hex) of the body, when known.
    public var bodyLength: Int64?
    public var bodySHA256: String?
    /// For a stale answer: why the server did not answer ("cannot connect to the server"), without the URL.
    public var staleReason: String?

    package init(response: HTTPResponse, origin: FetchOrigin, url: String, bodyPath: String? = nil, storedAt: Double? = nil, age: Double = 0,
                bodyLength: Int64? = nil, bodySHA256: String? = nil) {
        self.response = response
        self.origin = origin
        self.url = url
        self.bodyPath = bodyPath
        self.storedAt = storedAt
        self.age = age
        self.bodyLength = bodyLength
        self.bodySHA256 = bodySHA256
    }

    public var etag: String? { response.header("etag") }
    public var lastModified: String? { response.header("last-modified") }
}
