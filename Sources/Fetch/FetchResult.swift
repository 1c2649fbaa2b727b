/// An answer and where it came from, with what incremental runs fingerprint (validators, length, digest).
package struct FetchResult: Sendable {
    package var response: HTTPResponse
    package var origin: FetchOrigin
    /// The URL as requested, redacted (no credentials).
    package var url: String
    /// The body's file, for `BodyDestination.file` (owned by the client; `response.body` is then empty).
    package var bodyPath: String?
    /// When the body was downloaded or last confirmed by the server (seconds since 1970), for cached answers.
    package var storedAt: Double?
    /// Seconds since `storedAt` (0 for a download).
    package var age: Double
    /// Length and SHA-256 (hex) of the body, when known.
    package var bodyLength: Int64?
    package var bodySHA256: String?
    /// For a stale answer: why the server did not answer ("cannot connect to the server"), without the URL.
    package var staleReason: String?

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

    package var etag: String? { response.header("etag") }
    package var lastModified: String? { response.header("last-modified") }
}
