/// One cached answer. Its body is in `body`, or (for downloads such as feeds) in a file of the cache's
/// bodies folder named by `bodyFile`, so large bodies never pass through memory or the database.
public struct CacheEntry: Sendable, Hashable {
    public var url: String
    public var status: Int
    public var body: [UInt8]
    /// The body's file name in `HTTPCache.bodiesFolder`, when the body is kept as a file.
    public var bodyFile: String?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// When it was stored and until when it is fresh (seconds since 1970, the client's clock).
    public var storedAt: Double
    public var freshUntil: Double

    public init(url: String, status: Int, body: [UInt8], bodyFile: String? = nil, contentType: String?, etag: String?, lastModified: String?,
                storedAt: Double, freshUntil: Double) {
        self.url = url
        self.status = status
        self.body = body
        self.bodyFile = bodyFile
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.freshUntil = freshUntil
    }

    public func isFresh(at now: Double) -> Bool { now < freshUntil }

    /// The answer as stored (with an empty body when the body is a file).
    var response: HTTPResponse {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        if let etag { headers["etag"] = etag }
        if let lastModified { headers["last-modified"] = lastModified }
        // When it was fetched: read as the forecast's `fetched_at`.
        headers["date"] = HTTPDate.format(Int64(storedAt))
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
